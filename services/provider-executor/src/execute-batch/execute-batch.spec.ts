import { EvidenceBatchMaterializedV1, type EvidenceBatchPlannedV1 } from '@aoc/contracts';
import { failure, success, type EvidencePackage } from '@aoc/providers';
import { recordingEntry } from '../evidence-recordings/evidence-recording';
import { DEFAULT_RECORDING_POLICY } from '../evidence-recordings/recording-policy';
import { ProviderRegistry } from '../providers/provider-registry';
import { executePlan, expressionHash, type ExecutionDeps } from './execute-batch';

const plan = (queries: EvidenceBatchPlannedV1['queries'], over: Partial<EvidenceBatchPlannedV1> = {}): EvidenceBatchPlannedV1 => ({
  runId: 'run-1',
  ticketKey: null,
  scenarioId: 'latency-regression',
  requestId: 'run-1:latency-regression:0',
  batchId: 'run-1:latency-regression:0:b0',
  planRevision: 0,
  provider: 'prometheus',
  target: 'tidb-1',
  window: { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' },
  queries,
  plannerNotes: '',
  ...over,
});

const p99 = { id: 'duration_p99', operation: 'promql_range' as const, expression: 'histogram_quantile(0.99, x)', purpose: 'p99 statement duration' };
const qps = { id: 'qps', operation: 'promql_range' as const, expression: 'sum(rate(q[5m]))', purpose: 'statements per second' };

const series = (first: number, max: number, last: number) => ({ labels: { cluster: 'tidb-1', instance: '[redacted-address]' }, points: 60, first, last, min: first, max, mean: (first + max) / 2, maxAt: '2026-11-20T10:38:00.000Z' });

function fakePackage(results: Record<string, { status: 'complete' | 'empty' | 'failed'; result?: unknown; error_code?: string; detail_error?: string }>): EvidencePackage & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    name: 'prometheus',
    tools: [],
    operations: ['promql_range', 'promql_instant'],
    calls,
    runBatch: async (req, options) => {
      calls.push(req.queries.map((q) => q.id));
      for (const q of req.queries) options?.onHttpRecord?.(q.id, { attempts: [{ status: 200, statusClass: '200', at: '2026-11-21T00:00:00.000Z', durationMs: 5 }], systemEvent: null });
      return success({ target: req.target, window: req.window, queries: req.queries.map((q) => ({ id: q.id, ...results[q.id] })) });
    },
  };
}

const deps = (pkg: EvidencePackage | null, over: Partial<ExecutionDeps> = {}): ExecutionDeps => ({
  registry: new ProviderRegistry({ prometheusTargets: [] }, pkg ? [pkg] : []),
  mode: 'live',
  recordings: { get: async () => undefined },
  priorAttempts: [],
  now: () => new Date('2026-11-21T00:00:00Z'),
  ...over,
});

describe('executePlan', () => {
  it('materialises numeric facts and observations from the fetched series', async () => {
    const pkg = fakePackage({ duration_p99: { status: 'complete', result: { resultType: 'matrix', seriesCount: 1, omittedSeries: 0, series: [series(0.04, 0.09, 0.09)] } }, qps: { status: 'empty', result: { resultType: 'matrix', seriesCount: 0, omittedSeries: 0, series: [] } } });
    const out = await executePlan(plan([p99, qps]), deps(pkg));
    const m = EvidenceBatchMaterializedV1.parse(out.materialized);
    expect(m.status).toBe('complete');
    expect(m.handoff.observations[0]).toBe('p99 statement duration: peak 0.09 at 10:38Z (start 0.04, end 0.09, mean 0.065, 2.25x its starting value) on cluster=tidb-1.');
    expect(m.handoff.gaps).toEqual(['statements per second (qps) returned no data for the window']);
    expect(m.facts.find((f) => f.queryId === 'duration_p99')).toMatchObject({ kind: 'metric_summary', value: 0.09, attributes: { first: 0.04, maxAt: '2026-11-20T10:38:00.000Z' } });
    expect(JSON.stringify(m)).not.toContain('instance');
    expect(m.execution.queryEvents.map((e) => [e.queryId, e.outcome])).toEqual([['duration_p99', 'complete'], ['qps', 'empty']]);
    expect(m.execution.httpAttempts).toHaveLength(2);
  });

  it('reports partial evidence and keeps the provider detail of a failed query', async () => {
    const pkg = fakePackage({ duration_p99: { status: 'failed', error_code: 'PROVIDER.QUERY_REJECTED', detail_error: 'bad_data: parse error' }, qps: { status: 'complete', result: { resultType: 'matrix', seriesCount: 1, omittedSeries: 0, series: [series(100, 120, 110)] } } });
    const m = (await executePlan(plan([p99, qps]), deps(pkg))).materialized;
    expect(m.status).toBe('partial');
    expect(m.failures).toEqual([{ queryId: 'duration_p99', code: 'PROVIDER.QUERY_REJECTED', detail: 'bad_data: parse error', supplemental: false }]);
  });

  it('folds an unchanged retry of a failed entry into its first attempt without re-running it', async () => {
    const pkg = fakePackage({ qps: { status: 'complete', result: { resultType: 'matrix', seriesCount: 1, omittedSeries: 0, series: [series(1, 2, 1)] } } });
    const out = await executePlan(plan([p99, qps], { planRevision: 1 }), deps(pkg, { priorAttempts: [{ queryId: 'duration_p99', expressionHash: expressionHash('promql_range', p99.expression), attempt: 1, outcome: 'failed', errorCode: 'PROVIDER.HTTP_5XX', detailError: 'provider answered 500, 500, 500' }] }));
    expect(pkg.calls).toEqual([['qps']]);
    expect(out.attempts.find((a) => a.queryId === 'duration_p99')).toMatchObject({ attempt: 2, folded: true, errorCode: 'PROVIDER.HTTP_5XX' });
    expect(out.materialized.failures[0].detail).toContain('provider answered 500, 500, 500');
  });

  it('runs queries with their own window (a historical comparison) in one package call per window', async () => {
    const pkg = fakePackage({});
    const windows: unknown[] = [];
    const run = pkg.runBatch.bind(pkg);
    pkg.runBatch = async (req, options) => {
      windows.push(req.window);
      return run({ ...req, queries: req.queries }, options);
    };
    const day = (d: number) => ({ from: `2026-11-${20 - d}T10:00:00Z`, to: `2026-11-${20 - d}T11:00:00Z` });
    const prior = [1, 2].map((d) => ({ ...p99, id: `duration_p99_prior_${d}d`, window: day(d) }));
    await executePlan(plan([p99, ...prior, { ...qps, window: day(1) }]), deps(pkg));
    expect(pkg.calls).toEqual([['duration_p99'], ['duration_p99_prior_1d', 'qps'], ['duration_p99_prior_2d']]);
    expect(windows).toEqual([plan([]).window, day(1), day(2)]);
  });

  it('gives the package the frozen ticket key and keeps the audit record of every tool call', async () => {
    const pkg = fakePackage({ duration_p99: { status: 'complete', result: { series: [series(20, 41, 40)] } } });
    const keys: (string | null)[] = [];
    const run = pkg.runBatch.bind(pkg);
    pkg.runBatch = async (req, options) => {
      keys.push(req.ticketKey);
      options?.audit?.({ tool: 'prometheus_evidence_batch', callId: 'call-1', startedAt: '2026-11-21T00:00:00.000Z', durationMs: 12.4, outcome: 'success', errorCode: null, outputBytes: 321, operations: ['promql_range'], target: 'tidb-1', window: req.window });
      return run(req, options);
    };
    const { materialized } = await executePlan(plan([p99], { ticketKey: 'SUP-1042' }), deps(pkg));
    expect(keys).toEqual(['SUP-1042']);
    expect(materialized.execution.toolCalls).toEqual([
      { callId: 'call-1', tool: 'prometheus_evidence_batch', operations: ['promql_range'], target: 'tidb-1', window: plan([]).window, outcome: 'success', errorCode: null, durationMs: 12, outputBytes: 321, startedAt: '2026-11-21T00:00:00.000Z' },
    ]);
  });

  it('keeps a long planner note of an empty plan within the handoff contract', async () => {
    const out = await executePlan(plan([], { plannerNotes: 'n'.repeat(1000) }), deps(null));
    expect(EvidenceBatchMaterializedV1.parse(out.materialized).handoff.gaps[0]).toHaveLength(500);
  });

  it('stops calling the package after an authentication stop and labels the queries left out with its code', async () => {
    const pkg = fakePackage({});
    pkg.runBatch = async (req) => {
      pkg.calls.push(req.queries.map((q) => q.id));
      return failure('PROVIDER.AUTH_TIMEOUT', 'login did not finish');
    };
    const day = { from: '2026-11-19T10:00:00Z', to: '2026-11-19T11:00:00Z' };
    const out = await executePlan(plan([p99, { ...qps, window: day }]), deps(pkg));
    expect(pkg.calls).toEqual([['duration_p99']]);
    expect(out.materialized.failures.map((f) => [f.queryId, f.code])).toEqual([
      ['duration_p99', 'PROVIDER.AUTH_TIMEOUT'],
      ['qps', 'PROVIDER.AUTH_TIMEOUT'],
    ]);
    expect(out.materialized.status).toBe('failed');
  });

  it.each(['PROVIDER.AUTH_FAILED', 'PROVIDER.AUTH_TIMEOUT'])('stops the scenario pipeline on %s', async (code) => {
    const pkg = fakePackage({ duration_p99: { status: 'failed', error_code: code, detail_error: '401' }, qps: { status: 'complete', result: { resultType: 'matrix', seriesCount: 1, omittedSeries: 0, series: [series(1, 2, 1)] } } });
    const m = (await executePlan(plan([p99, qps]), deps(pkg))).materialized;
    expect(m.status).toBe('failed');
    expect(m.handoff.gaps[0]).toMatch(/authentication failed/);
  });

  it('replays recorded evidence and says plainly when a query has no recording', async () => {
    const entry = recordingEntry({ provider: 'prometheus', target: 'tidb-1', operation: 'promql_range', expression: '  histogram_quantile(0.99,   x) ', window: { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' } }, { id: 'whatever', status: 'complete', result: { resultType: 'matrix', seriesCount: 1, omittedSeries: 0, series: [series(0.04, 0.09, 0.09)] } });
    const out = await executePlan(plan([p99, qps]), deps(null, { mode: 'replay', recordings: { get: async (key) => (key === entry.key ? entry : undefined) } }));
    expect(out.materialized.queries.map((q) => q.outcome)).toEqual(['complete', 'failed']);
    expect(out.materialized.failures[0]).toMatchObject({ queryId: 'qps', code: 'PROVIDER.REPLAY_MISS' });
    expect(out.materialized.status).toBe('partial');
  });

  it('executes nothing and invents no fact without a connector', async () => {
    const m = (await executePlan(plan([p99]), deps(null))).materialized;
    expect(m.status).toBe('not_executed');
    expect(m.facts).toEqual([]);
    expect(m.failures.map((f) => f.code)).toEqual(['PROVIDER.NOT_CONFIGURED']);
  });

  it('records what a live run fetched by default, nothing when recording is off or in replay', async () => {
    const pkg = fakePackage({ duration_p99: { status: 'complete', result: { resultType: 'matrix', seriesCount: 1, omittedSeries: 0, series: [series(0.04, 0.09, 0.09)] } }, qps: { status: 'failed', error_code: 'PROVIDER.HTTP_5XX', detail_error: 'answered 502 from http://10.0.0.7:9090/api' } });
    const live = await executePlan(plan([p99, qps]), deps(pkg));
    // Failures are kept too (a replay reproduces them), with their detail redacted again.
    expect(live.newRecordings.map((r) => [r.evidence.id, r.evidence.status])).toEqual([['duration_p99', 'complete'], ['qps', 'failed']]);
    expect(JSON.stringify(live.newRecordings)).not.toMatch(/10\.0\.0\.7/);
    expect((await executePlan(plan([p99]), deps(pkg, { recording: { ...DEFAULT_RECORDING_POLICY, enabled: false } }))).newRecordings).toEqual([]);
    expect((await executePlan(plan([p99]), deps(null, { mode: 'replay' }))).newRecordings).toEqual([]);
  });

  it('keeps no SQL text in a recording: the expression is an opaque reference, the key still finds it', async () => {
    const pkg = fakePackage({ slow: { status: 'empty', result: { rows: [] } } });
    const sql = { id: 'slow', operation: 'sql' as const, expression: "SELECT query FROM pg_stat_statements WHERE query LIKE '%secret_table%'", purpose: 'slow statements' };
    const [recorded] = (await executePlan(plan([sql]), deps(pkg))).newRecordings;
    expect(recorded.expression).toMatch(/^sql:[a-f0-9]{16}$/);
    expect(JSON.stringify(recorded)).not.toContain('pg_stat_statements');
    const replayed = await executePlan(plan([sql]), deps(null, { mode: 'replay', recordings: { get: async (key) => (key === recorded.key ? recorded : undefined) } }));
    expect(replayed.materialized.failures).toEqual([]);
  });

  it('records sanitised results in record mode', async () => {
    const pkg = fakePackage({ duration_p99: { status: 'complete', result: { resultType: 'matrix', seriesCount: 1, omittedSeries: 0, series: [series(0.04, 0.09, 0.09)] } } });
    const out = await executePlan(plan([p99]), deps(pkg, { mode: 'record' }));
    expect(out.newRecordings).toHaveLength(1);
    expect(out.newRecordings[0]).toMatchObject({ provider: 'prometheus', target: 'tidb-1', operation: 'promql_range', expression: 'histogram_quantile(0.99, x)' });
  });
});
