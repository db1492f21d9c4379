import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OidcBearerVerifier, type OidcBearerOptions } from './oidc-bearer';

/** OIDC bearer tokens verified against a JWKS served over real HTTP, with the discovery document. */
describe('OIDC bearer verification', () => {
  let server: Server;
  let issuer: string;
  let signing: CryptoKey;
  let stranger: CryptoKey;
  const jwks: { keys: JWK[] } = { keys: [] };

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    signing = pair.privateKey;
    stranger = (await generateKeyPair('RS256')).privateKey;
    jwks.keys.push({ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' });
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
      else if (req.url === '/jwks') res.end(JSON.stringify(jwks));
      else res.writeHead(404).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const options = (): OidcBearerOptions => ({ issuer, audience: 'auto-oncall', algorithms: ['RS256'], roleClaim: 'aoc_role', tenantClaim: 'aoc_tenant', clockToleranceSeconds: 5 });
  const sign = (claims: Record<string, unknown>, edit: (j: SignJWT) => SignJWT = (j) => j, key: CryptoKey = signing) =>
    edit(new SignJWT({ aoc_role: 'support', aoc_tenant: 'acme', ...claims }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setSubject('alice').setIssuer(issuer).setAudience('auto-oncall').setIssuedAt().setExpirationTime('5m')).sign(key);

  it('accepts a valid token and maps its claims to a principal (keys found through discovery)', async () => {
    const verifier = new OidcBearerVerifier(options());
    expect(await verifier.verify(await sign({}))).toEqual({ subject: `oidc:${issuer}#alice`, role: 'support', tenant: 'acme', credential: 'oidc_bearer' });
    expect(await verifier.verify(await sign({ aoc_role: ['viewer', 'operator', 'nonsense'] }))).toMatchObject({ role: 'operator' });
  });

  it('refuses expired, not-yet-valid, wrong-issuer, wrong-audience, forged and claimless tokens', async () => {
    const verifier = new OidcBearerVerifier({ ...options(), jwksUri: `${issuer}/jwks` });
    const past = Math.floor(Date.now() / 1000) - 3600;
    expect(await verifier.verify(await sign({}, (j) => j.setIssuedAt(past - 60).setExpirationTime(past)))).toBe('expired');
    expect(await verifier.verify(await sign({}, (j) => j.setNotBefore(Math.floor(Date.now() / 1000) + 3600)))).toBe('not_yet_valid');
    expect(await verifier.verify(await sign({}, (j) => j.setIssuer('https://evil.example')))).toBe('wrong_issuer');
    expect(await verifier.verify(await sign({}, (j) => j.setAudience('someone-else')))).toBe('wrong_audience');
    expect(await verifier.verify(await sign({}, (j) => j, stranger))).toBe('bad_signature');
    expect(await verifier.verify(await sign({ aoc_role: 'superuser' }))).toBe('no_role');
    expect(await verifier.verify(await sign({ aoc_tenant: '' }))).toBe('no_tenant');
    expect(await verifier.verify('not.a.jwt')).toBe('malformed');
  });

  it('never accepts alg none or a shared-secret signature, whatever the key set holds', async () => {
    const verifier = new OidcBearerVerifier(options());
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const claims = { sub: 'mallory', iss: issuer, aud: 'auto-oncall', exp: Math.floor(Date.now() / 1000) + 300, aoc_role: 'admin', aoc_tenant: '*' };
    expect(await verifier.verify(`${b64({ alg: 'none' })}.${b64(claims)}.`)).toBe('bad_algorithm');
    const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).sign(new TextEncoder().encode('a shared secret of thirty-two bytes!!'));
    expect(await verifier.verify(hs)).toBe('bad_algorithm');
    expect(() => new OidcBearerVerifier({ ...options(), algorithms: ['HS256'] })).toThrow(/not allowed/);
    expect(() => new OidcBearerVerifier({ ...options(), algorithms: ['none'] })).toThrow(/not allowed/);
  });
});
