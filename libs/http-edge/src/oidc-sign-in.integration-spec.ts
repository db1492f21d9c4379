import { AUTH_STORE, Access, CurrentPrincipal, DEFAULT_AUTH_SETTINGS, migrateAuthStore, type AuthSettings, type Principal } from '@aoc/auth';
import { createServiceDataSource, startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import { Controller, Get, Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { chromium, type Browser } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { edgeModule, installHttpEdge } from './install-edge';

@Controller()
class HomeController {
  @Get()
  @Access('viewer')
  home(@CurrentPrincipal() p: Principal): Principal {
    return p;
  }
}

@Module({ controllers: [HomeController] })
class HomeModule {}

/** Accounts of the test issuer: alice is an operator of acme, mallory has no Auto-oncall role. */
const ACCOUNTS: Record<string, Record<string, string>> = { alice: { aoc_role: 'operator', aoc_tenant: 'acme' }, mallory: {} };

/**
 * Dashboard sign-in through a real OIDC issuer (the `oidc-provider` package, in process) with the
 * authorization code flow and PKCE, driven in Chromium.
 */
describe('OIDC dashboard sign-in', () => {
  let pg: EmbeddedPostgres;
  let ds: DataSource;
  let app: INestApplication;
  let issuerServer: Server;
  let browser: Browser;
  let base = '';

  beforeAll(async () => {
    // oidc-provider announces its development defaults on the console; they are what this test wants.
    jest.spyOn(console, 'info').mockImplementation(() => undefined);
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    pg = await startEmbeddedPostgres();
    await migrateAuthStore(pg.url);
    ds = createServiceDataSource({ url: pg.url, schema: 'public', entities: [...AUTH_STORE.entities], poolSize: 1 });
    await ds.initialize();
    // The app's port first: the issuer registers its callback URL.
    issuerServer = createServer();
    await new Promise<void>((r) => issuerServer.listen(0, '127.0.0.1', r));
    const issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
    const settings: AuthSettings = {
      ...DEFAULT_AUTH_SETTINGS,
      oidc: { issuer, audience: 'auto-oncall', algorithms: ['RS256'], roleClaim: 'aoc_role', tenantClaim: 'aoc_tenant', clockToleranceSeconds: 5 },
      oidcClient: { clientId: 'aoc-dashboard', clientSecret: 'a-client-secret-for-the-test', allowInsecureIssuer: true },
    };
    const deps = { settings, dataSource: ds, logger: { error: () => undefined } };
    app = await NestFactory.create(edgeModule({ module: HomeModule } as DynamicModule, deps), { logger: false, bodyParser: false });
    installHttpEdge(app, deps);
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    const provider = new Provider(issuer, {
      clients: [{ client_id: 'aoc-dashboard', client_secret: 'a-client-secret-for-the-test', redirect_uris: [`${base}/auth/oidc/callback`], grant_types: ['authorization_code'], response_types: ['code'] }],
      claims: { openid: ['sub'], profile: ['aoc_role', 'aoc_tenant'] },
      conformIdTokenClaims: false,
      findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id, ...(ACCOUNTS[id] ?? {}) }) }),
      features: { devInteractions: { enabled: true } },
      cookies: { keys: ['an-issuer-cookie-key-for-the-test'] },
    });
    issuerServer.on('request', provider.callback());
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await new Promise<void>((r) => issuerServer.close(() => r()));
    await ds?.destroy();
    await pg?.stop();
  });

  const signInAs = async (login: string) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const authorizations: URL[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname === '/auth' && url.searchParams.has('client_id')) authorizations.push(url);
    });
    await page.goto(`${base}/`);
    await page.locator('#oidc').click();
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click(); // consent
    await page.waitForURL((url) => url.href.startsWith(base));
    await page.waitForLoadState('load');
    return { context, page, authorizations };
  };

  it('signs a user in with the code flow and PKCE, with the role and tenant of the ID token', async () => {
    const { context, page, authorizations } = await signInAs('alice');
    expect(page.url()).toBe(`${base}/`);
    expect(authorizations[0]?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizations[0]?.searchParams.get('response_type')).toBe('code');
    expect(authorizations[0]?.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const principal: unknown = JSON.parse(await page.locator('body').innerText());
    expect(principal).toMatchObject({ role: 'operator', tenant: 'acme', credential: 'session', subject: expect.stringMatching(/^oidc:http:\/\/127\.0\.0\.1:\d+#alice$/) });
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'aoc_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(cookies.find((c) => c.name === 'aoc_oidc')).toBeUndefined();
    await context.close();
  }, 60000);

  it('refuses a user the issuer gives no role, and a callback that did not start here', async () => {
    const { context, page } = await signInAs('mallory');
    expect(await page.getByRole('alert').innerText()).toContain('no Auto-oncall role or tenant');
    expect((await context.cookies()).find((c) => c.name === 'aoc_session')).toBeUndefined();
    const forged = await page.goto(`${base}/auth/oidc/callback?code=stolen&state=guess`);
    expect(forged?.status()).toBe(400);
    await context.close();
  }, 60000);
});
