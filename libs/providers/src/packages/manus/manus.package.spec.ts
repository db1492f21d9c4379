import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { z } from 'zod';
import { executeTool } from '../../core/execute-tool';
import type { HttpCallRecord } from '../../connectors/http-client';
import { matrixBody, startGrafanaProxy, type RunningGrafanaProxy, type UpstreamAnswer } from '../../../test/dashboard-grafana-proxy';
import { manusPackage, manusQueryRangeSpec, type ManusPackage } from './manus.package';
import type { ManusConfig } from './manus-config';

const TOKEN = 'glsa_manusServiceAccountToken_0123456789';
const KEY = randomBytes(32).toString('base64url');
const NOW = new Date('2026-11-21T00:00:00Z');
const WINDOW = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };
const T0 = Date.parse(WINDOW.from) / 1000;

/** Scripted upstream: answers per query text, so tests can see exactly what reached "Prometheus". */
let answer: (form: URLSearchParams) => UpstreamAnswer | Promise<UpstreamAnswer> = () => ({ status: 200, body: matrixBody([]) });

const tidbSeries = (instance: string, peak: number) => ({ metric: { __name__: 'tidb_server_cpu', job: 'tidb', instance }, values: [[T0, '1'], [T0 + 60, String(peak)]] as [number, string][] });

describe('manus package (scripted Grafana datasource proxy)', () => {
  let proxy: RunningGrafanaProxy;
  let config: ManusConfig;
  let pkg: ManusPackage;
  const records: { queryId: string; record: HttpCallRecord }[] = [];

  beforeAll(async () => {
    proxy = await startGrafanaProxy({
      'vida-prom': { authorization: `Bearer ${TOKEN}`, upstream: (form) => answer(form) },
      'monica-prom': { authorization: `Bearer ${TOKEN}`, upstream: (form) => answer(form) },
    });
    config = {
      targets: {
        vida: { grafanaOrigin: proxy.origin, datasourcePath: '/api/datasources/proxy/uid/vida-prom' },
        monica: { grafanaOrigin: proxy.origin, datasourcePath: '/api/datasources/proxy/uid/monica-prom' },
      },
      credential: { token: TOKEN },
      instanceRefKey: KEY,
      limits: { retryDelaysMs: [1, 1] },
    };
    pkg = manusPackage(config);
  });
  afterAll(() => proxy.stop());
  beforeEach(() => {
    proxy.requests.length = 0;
    records.length = 0;
    answer = () => ({ status: 200, body: matrixBody([]) });
  });

  const run = (input: unknown, p: ManusPackage = pkg) => executeTool(p.tool, input, { now: NOW, onHttpRecord: (queryId, record) => records.push({ queryId, record }) });
  const q = (extra: Record<string, unknown> = {}) => ({ target: 'vida', window: WINDOW, queries: [{ id: 'cpu', promql: 'tidb_server_cpu', ...extra }] });

  it('has no provider property and refuses one, naming it', async () => {
    expect(Object.keys(z.toJSONSchema(manusQueryRangeSpec.input).properties ?? {})).toEqual(['target', 'window', 'queries']);
    const result = await run({ ...q(), provider: 'clinic' });
    expect(result.ok ? null : result.details).toMatchObject({ error_code: 'PROVIDER.INPUT_INVALID', detail_error: expect.stringContaining('provider') });
  });

  it('lists the configured fixed targets as its inventory, without network use', async () => {
    const requests = proxy.requests.length;
    expect(await pkg.listTargets?.()).toEqual({ status: 'listed', targets: [{ target: 'vida', aliases: [] }, { target: 'monica', aliases: [] }], truncated: false, failureCode: null });
    const monicaOnly = manusPackage({ ...config, targets: { monica: config.targets.monica } });
    expect((await monicaOnly.listTargets?.())?.targets).toEqual([{ target: 'monica', aliases: [] }]);
    expect(proxy.requests.length).toBe(requests);
  });

  it('accepts exactly vida and monica', async () => {
    for (const target of ['VIDA', 'vida ', 'clinic', 'monica-2', '']) {
      const result = await run({ ...q(), target });
      expect(result.ok ? null : result.details.detail_error).toMatch(/^target: /);
    }
    const vidaOnly = manusPackage({ ...config, targets: { vida: config.targets.vida } });
    const monica = await run({ ...q(), target: 'monica' }, vidaOnly);
    expect(monica.ok ? null : monica.details.error_code).toBe('PROVIDER.TARGET_REJECTED');
  });

  it('reaches only the fixed query_range endpoint of the configured datasource, with its own token', async () => {
    answer = () => ({ status: 200, body: matrixBody([tidbSeries('10.0.3.17:10080', 5)]) });
    const result = await run(q());
    expect(result.ok).toBe(true);
    expect(proxy.requests).toHaveLength(1);
    expect(proxy.requests[0]).toMatchObject({ uid: 'vida-prom', path: '/api/v1/query_range', authorized: true });
    // The hour before the window is read too (its median is `priorMedian`), on the window's own step grid.
    expect(proxy.requests[0].form.get('start')).toBe(String(T0 - 3600));
    expect(proxy.requests[0].form.get('end')).toBe(String(T0 + 3600));
  });

  it('returns instance addresses only as sealed references that select the same instance later', async () => {
    answer = (form) =>
      form.get('query')?.includes('instance="10.0.3.18:10080"')
        ? { status: 200, body: matrixBody([tidbSeries('10.0.3.18:10080', 7)]) }
        : { status: 200, body: matrixBody([tidbSeries('10.0.3.17:10080', 5), tidbSeries('10.0.3.18:10080', 7)]) };
    const first = await run(q());
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.text).toBe(JSON.stringify(first.details));
    expect(first.text).not.toMatch(/10\.0\.3\.1[78]/);
    const top = first.details.queries[0].series?.[0];
    expect(top?.labels).toEqual({ __name__: 'tidb_server_cpu', job: 'tidb' });
    const ref = top?.instanceRefs?.['instance'] ?? '';
    expect(ref).toMatch(/^mir1\./);

    const second = await run({ target: 'vida', window: WINDOW, queries: [{ id: 'one', promql: 'rate(tidb_server_cpu[5m])', instanceRef: ref }] });
    expect(second.ok && second.details.queries[0]).toMatchObject({ status: 'complete', instanceFiltered: true, seriesCount: 1 });
    // The matcher was added inside the package; the caller never wrote the address.
    expect(proxy.requests.at(-1)?.form.get('query')).toBe('rate(tidb_server_cpu{instance="10.0.3.18:10080"}[5m])');
    expect(second.text).not.toContain('10.0.3.18');
  });

  it('rejects tampered, foreign-key and other-target references with a clear error, without network use', async () => {
    answer = () => ({ status: 200, body: matrixBody([tidbSeries('10.0.3.17:10080', 5)]) });
    const first = await run(q());
    const ref = (first.ok && first.details.queries[0].series?.[0].instanceRefs?.['instance']) || '';
    proxy.requests.length = 0;

    const body = ref.slice(5);
    const i = 30;
    const tampered = `mir1.${body.slice(0, i)}${body[i] === 'x' ? 'y' : 'x'}${body.slice(i + 1)}`;
    const foreign = manusPackage({ ...config, instanceRefKey: randomBytes(32).toString('hex') });
    const cases: [unknown, ManusPackage, RegExp][] = [
      [{ ...q({ instanceRef: tampered }) }, pkg, /queries\.cpu\.instanceRef: instance reference failed authentication/],
      [{ ...q({ instanceRef: ref }) }, foreign, /queries\.cpu\.instanceRef: instance reference failed authentication/],
      [{ ...q({ instanceRef: ref }), target: 'monica' }, pkg, /queries\.cpu\.instanceRef: instance reference belongs to another target/],
    ];
    for (const [input, p, why] of cases) {
      const result = await run(input, p);
      expect(result.ok && result.details.queries[0]).toMatchObject({ status: 'failed', error_code: 'PROVIDER.INPUT_INVALID', detail_error: expect.stringMatching(why) });
    }
    const notARef = await run(q({ instanceRef: '10.0.3.17:10080' }));
    expect(notARef.ok ? null : notARef.details.detail_error).toMatch(/^queries\.0\.instanceRef: must be an instance reference/);
    expect(proxy.requests).toHaveLength(0);
  });

  it('reads the last 7 days of a longer window, saying so, and enforces the 11,000-point ceiling before any network use', async () => {
    const week = { from: '2026-11-13T10:00:00Z', to: '2026-11-20T10:00:00Z' };
    const ok = await run({ ...q(), window: week });
    expect(ok.ok && ok.details.queries[0].clampedWindow).toBeUndefined();
    // Not widened past the limit for the hour before: a full week reads exactly the week.
    expect(proxy.requests[0].form.get('start')).toBe(String(Date.parse(week.from) / 1000));
    const tooLong = await run({ ...q(), window: { from: '2026-11-13T09:59:59Z', to: '2026-11-20T10:00:00Z' } });
    expect(tooLong.ok && tooLong.details.queries[0].clampedWindow).toEqual({ from: '2026-11-13T10:00:00.000Z', to: '2026-11-20T10:00:00Z' });
    const perQuery = await run({ ...q(), queries: [{ id: 'a', promql: 'up', window: { from: '2026-11-01T00:00:00Z', to: '2026-11-20T00:00:00Z' } }] });
    expect(perQuery.ok && perQuery.details.queries[0].clampedWindow).toEqual({ from: '2026-11-13T00:00:00.000Z', to: '2026-11-20T00:00:00Z' });
    const relative = await run({ ...q(), window: { from: 'now-1h', to: 'now' } });
    expect(relative.ok ? null : relative.details.detail_error).toMatch(/^window\.from: /);
    const dense = await run({ ...q({ stepSeconds: 1 }), window: { from: '2026-11-20T00:00:00Z', to: '2026-11-20T06:00:00Z' } });
    expect(dense.ok ? null : dense.details.detail_error).toMatch(/^queries\.0\.stepSeconds: /);
    const future = await run({ ...q(), window: { from: '2026-12-01T00:00:00Z', to: '2026-12-01T01:00:00Z' } });
    expect(future.ok ? null : future.details.error_code).toBe('PROVIDER.WINDOW_INVALID');
    expect(proxy.requests).toHaveLength(3);
  });

  it('retries a 5xx at most twice, never retries a 4xx, and passes Prometheus rejections through', async () => {
    let calls = 0;
    answer = () => (++calls <= 2 ? { status: 503, body: 'upstream 10.9.9.9:9090 unavailable' } : { status: 200, body: matrixBody([tidbSeries('10.0.3.17:10080', 5)]) });
    const recovered = await run(q());
    expect(recovered.ok && recovered.details.queries[0].status).toBe('complete');
    expect(records[0].record.systemEvent).toMatchObject({ result: 'recovered', statusSequence: [503, 503, 200] });

    calls = 0;
    answer = () => ({ status: 500, body: `token ${TOKEN} failed at 10.9.9.9` });
    const failed = await run(q());
    const f = failed.ok ? failed.details.queries[0] : null;
    expect(f).toMatchObject({ status: 'failed', error_code: 'PROVIDER.HTTP_5XX' });
    expect(proxy.requests.length).toBe(3 + 3);
    expect(failed.text).not.toContain(TOKEN);
    expect(failed.text).not.toContain('10.9.9.9');

    proxy.requests.length = 0;
    answer = () => ({ status: 400, body: JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'invalid parameter "query": 1:14: parse error: unexpected identifier "by"' }) });
    const rejected = await run(q());
    expect(rejected.ok && rejected.details.queries[0]).toMatchObject({ status: 'failed', error_code: 'PROVIDER.QUERY_REJECTED', detail_error: 'bad_data: invalid parameter "query": 1:14: parse error: unexpected identifier "by"' });
    expect(proxy.requests).toHaveLength(1);
  });

  it('reports a refused credential as an auth failure', async () => {
    const wrong = manusPackage({ ...config, credential: { token: 'glsa_wrong_token_value' } });
    const result = await run(q(), wrong);
    expect(result.ok && result.details.queries[0]).toMatchObject({ status: 'failed', error_code: 'PROVIDER.AUTH_FAILED' });
    expect(result.text).not.toContain('glsa_wrong_token_value');
  });

  it('bounds output: series cap per query and a byte cap over the whole result', async () => {
    const many = Array.from({ length: 60 }, (_, i) => ({ metric: { job: 'tidb', instance: `10.1.0.${i}:10080`, note: 'n'.repeat(150) }, values: [[T0, String(i)]] as [number, string][] }));
    answer = () => ({ status: 200, body: matrixBody(many) });
    const capped = await run(q());
    expect(capped.ok && capped.details.queries[0]).toMatchObject({ seriesCount: 60, omittedSeries: 50 });
    const tight = manusPackage({ ...config, limits: { ...config.limits, maxSeries: 20, maxOutputBytes: 4096 } });
    const fitted = await run({ target: 'vida', window: WINDOW, queries: [{ id: 'a', promql: 'x' }, { id: 'b', promql: 'y' }] }, tight);
    expect(fitted.ok).toBe(true);
    if (!fitted.ok) return;
    expect(Buffer.byteLength(fitted.text)).toBeLessThanOrEqual(4096);
    expect(fitted.details.truncated).toBe(true);
    expect(fitted.details.queries.map((x) => (x.series?.length ?? 0) + (x.omittedSeries ?? 0))).toEqual([60, 60]);
  });

  it('runs serially: one query at a time even when two batches are started together', async () => {
    let active = 0;
    let peak = 0;
    answer = () => {
      active++;
      peak = Math.max(peak, active);
      return new Promise<UpstreamAnswer>((r) =>
        setTimeout(() => {
          active--;
          r({ status: 200, body: matrixBody([]) });
        }, 20),
      );
    };
    const batch = { target: 'vida', window: WINDOW, queries: ['a', 'b', 'c'].map((id) => ({ id, promql: 'up' })) };
    await Promise.all([run(batch), run(batch)]);
    expect(peak).toBe(1);
    expect(proxy.requests).toHaveLength(6);
  });

  it('drives planned batches: promql_range only, bare PromQL or a JSON parameter object, per-query refusals', async () => {
    answer = () => ({ status: 200, body: matrixBody([tidbSeries('10.0.3.17:10080', 5)]) });
    const first = await pkg.runBatch({ ticketKey: null, target: 'vida', window: WINDOW, queries: [{ id: 'cpu', operation: 'promql_range', expression: 'tidb_server_cpu' }] }, { now: NOW });
    const ref = first.ok ? ((first.details.queries[0].result as { series: { instanceRefs: Record<string, string> }[] }).series[0].instanceRefs['instance'] ?? '') : '';
    const result = await pkg.runBatch(
      {
        ticketKey: null,
        target: 'vida',
        window: WINDOW,
        queries: [
          { id: 'one', operation: 'promql_range', expression: JSON.stringify({ promql: 'tidb_server_cpu', instanceRef: ref }), supplemental: true },
          { id: 'sql', operation: 'sql', expression: 'select 1' },
          { id: 'bad', operation: 'promql_range', expression: JSON.stringify({ promql: 'up', url: 'http://evil' }) },
        ],
      },
      { now: NOW },
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.text).toBe(JSON.stringify(result.details));
    expect(result.details.queries.map((x) => [x.id, x.status, x.error_code ?? null, x.supplemental])).toEqual([
      ['one', 'complete', null, true],
      ['sql', 'failed', 'PROVIDER.INPUT_INVALID', false],
      ['bad', 'failed', 'PROVIDER.INPUT_INVALID', false],
    ]);
    expect(result.details.queries[2].detail_error).toMatch(/^queries\.bad\.expression: Unrecognized key: "url"/);
    expect(proxy.requests.at(-1)?.form.get('query')).toBe('tidb_server_cpu{instance="10.0.3.17:10080"}');
  });

  it('refuses bad configuration, naming keys but never values', () => {
    expect(() => manusPackage({ ...config, instanceRefKey: 'not-a-key-secret-value' })).toThrow(/instanceRefKey: must be a 32-byte key/);
    expect(() => manusPackage({ ...config, targets: { vida: { grafanaOrigin: 'https://g.example/path', datasourcePath: '/api/datasources/proxy/uid/x' } } })).toThrow(/targets\.vida\.grafanaOrigin/);
    expect(() => manusPackage({ ...config, targets: { vida: { grafanaOrigin: 'https://g.example', datasourcePath: '/api/v1/query' } } })).toThrow(/targets\.vida\.datasourcePath/);
    expect(() => manusPackage({ ...config, targets: {} })).toThrow(/configure at least one/);
    try {
      manusPackage({ ...config, instanceRefKey: 'not-a-key-secret-value' });
    } catch (e) {
      expect(String(e)).not.toContain('not-a-key-secret-value');
    }
  });

  describe('properties', () => {
    const field = /^(\(input\)|[A-Za-z0-9_]+(\.[A-Za-z0-9_-]+)*): \S/;
    let genuineRef = '';
    beforeAll(async () => {
      answer = () => ({ status: 200, body: matrixBody([tidbSeries('10.0.3.17:10080', 5)]) });
      const first = await run(q());
      genuineRef = (first.ok && first.details.queries[0].series?.[0].instanceRefs?.['instance']) || '';
    });
    const query = fc.record(
      {
        id: fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,10}$/),
        promql: fc.oneof({ arbitrary: fc.constantFrom('up', 'rate(x_total[5m])', 'sum by (job) (y)', 'vector(1)', 'a{b="c"}', 'rate('), weight: 9 }, { arbitrary: fc.string({ maxLength: 30 }), weight: 1 }),
        stepSeconds: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 3600 }), weight: 9 }, { arbitrary: fc.integer({ min: -5, max: 4000 }), weight: 1 }),
        instanceRef: fc.oneof({ arbitrary: fc.constantFrom('genuine', `mir1.${'A'.repeat(60)}`), weight: 9 }, { arbitrary: fc.string({ maxLength: 20 }), weight: 1 }),
        window: fc.constantFrom(WINDOW, { from: '2026-11-20T10:30:00Z', to: '2026-11-20T10:45:00Z' }, { from: '2026-11-20T10:45:00Z', to: '2026-11-20T10:30:00Z' }),
      },
      { requiredKeys: ['id', 'promql'] },
    );
    const plausible = fc.record({
      target: fc.constantFrom('vida', 'monica'),
      window: fc.constantFrom(WINDOW, { from: '2026-11-20T18:00:00+08:00', to: '2026-11-20T20:00:00+08:00' }),
      queries: fc.uniqueArray(query, { minLength: 1, maxLength: 6, selector: (x) => x.id }),
    });
    /** Mostly plausible inputs with one field broken, plus arbitrary values. */
    const inputs = fc.oneof(
      { arbitrary: fc.anything(), weight: 1 },
      { arbitrary: plausible, weight: 3 },
      {
        arbitrary: fc.tuple(plausible, fc.constantFrom('target', 'window', 'queries', 'provider', 'url', 'first-query'), fc.anything()).map(([input, key, junk]) => {
          const broken: Record<string, unknown> = { ...input };
          if (key === 'first-query') broken['queries'] = [junk, ...input.queries.slice(1)];
          else broken[key] = junk;
          return broken;
        }),
        weight: 3,
      },
    );
    const withGenuine = (input: unknown): unknown => JSON.parse(JSON.stringify(input ?? null).split('"instanceRef":"genuine"').join(`"instanceRef":"${genuineRef}"`));

    it('never crashes on thousands of generated inputs; every refusal names its field', async () => {
      answer = () => ({ status: 200, body: matrixBody([tidbSeries('10.0.3.17:10080', 5)]) });
      let succeeded = 0;
      await fc.assert(
        fc.asyncProperty(inputs, async (raw) => {
          const input = raw === undefined ? raw : withGenuine(raw);
          const result = await run(input);
          expect(result.text).toBe(JSON.stringify(result.details));
          if (!result.ok) {
            expect(result.details.error_code).not.toBe('PROVIDER.INTERNAL');
            if (result.details.error_code === 'PROVIDER.INPUT_INVALID') expect(result.details.detail_error).toMatch(field);
            expect(result.details.detail_error.length).toBeGreaterThan(0);
          } else {
            succeeded++;
            for (const x of result.details.queries) if (x.status === 'failed') expect(x.detail_error).toMatch(field);
          }
        }),
        { numRuns: 3000 },
      );
      // The generator reaches the network often enough to mean something.
      expect(succeeded).toBeGreaterThan(300);
    }, 180_000);

    it('sanitises outputs: no address, token, key or host survives, whatever the provider returns', async () => {
      const octet = fc.integer({ min: 1, max: 254 });
      const ip = fc.tuple(octet, octet, octet, octet).map((p) => p.join('.'));
      const host = fc.stringMatching(/^[a-z]{3,8}-[0-9]{1,3}$/).map((h) => `${h}.tidb-peer.vida.svc`);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(ip, host, fc.integer({ min: 1, max: 65535 })), { minLength: 1, maxLength: 8 }), async (nodes) => {
          answer = () => ({
            status: 200,
            body: matrixBody(
              nodes.map(([address, name, port], i) => ({
                metric: { job: 'tidb', instance: `${address}:${port}`, pod_ip: address, hostname: name, note: `from ${address} via ${proxy.origin} token=${TOKEN} key=${KEY}` },
                values: [[T0, String(i)]],
              })),
            ),
          });
          const result = await run(q());
          expect(result.ok).toBe(true);
          for (const [address, name] of nodes) {
            expect(result.text).not.toContain(address);
            expect(result.text).not.toContain(name);
          }
          for (const secret of [TOKEN, KEY, proxy.origin.replace('http://', '')]) expect(result.text).not.toContain(secret);
        }),
        { numRuns: 300 },
      );
    }, 120_000);
  });
});
