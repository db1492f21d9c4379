import type { EvidenceBatchPlannedV1 } from '@aoc/contracts';
import { failure, success, type EvidencePackage } from '@aoc/providers';
import { metricsSnapshot, shutdownMetrics, startMetrics, type MetricPoint } from '@aoc/telemetry';
import { DEFAULT_RECORDING_POLICY } from '../evidence-recordings/recording-policy';
import { ProviderRegistry } from '../providers/provider-registry';
import { executePlan, type ExecutionDeps } from './execute-batch';

const window = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };
const earlier = { from: '2026-11-13T10:00:00Z', to: '2026-11-13T11:00:00Z' };

const plan = (queries: EvidenceBatchPlannedV1['queries']): EvidenceBatchPlannedV1 => ({
  runId: 'run-1',
  ticketKey: null,
  scenarioId: 'latency-regression',
  requestId: 'run-1:latency-regression:0',
  batchId: 'run-1:latency-regression:0:b0',
  planRevision: 0,
  provider: 'prometheus',
  target: 'tidb-1',
  window,
  queries,
  plannerNotes: '',
});

const query = (id: string, over: Partial<EvidenceBatchPlannedV1['queries'][number]> = {}) => ({ id, operation: 'promql_range' as const, expression: `sum(rate(${id}_total[5m]))`, purpose: id, ...over });

/** A package that answers the current window per query and fails the whole call for the earlier one. */
const pkg: EvidencePackage = {
  name: 'prometheus',
  tools: [],
  operations: ['promql_range'],
  runBatch: async (req) => {
    await new Promise((r) => setTimeout(r, 20));
    if (req.window.from === earlier.from) return failure('PROVIDER.TIMEOUT', 'no answer from 10.0.0.12:9090 within 30 s');
    return success({
      target: req.target,
      window: req.window,
      queries: req.queries.map((q) =>
        q.id === 'broken' ? { id: q.id, status: 'failed' as const, error_code: 'PROVIDER.QUERY_REJECTED', detail_error: 'bad_data: parse error at SELECT' } : { id: q.id, status: q.id === 'quiet' ? ('empty' as const) : ('complete' as const), result: {} },
      ),
    });
  },
};

const deps = (over: Partial<ExecutionDeps> = {}): ExecutionDeps => ({
  registry: new ProviderRegistry({ prometheusTargets: [] }, [pkg]),
  mode: 'live',
  recordings: { get: async () => undefined },
  recording: { ...DEFAULT_RECORDING_POLICY, enabled: false },
  priorAttempts: [],
  ...over,
});

const sum = (points: MetricPoint[], name: string, labels: Record<string, string>) =>
  points.filter((p) => p.name === name && Object.entries(labels).every(([k, v]) => p.labels[k] === v)).reduce((n, p) => n + p.value, 0);

describe('provider query metrics', () => {
  beforeEach(() => startMetrics({ serviceName: 'aoc-provider-executor-test' }));
  afterEach(() => shutdownMetrics());

  it('counts each executed query by package, outcome and code, and times each package call', async () => {
    await executePlan(plan([query('qps'), query('quiet'), query('broken'), query('qps_prior', { window: earlier })]), deps());
    const points = await metricsSnapshot();
    expect(sum(points, 'aoc_provider_queries', { package: 'prometheus', outcome: 'complete', code: 'none' })).toBe(1);
    expect(sum(points, 'aoc_provider_queries', { package: 'prometheus', outcome: 'empty', code: 'none' })).toBe(1);
    expect(sum(points, 'aoc_provider_queries', { package: 'prometheus', outcome: 'failed', code: 'PROVIDER.QUERY_REJECTED' })).toBe(1);
    expect(sum(points, 'aoc_provider_queries', { package: 'prometheus', outcome: 'failed', code: 'PROVIDER.TIMEOUT' })).toBe(1);
    // Two windows, two calls: one answered, one failed as a whole.
    const calls = points.filter((p) => p.name === 'aoc_provider_call_duration_seconds');
    expect(calls.map((p) => [p.labels['outcome'], p.count])).toEqual(expect.arrayContaining([['ok', 1], ['failed', 1]]));
    expect(calls.every((p) => (p.sum ?? 0) >= 0.015)).toBe(true);
    // Labels carry the package and codes, never the provider's detail text or address.
    expect(JSON.stringify(points)).not.toMatch(/10\.0\.0\.12|parse error|tidb-1|sum\(rate/);
  });

  it('records nothing for replayed queries: no provider was asked', async () => {
    await executePlan(plan([query('qps')]), deps({ mode: 'replay' }));
    expect((await metricsSnapshot()).filter((p) => p.name.startsWith('aoc_provider_'))).toEqual([]);
  });
});
