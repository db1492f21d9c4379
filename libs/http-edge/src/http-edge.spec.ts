import { AUTH_STORE, Access, CurrentPrincipal, RateLimit, DEFAULT_AUTH_SETTINGS, TokenStore, migrateAuthStore, type AuthSettings, type Principal } from '@aoc/auth';
import { createServiceDataSource, startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import { Body, Controller, Get, Module, Post, type DynamicModule, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { request } from 'node:http';
import type { DataSource } from 'typeorm';
import { AuditLog } from './audit';
import { edgeModule, installHttpEdge } from './install-edge';

@Controller('t')
class ProbeController {
  @Get('public')
  @Access('public')
  open(): { ok: true } {
    return { ok: true };
  }

  @Get('viewer')
  @Access('viewer')
  view(@CurrentPrincipal() p: Principal): Principal {
    return p;
  }

  @Post('operator')
  @Access('operator')
  act(@Body() body: unknown): unknown {
    return { received: body };
  }

  @Post('large')
  @Access('operator')
  large(@Body() body: unknown): { bytes: number } {
    return { bytes: JSON.stringify(body).length };
  }

  @Get('limited')
  @Access('viewer')
  @RateLimit(3)
  limited(): { ok: true } {
    return { ok: true };
  }

  @Get('undeclared')
  undeclared(): string {
    return 'should never be served';
  }

  @Get('boom')
  @Access('viewer')
  boom(): never {
    throw new Error('secret internal detail at /srv/db password=hunter2');
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

/** The HTTP edge on a real server: deny by default, roles, sessions, CSRF, Host/Origin, problem+json. */
describe('HTTP edge', () => {
  let pg: EmbeddedPostgres;
  let ds: DataSource;
  let app: INestApplication;
  let base: string;
  const tokens: Record<string, string> = {};

  const start = async (settings: AuthSettings): Promise<void> => {
    const deps = { settings, dataSource: ds, logger: { error: () => undefined }, auditSchema: 'probe', bodyLimits: { 'POST /t/large': 64 * 1024 } };
    app = await NestFactory.create(edgeModule({ module: ProbeModule } as DynamicModule, deps), { logger: false, bodyParser: false });
    installHttpEdge(app, deps);
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  };

  beforeAll(async () => {
    pg = await startEmbeddedPostgres();
    await migrateAuthStore(pg.url);
    ds = createServiceDataSource({ url: pg.url, schema: 'public', entities: [...AUTH_STORE.entities], poolSize: 1 });
    await ds.initialize();
    await ds.query('CREATE SCHEMA probe');
    await ds.query('CREATE TABLE probe.http_audit (id bigserial PRIMARY KEY, at timestamptz NOT NULL, subject text NOT NULL, tenant text, role text, action text NOT NULL, target text NOT NULL, status int NOT NULL)');
    const store = new TokenStore(ds);
    for (const role of ['viewer', 'support', 'operator', 'admin'] as const) tokens[role] = (await store.create({ name: role, role, tenant: role === 'admin' ? '*' : 'acme', createdBy: 'test' })).token;
    const revoked = await store.create({ name: 'gone', role: 'admin', tenant: '*', createdBy: 'test' });
    await store.revoke(revoked.summary.id);
    tokens['revoked'] = revoked.token;
    await start(DEFAULT_AUTH_SETTINGS);
  }, 120000);

  afterAll(async () => {
    // Audit rows are written when a response finishes; let the last ones land first.
    await new Promise((r) => setTimeout(r, 200));
    await app.close();
    await ds.destroy();
    await pg.stop();
  });

  const call = async (path: string, init: RequestInit & { token?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set('authorization', `Bearer ${init.token}`);
    const response = await fetch(`${base}${path}`, { ...init, headers, redirect: 'manual' });
    const text = await response.text();
    return { status: response.status, type: response.headers.get('content-type') ?? '', headers: response.headers, text, json: (text.startsWith('{') ? JSON.parse(text) : null) as Record<string, unknown> | null };
  };

  it('refuses a caller without a credential, and any presented credential that is wrong, as problem+json', async () => {
    const none = await call('/t/viewer');
    expect(none.status).toBe(401);
    expect(none.type).toContain('application/problem+json');
    expect(none.json).toMatchObject({ status: 401, code: 'AUTH.UNAUTHENTICATED', title: 'Unauthorized' });
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    expect((await call('/t/viewer', { token: tokens['revoked'] })).json).toMatchObject({ code: 'AUTH.UNAUTHENTICATED', detail: expect.stringContaining('revoked') });
    expect((await call('/t/viewer', { token: 'eyJhbGciOiJub25lIn0.e30.' })).json).toMatchObject({ detail: expect.stringContaining('oidc_not_configured') });
    expect((await call('/t/viewer', { headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } })).status).toBe(401);
  });

  it('lets each role do what its rank allows and names the missing role otherwise', async () => {
    const viewer = await call('/t/viewer', { token: tokens['viewer'] });
    expect(viewer.status).toBe(200);
    expect(viewer.json).toMatchObject({ role: 'viewer', tenant: 'acme', credential: 'api_token' });
    const post = (token: string) => call('/t/operator', { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect((await post(tokens['support'])).json).toMatchObject({ status: 403, code: 'AUTH.FORBIDDEN', detail: expect.stringContaining('operator') });
    expect((await post(tokens['operator'])).json).toEqual({ received: { a: 1 } });
    expect((await post(tokens['admin'])).status).toBe(201);
    expect((await call('/t/public')).status).toBe(200);
  });

  it('denies a route that declares no access rule, even to an admin', async () => {
    expect((await call('/t/undeclared', { token: tokens['admin'] })).json).toMatchObject({ status: 403, code: 'AUTH.ROUTE_UNDECLARED' });
  });

  it('answers unknown routes, bad JSON, forms, foreign hosts and origins with one problem format', async () => {
    expect((await call('/nowhere', { token: tokens['admin'] })).json).toMatchObject({ status: 404, code: 'HTTP.NOT_FOUND', instance: '/nowhere' });
    const json = { 'content-type': 'application/json' };
    const bad = await call('/t/operator', { method: 'POST', token: tokens['operator'], headers: json, body: '{"a":' });
    expect(bad.json).toMatchObject({ status: 400, code: 'HTTP.BAD_REQUEST', errors: [{ field: '(body)' }] });
    const big = await call('/t/operator', { method: 'POST', token: tokens['operator'], headers: json, body: JSON.stringify({ a: 'x'.repeat(200_000) }) });
    expect(big.json).toMatchObject({ status: 413, code: 'HTTP.BODY_TOO_LARGE' });
    // Each route has its own limit: the default for most, more where the role declared it, chunked bodies included.
    const mid = JSON.stringify({ a: 'x'.repeat(30_000) });
    expect((await call('/t/operator', { method: 'POST', token: tokens['operator'], headers: json, body: mid })).json).toMatchObject({ status: 413, code: 'HTTP.BODY_TOO_LARGE' });
    expect((await call('/t/large', { method: 'POST', token: tokens['operator'], headers: json, body: mid })).json).toEqual({ bytes: mid.length });
    expect((await call('/t/large?x=1', { method: 'POST', token: tokens['operator'], headers: json, body: JSON.stringify({ a: 'x'.repeat(70_000) }) })).json).toMatchObject({ status: 413 });
    const chunked = await fetch(`${base}/t/operator`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${tokens['operator']}` },
      body: new ReadableStream({ start: (c) => { c.enqueue(new TextEncoder().encode(mid)); c.close(); } }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    const form = await call('/t/operator', { method: 'POST', token: tokens['operator'], headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'ticketKey=SUP-1&mode=write' });
    expect(form.json).toMatchObject({ status: 415, code: 'HTTP.UNSUPPORTED_MEDIA_TYPE' });
    const port = new URL(base).port;
    // fetch sets Host itself; a raw request sends what a DNS-rebinding page would.
    const withHost = (host: string, extra: Record<string, string> = {}) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: Number(port), path: '/t/public', headers: { host, ...extra } }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const rebound = await withHost(`attacker.example:${port}`);
    expect(rebound.status).toBe(421);
    const problem: unknown = JSON.parse(rebound.body);
    expect(problem).toMatchObject({ status: 421, code: 'HTTP.HOST_NOT_ALLOWED' });
    expect((await withHost(`localhost:${port}`)).status).toBe(200);
    expect((await withHost(`127.0.0.1:${Number(port) + 1}`)).status).toBe(421);
    // Oversized headers never reach a route.
    expect((await withHost(`127.0.0.1:${port}`, { 'x-pad': 'x'.repeat(20_000) })).status).toBe(431);
    const cross = await call('/t/operator', { method: 'POST', token: tokens['operator'], headers: { ...json, origin: 'https://evil.example' }, body: '{}' });
    expect(cross.json).toMatchObject({ status: 403, code: 'HTTP.ORIGIN_NOT_ALLOWED' });
    const same = await call('/t/operator', { method: 'POST', token: tokens['operator'], headers: { ...json, origin: base }, body: '{}' });
    expect(same.status).toBe(201);
  });

  it('never lets an internal error or its stack leave the process', async () => {
    const r = await call('/t/boom', { token: tokens['viewer'] });
    expect(r.json).toMatchObject({ status: 500, code: 'INTERNAL.UNEXPECTED' });
    expect(r.text).not.toMatch(/hunter2|\/srv\/db|at .*\.ts/);
  });

  it('sends security headers: CSP with frame-ancestors, nosniff, no referrer to other origins', async () => {
    const r = await call('/t/public');
    expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('referrer-policy')).toBe('same-origin');
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('signs a browser in with a token, keeps state changes behind the CSRF token, and signs out', async () => {
    expect((await call('/t/viewer', { headers: { accept: 'text/html' } })).headers.get('location')).toBe('/auth/sign-in');
    expect((await call('/auth/sign-in')).text).toContain('<form method="post" action="/auth/sign-in">');
    const form = { 'content-type': 'application/x-www-form-urlencoded', origin: base };
    const refused = await call('/auth/sign-in', { method: 'POST', headers: form, body: 'token=aoc_nothing' });
    expect(refused.status).toBe(401);
    const signIn = await call('/auth/sign-in', { method: 'POST', headers: form, body: `token=${encodeURIComponent(tokens['operator'])}` });
    expect(signIn.status).toBe(303);
    const setCookie = signIn.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^aoc_session=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const cookie = setCookie.split(';')[0];
    const session = await call('/auth/session', { headers: { cookie } });
    expect(session.json).toMatchObject({ role: 'operator', tenant: 'acme', credential: 'session' });
    const csrf = String(session.json?.['csrfToken']);
    const json = { 'content-type': 'application/json', cookie };
    expect((await call('/t/operator', { method: 'POST', headers: json, body: '{}' })).json).toMatchObject({ code: 'AUTH.CSRF' });
    expect((await call('/t/operator', { method: 'POST', headers: { ...json, 'x-csrf-token': 'wrong' }, body: '{}' })).json).toMatchObject({ code: 'AUTH.CSRF' });
    expect((await call('/t/operator', { method: 'POST', headers: { ...json, 'x-csrf-token': csrf }, body: '{}' })).status).toBe(201);
    const out = await call('/auth/sign-out', { method: 'POST', headers: { ...form, cookie }, body: `_csrf=${csrf}` });
    expect(out.status).toBe(303);
    expect((await call('/t/viewer', { headers: { cookie } })).json).toMatchObject({ code: 'AUTH.UNAUTHENTICATED', detail: expect.stringContaining('ended') });
  });

  it('records who did what with which outcome, refusals included, and shows it to admins only', async () => {
    await call('/t/viewer', { token: tokens['viewer'] });
    await call('/t/operator', { method: 'POST', token: tokens['support'], headers: { 'content-type': 'application/json' }, body: '{"secret":"do-not-record"}' });
    await new Promise((r) => setTimeout(r, 100));
    expect((await call('/v1/audit', { token: tokens['operator'] })).status).toBe(403);
    const trail = await call('/v1/audit?limit=50', { token: tokens['admin'] });
    const events = (trail.json?.['events'] ?? []) as { subject: string; action: string; status: number; tenant: string | null }[];
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: 'GET /t/viewer', status: 200, tenant: 'acme', subject: expect.stringMatching(/^token:[0-9a-f]{12}$/) }),
        expect.objectContaining({ action: 'POST /t/operator', status: 403, tenant: 'acme' }),
        expect.objectContaining({ action: 'GET /t/viewer', status: 401, subject: 'unauthenticated' }),
      ]),
    );
    const rows: unknown = await ds.query('SELECT * FROM probe.http_audit');
    const stored = JSON.stringify(rows);
    for (const token of Object.values(tokens)) expect(stored).not.toContain(token.slice(17));
    expect(stored).not.toContain('do-not-record');
    expect((await call('/v1/audit?limit=0', { token: tokens['admin'] })).json).toMatchObject({ status: 400, errors: [{ field: 'limit' }] });
  });

  it('keeps the audit table within its retention: rows past it go as new ones are written, at most once an hour', async () => {
    let now = Date.parse('2026-12-03T12:00:00Z');
    const log = new AuditLog(ds, 'probe', 30 * 86_400_000, () => now);
    const event = (daysAgo: number) => ({ at: new Date(now - daysAgo * 86_400_000), subject: 'token:abc', tenant: 'acme', role: 'viewer', action: `GET /retention/${daysAgo}`, target: '', status: 200 });
    const kept = async () => ((await ds.query(`SELECT action FROM probe.http_audit WHERE action LIKE 'GET /retention/%' ORDER BY action`)) as { action: string }[]).map((r) => r.action);
    await ds.query(`INSERT INTO probe.http_audit (at, subject, action, target, status) VALUES (now() - interval '400 days', 'x', 'GET /retention/400', '', 200)`);
    now = Date.now();
    // The first write prunes: the 400-day row and the 31-day row it just wrote go.
    await log.record(event(31));
    expect(await kept()).toEqual([]);
    // Within the hour no pass runs: an old row stays until the next one.
    await log.record(event(1));
    await log.record(event(40));
    expect(await kept()).toEqual(['GET /retention/1', 'GET /retention/40']);
    now += 3_600_000;
    await log.record(event(0));
    expect(await kept()).toEqual(['GET /retention/0', 'GET /retention/1']);
  });

  it('limits each principal\'s requests per route and minute', async () => {
    for (let i = 0; i < 3; i++) expect((await call('/t/limited', { token: tokens['viewer'] })).status).toBe(200);
    const over = await call('/t/limited', { token: tokens['viewer'] });
    expect(over.json).toMatchObject({ status: 429, code: 'HTTP.RATE_LIMITED' });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another caller, and another route of the same caller, have their own budget.
    expect((await call('/t/limited', { token: tokens['support'] })).status).toBe(200);
    expect((await call('/t/viewer', { token: tokens['viewer'] })).status).toBe(200);
  });

  it('slows token guessing: after 20 refused credentials an address is refused outright', async () => {
    for (let i = 0; i < 20; i++) await call('/t/viewer', { token: `aoc_${'0'.repeat(12)}_${'a'.repeat(43)}` });
    const blocked = await call('/t/viewer', { token: tokens['viewer'] });
    expect(blocked.json).toMatchObject({ status: 429, code: 'AUTH.TOO_MANY_FAILURES' });
    expect(blocked.headers.get('retry-after')).toBe('60');
    // A fresh server (the limiter is per process) lets the valid token in again.
    await app.close();
    await start({ ...DEFAULT_AUTH_SETTINGS, anonymousRole: 'viewer' });
    expect((await call('/t/viewer', { token: tokens['viewer'] })).status).toBe(200);
  });

  it('gives anonymous callers the configured role only on loopback, never above it', async () => {
    expect((await call('/t/viewer')).json).toMatchObject({ subject: 'anonymous', role: 'viewer' });
    expect((await call('/t/operator', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json).toMatchObject({ code: 'AUTH.FORBIDDEN' });
  });
});
