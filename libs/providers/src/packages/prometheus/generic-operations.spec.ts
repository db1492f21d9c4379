import { executeTool } from '../../core/execute-tool';
import { ProviderError } from '../../core/provider-error';
import { startTrapServer, type TrapServer } from '../../../test/pg-fixture';
import { startLokiServer, type RunningLoki } from '../../../test/loki-server-fixture';
import { lokiStreamsBody } from '../../../test/loki-fixture';
import { lineLevel, linePattern, redactLogSample, summariseLogLines, validateTargetLogQl } from './generic-logs.operation';
import { prometheusEvidencePackage, prometheusPackage, targetOperations, type PrometheusTarget } from './prometheus.package';

const NOW = new Date('2026-11-21T00:00:00Z');
const WINDOW = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };
const PASSWORD = 'pg-password-never-shown';
const at = (m: number) => new Date(Date.UTC(2026, 10, 20, 10, m)).toISOString();

const refusal = (call: () => unknown): ProviderError => {
  try {
    call();
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('validateTargetLogQl', () => {
  const ok = (logql: string, label = 'cluster', target = 'pg-1') => validateTargetLogQl(logql, label, target);
  const refused = (logql: string, label = 'cluster', target = 'pg-1') => refusal(() => validateTargetLogQl(logql, label, target, 'queries.x.logql'));

  it('accepts a log query whose one selector carries the exact target matcher', () => {
    expect(ok(' {cluster="pg-1"} |= "error" ')).toBe('{cluster="pg-1"} |= "error"');
    expect(ok('{job=~"postgres.*", cluster="pg-1"} |~ "(?i)(fatal|panic)" | line_format "{{.msg}}"')).toContain('line_format');
    expect(ok('{cluster=`pg-1`}')).toBe('{cluster=`pg-1`}');
    expect(ok('{instance="db \\"a\\""} != "}"', 'instance', 'db "a"')).toContain('!=');
  });

  it('refuses a selector without the exact matcher, metric queries, ranges and a second selector', () => {
    const cases: [string, RegExp][] = [
      ['{job="postgres"}', /needs the exact matcher \{cluster="pg-1"\}/],
      ['{cluster=~"pg-1"}', /exact matcher/],
      ['{cluster!="pg-1"}', /exact matcher/],
      ['{cluster="pg-10"}', /exact matcher/],
      ['{Cluster="pg-1"}', /exact matcher/],
      ['{}', /exact matcher/],
      ['rate({cluster="pg-1"}[5m])', /only a log query/],
      ['count_over_time({cluster="pg-1"}[1h])', /only a log query/],
      ['{cluster="pg-1"}[5m]', /ranges are not allowed/],
      ['{cluster="pg-1"} or {cluster="other"}', /exactly one stream selector/],
      ['{cluster="pg-1"} |= "x" # {cluster="other"}', /comments/],
      ['{cluster="pg-1"', /not closed/],
      ['{cluster="pg-1} |= "x"', /unterminated/],
      ['{cluster="pg-1"} }', /unbalanced/],
      ["{cluster='pg-1'}", /double-quoted/],
      ['{cluster="pg-1" job="x"}', /separated by commas/],
      ['', /empty/],
      ['x'.repeat(4001), /longer than 4000/],
    ];
    for (const [logql, why] of cases) {
      const e = refused(logql);
      expect([logql, e.code]).toEqual([logql, 'PROVIDER.QUERY_REJECTED']);
      expect(e.detail).toMatch(/^queries\.x\.logql: /);
      expect(e.detail).toMatch(why);
    }
    expect(refusal(() => validateTargetLogQl('{a="b"}', 'bad-label', 'b')).code).toBe('PROVIDER.INPUT_INVALID');
  });
});

describe('log summaries', () => {
  it('reads levels from stream labels first, then from the line (PostgreSQL, bracketed, key=value, JSON)', () => {
    expect(lineLevel('anything', { level: 'ERROR' })).toBe('error');
    expect(lineLevel('2026-11-20 10:00:00 UTC [42] FATAL:  terminating connection', {})).toBe('fatal');
    expect(lineLevel('2026-11-20 10:00:00 UTC [42] LOG:  checkpoint starting: time', {})).toBe('info');
    expect(lineLevel('[2026/11/20 10:00:00] [WARN] [x.go:1] ["slow"]', {})).toBe('warn');
    expect(lineLevel('ts=1 level=error msg="boom"', {})).toBe('error');
    expect(lineLevel('{"level":"debug","msg":"x"}', {})).toBe('debug');
    expect(lineLevel('no level here', { constructor: 'x' })).toBe('unknown');
  });

  it('names patterns from a fixed table', () => {
    expect(linePattern('LOG:  database system is ready to accept connections')).toBe('restart');
    expect(linePattern('LOG:  received fast shutdown request')).toBe('restart');
    expect(linePattern('LOG:  selected new timeline ID: 3')).toBe('failover');
    expect(linePattern('ERROR:  deadlock detected')).toBe('deadlock');
    expect(linePattern('FATAL:  sorry, too many clients already')).toBe('connection_limit');
    expect(linePattern('ERROR:  canceling statement due to statement timeout')).toBe('statement_timeout');
    expect(linePattern('LOG:  server process (PID 77) was terminated by signal 9: Killed')).toBe('panic');
    expect(linePattern('LOG:  checkpoint complete')).toBe('other');
  });

  it('redacts samples: addresses, quoted literals, key values, e-mails, long numbers, secrets; never longer than 160 characters', () => {
    const text = redactLogSample(`ERROR:  duplicate key value violates unique constraint "users_email_key" DETAIL: Key (email)=(alice@example.com) from 10.0.3.17:5432 ${PASSWORD} id 123456789 'secret literal'`, [PASSWORD]);
    expect(text).not.toMatch(/alice|10\.0\.3\.17|users_email_key|123456789|secret literal|pg-password/);
    expect(text).toContain('duplicate key value violates unique constraint');
    expect(redactLogSample('x'.repeat(500)).length).toBeLessThanOrEqual(160);
  });

  it('counts every line, keeps at most five samples (one per pattern first) and never samples statement text', () => {
    const entries = [
      { at: at(1), line: 'LOG:  database system is ready to accept connections' },
      ...Array.from({ length: 9 }, (_, i) => ({ at: at(10 + i), line: `ERROR:  deadlock detected on relation ${i}` })),
      { at: at(20), line: 'STATEMENT:  UPDATE accounts SET balance = 0 WHERE owner = 7' },
      { at: at(21), line: 'FATAL:  sorry, too many clients already' },
      { at: at(22), line: 'ERROR:  canceling statement due to statement timeout' },
      { at: at(23), line: 'WARNING:  something odd' },
      { at: at(24), line: 'LOG:  selected new timeline ID: 3' },
    ];
    const body = lokiStreamsBody([{ labels: { cluster: 'pg-1' }, entries }]) as { data: { result: { stream: Record<string, string>; values: [string, string][] }[] } };
    const streams = body.data.result.map((s) => ({ labels: s.stream, entries: s.values.map(([timestampNs, line]) => ({ timestampNs, line })) }));
    const summary = summariseLogLines({ streams, entryCount: entries.length, hitLimit: false });
    expect(summary.lines).toBe(15);
    expect(summary.byLevel).toEqual([
      { level: 'error', count: 10 },
      { level: 'info', count: 2 },
      { level: 'fatal', count: 1 },
      { level: 'unknown', count: 1 },
      { level: 'warn', count: 1 },
    ]);
    expect(summary.byPattern[0]).toEqual({ pattern: 'deadlock', count: 9, errors: 9, firstAt: at(10), lastAt: at(18) });
    expect(summary.samples).toHaveLength(5);
    expect(new Set(summary.samples.map((s) => s.pattern)).size).toBe(5);
    expect(JSON.stringify(summary.samples)).not.toMatch(/UPDATE|balance/);
    expect(summary.busiestMinute?.lines).toBe(1);
    expect(summary.firstAt).toBe(at(1));
  });
});

describe('generic package: sql and logs per endpoint', () => {
  let trap: TrapServer;
  let loki: RunningLoki;
  const lines = [
    { at: at(5), line: 'LOG:  database system is ready to accept connections' },
    { at: at(38), line: 'ERROR:  deadlock detected DETAIL: Process 12 waits for ShareLock on transaction 4711; blocked by process 13 from 10.0.3.17' },
    { at: at(39), line: 'ERROR:  deadlock detected' },
  ];

  beforeAll(async () => {
    trap = await startTrapServer();
    loki = await startLokiServer(
      [
        { labels: { cluster: 'pg-main', level: 'error' }, entries: lines },
        { labels: { cluster: 'pg-other' }, entries: [{ at: at(6), line: 'ERROR:  not this target' }] },
      ],
      { token: 'loki-token-123' },
    );
  });
  afterAll(async () => {
    await trap.close();
    await loki.stop();
  });
  beforeEach(() => {
    loki.requests.length = 0;
  });

  const endpoints = (): PrometheusTarget[] => [
    {
      name: 'pg-main',
      baseUrl: 'http://127.0.0.1:9',
      postgres: { host: '127.0.0.1', port: trap.port, database: 'postgres', user: 'monitor', password: PASSWORD, connectTimeoutMs: 500 },
      loki: { baseUrl: loki.baseUrl, headers: { authorization: 'Bearer loki-token-123' }, secrets: ['loki-token-123'] },
    },
    { name: 'pg-metrics-only', baseUrl: 'http://127.0.0.1:9' },
  ];
  const run = (input: unknown) => executeTool(prometheusPackage(endpoints()), input, { now: NOW });
  const queries = async (target: string, qs: unknown[]) => {
    const result = await run({ target, window: WINDOW, queries: qs });
    if (!result.ok) throw new Error(`batch failed: ${result.text}`);
    expect(result.text).not.toContain(PASSWORD);
    expect(result.text).not.toContain('loki-token-123');
    return Object.fromEntries(result.details.queries.map((q) => [q.id, q as Record<string, unknown>]));
  };

  it('offers sql and logs only where the endpoint has postgres and loki settings', () => {
    const [main, metricsOnly] = endpoints();
    expect(targetOperations(main, 'pg-main')).toEqual(['promql_range', 'promql_instant', 'sql', 'logs']);
    expect(targetOperations(metricsOnly, 'pg-metrics-only')).toEqual(['promql_range', 'promql_instant']);
    const labelled: PrometheusTarget = { ...main, name: 'rds', targetLabel: 'dbinstance_identifier', postgresTarget: 'orders-db' };
    expect(targetOperations(labelled, 'orders-db')).toContain('sql');
    // One PostgreSQL server is one database: the other inventory targets never get its statistics.
    expect(targetOperations(labelled, 'billing-db')).toEqual(['promql_range', 'promql_instant', 'logs']);
  });

  it('answers sql and logs for a target whose endpoint lacks them as a channel that is not configured, while the batch still runs', async () => {
    const out = await queries('pg-metrics-only', [
      { id: 'conn', kind: 'sql', sql: 'SELECT state, count(*) AS sessions FROM pg_stat_activity GROUP BY state' },
      { id: 'logs', kind: 'logs', logql: '{cluster="pg-metrics-only"}' },
      { id: 'up', kind: 'instant', promql: 'up{cluster="pg-metrics-only"}' },
    ]);
    expect(out['conn']).toEqual({ id: 'conn', status: 'empty', operation: 'channel', channel: 'statements', availability: 'not_configured', setting: 'postgres or mysql' });
    expect(out['logs']).toEqual({ id: 'logs', status: 'empty', operation: 'channel', channel: 'logs', availability: 'not_configured', setting: 'loki' });
    expect(out['up']).toMatchObject({ status: 'failed', error_code: 'PROVIDER.UNREACHABLE' });
    expect(loki.requests).toHaveLength(0);
  });

  it('refuses writes and non-statistics SQL before any connection', async () => {
    const before = trap.connections();
    const out = await queries('pg-main', [
      { id: 'del', kind: 'sql', sql: 'DELETE FROM pg_stat_activity' },
      { id: 'two', kind: 'sql', sql: 'SELECT 1; SELECT 2' },
      { id: 'tbl', kind: 'sql', sql: 'SELECT * FROM accounts' },
      { id: 'fn', kind: 'sql', sql: 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity' },
    ]);
    for (const id of ['del', 'two', 'tbl', 'fn']) expect([id, out[id]['error_code']]).toEqual([id, 'PROVIDER.QUERY_REJECTED']);
    expect(String(out['del']['detail_error'])).toMatch(/^queries\.del\.sql: /);
    expect(trap.connections()).toBe(before);
  });

  it('a valid statement does reach the configured server (the trap counts it), without leaking host or password', async () => {
    const before = trap.connections();
    const out = await queries('pg-main', [{ id: 'conn', kind: 'sql', sql: 'SELECT state, count(*) AS sessions FROM pg_stat_activity GROUP BY state' }]);
    expect(out['conn']).toMatchObject({ status: 'failed', error_code: 'PROVIDER.UNREACHABLE' });
    expect(trap.connections()).toBe(before + 1);
  });

  it('refuses a logs query without the exact target matcher before Loki is asked', async () => {
    const out = await queries('pg-main', [
      { id: 'nomatch', kind: 'logs', logql: '{job="postgres"} |= "error"' },
      { id: 'other', kind: 'logs', logql: '{cluster="pg-other"}' },
      { id: 'metric', kind: 'logs', logql: 'count_over_time({cluster="pg-main"}[5m])' },
    ]);
    for (const id of ['nomatch', 'other', 'metric']) expect([id, out[id]['error_code']]).toEqual([id, 'PROVIDER.QUERY_REJECTED']);
    expect(loki.requests).toHaveLength(0);
  });

  it('summarises a bound logs query: counts by level and pattern, redacted samples, no raw line', async () => {
    const out = await queries('pg-main', [{ id: 'errs', kind: 'logs', logql: '{cluster="pg-main"} |~ "(?i)(error|ready to accept)"' }]);
    expect(out['errs']).toMatchObject({ status: 'complete', operation: 'logs', lines: 3, hitLimit: false, byLevel: [{ level: 'error', count: 3 }] });
    expect(out['errs']['byPattern']).toEqual([
      { pattern: 'deadlock', count: 2, errors: 2, firstAt: at(38), lastAt: at(39) },
      { pattern: 'restart', count: 1, errors: 1, firstAt: at(5), lastAt: at(5) },
    ]);
    expect(JSON.stringify(out['errs'])).not.toMatch(/10\.0\.3\.17|4711|not this target/);
    expect(loki.requests.map((r) => r.headers['authorization'])).toEqual(['Bearer loki-token-123']);
  });

  it('bounds logs at a day per entry and refuses other kinds with the field named', async () => {
    const result = await run({ target: 'pg-main', window: { from: '2026-11-18T10:00:00Z', to: '2026-11-20T11:00:00Z' }, queries: [{ id: 'errs', kind: 'logs', logql: '{cluster="pg-main"}' }] });
    expect(result.ok && result.details.queries[0]).toMatchObject({ status: 'failed', error_code: 'PROVIDER.WINDOW_INVALID' });
    const bad = await run({ target: 'pg-main', window: WINDOW, queries: [{ id: 'x', kind: 'sql', promql: 'up' }] });
    expect(bad.ok ? null : bad.details).toMatchObject({ error_code: 'PROVIDER.INPUT_INVALID', detail_error: expect.stringMatching(/^queries\.0\./) });
  });

  it('maps planned sql and logs operations, and the catalogue says what the target offers', async () => {
    const pkg = prometheusEvidencePackage(endpoints());
    expect(pkg.operations).toEqual(['promql_range', 'promql_instant', 'sql', 'logs']);
    const batch = await pkg.runBatch(
      {
        ticketKey: null,
        target: 'pg-main',
        window: WINDOW,
        queries: [
          { id: 'errs', operation: 'logs', expression: '{cluster="pg-main"} |= "deadlock"' },
          { id: 'del', operation: 'sql', expression: 'DELETE FROM pg_locks' },
          { id: 'top', operation: 'top_sql', expression: '{}' },
        ],
      },
      { now: NOW },
    );
    expect(batch.ok && batch.details.queries.map((q) => [q.id, q.status, q.error_code ?? null])).toEqual([
      ['errs', 'complete', null],
      ['del', 'failed', 'PROVIDER.QUERY_REJECTED'],
      ['top', 'failed', 'PROVIDER.INPUT_INVALID'],
    ]);
    // Nothing listens for metrics here: discovery fails, yet the catalogue still names the target's operations.
    const catalog = await pkg.discoverMetrics?.({ target: 'pg-main', window: WINDOW });
    expect(catalog).toMatchObject({ status: 'failed', targetLabel: 'cluster', operations: ['promql_range', 'promql_instant', 'sql', 'logs'], logsLabel: 'cluster' });
    expect(await pkg.discoverMetrics?.({ target: 'pg-metrics-only', window: WINDOW })).toMatchObject({ operations: ['promql_range', 'promql_instant'], logsLabel: null });
    expect(await pkg.discoverMetrics?.({ target: 'unknown', window: WINDOW })).toMatchObject({ status: 'failed', operations: [], logsLabel: null });
  });
});
