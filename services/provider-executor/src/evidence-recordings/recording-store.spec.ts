import type { HandlerContext } from '@aoc/bus';
import type { EvidenceBatchPlannedV1 } from '@aoc/contracts';
import { createServiceDataSource, startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import { success, type EvidencePackage } from '@aoc/providers';
import { migrateRole } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import type { DataSource } from 'typeorm';
import { ExecuteBatchHandler } from '../execute-batch/execute-batch.handler';
import type { ExecutorOptions } from '../providers/executor-options';
import { ProviderRegistry } from '../providers/provider-registry';
import { providerExecutorDefinition } from '../provider-executor.definition';
import { recordingEntry, type RecordingEntry } from './evidence-recording';
import { DEFAULT_RECORDING_POLICY } from './recording-policy';
import { RecordingRetention } from './recording-retention';
import { storeRecordings } from './recording-store';

const window = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };
const series = { labels: { cluster: 'tidb-1', instance: '[redacted-address]' }, points: 60, first: 0.04, last: 0.09, min: 0.04, max: 0.09, mean: 0.065, maxAt: '2026-11-20T10:38:00.000Z' };
const p99 = { id: 'duration_p99', operation: 'promql_range' as const, expression: 'histogram_quantile(0.99, x)', purpose: 'p99 statement duration' };
const qps = { id: 'qps', operation: 'promql_range' as const, expression: 'sum(rate(q[5m]))', purpose: 'statements per second' };

const plan = (runId: string): EvidenceBatchPlannedV1 => ({
  runId,
  ticketKey: 'SUP-1',
  scenarioId: 'latency-regression',
  requestId: `${runId}:latency-regression:0`,
  batchId: `${runId}:latency-regression:0:b0`,
  planRevision: 0,
  provider: 'prometheus',
  target: 'tidb-1',
  window,
  queries: [p99, qps],
  plannerNotes: '',
});

const livePackage: EvidencePackage = {
  name: 'prometheus',
  tools: [],
  operations: ['promql_range'],
  runBatch: async (req) => success({ target: req.target, window: req.window, queries: req.queries.map((q) => ({ id: q.id, status: 'complete' as const, result: { resultType: 'matrix', seriesCount: 1, omittedSeries: 0, series: [series] } })) }),
};

const entry = (n: number, padding = 0): RecordingEntry => recordingEntry({ provider: 'prometheus', target: 'tidb-1', operation: 'promql_range', expression: `up{n="${n}"}`, window }, { id: `q${n}`, status: 'complete', result: { pad: 'x'.repeat(padding) } });
const bytesOf = (e: RecordingEntry) => Buffer.byteLength(JSON.stringify(e), 'utf8');
const silent: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe('evidence recordings (embedded Postgres)', () => {
  let pg: EmbeddedPostgres;
  let ds: DataSource;
  const count = async () => Number((await ds.query(`SELECT count(*) AS "n" FROM "provider_executor"."evidence_recordings"`))[0].n);

  beforeAll(async () => {
    pg = await startEmbeddedPostgres();
    await migrateRole(providerExecutorDefinition, pg.url);
    ds = createServiceDataSource({ url: pg.url, schema: 'provider_executor', entities: providerExecutorDefinition.entities, poolSize: 1 });
    await ds.initialize();
  }, 120000);
  afterAll(async () => {
    await ds?.destroy();
    await pg?.stop();
  });
  beforeEach(() => ds.query(`TRUNCATE "provider_executor"."evidence_recordings", "provider_executor"."batch_executions", "provider_executor"."provider_query_attempts", "provider_executor"."provider_query_events", "provider_executor"."provider_http_attempts"`));

  it('records a live run by default, and the recorded run replays without PROVIDER.REPLAY_MISS', async () => {
    // Live options as a deployment gets them without any recording setting.
    const live: ExecutorOptions = { mode: 'live', prometheusTargets: [], recordings: [] };
    const published: unknown[] = [];
    const ctx = { manager: ds.manager, publish: async (_topic: unknown, payload: unknown) => void published.push(payload), envelope: {}, attempt: 1 } as unknown as HandlerContext;
    await new ExecuteBatchHandler(ds, new ProviderRegistry({ prometheusTargets: [] }, [livePackage]), live).handle(plan('run-live-1'), ctx);
    expect(await count()).toBe(2);
    const [row] = await ds.query(`SELECT "run_id", "bytes" FROM "provider_executor"."evidence_recordings" LIMIT 1`);
    expect(row.run_id).toBe('run-live-1');
    expect(row.bytes).toBeGreaterThan(0);

    // The same plan in a replay executor (no package at all): every query is found.
    const replayed = await new ExecuteBatchHandler(ds, new ProviderRegistry({ prometheusTargets: [] }, []), { mode: 'replay', prometheusTargets: [], recordings: [] }).prepare(plan('run-replay-1'), {} as never);
    expect(replayed.materialized.failures).toEqual([]);
    expect(replayed.materialized.status).toBe('complete');
    expect(replayed.materialized.facts).toEqual((published[0] as { facts: unknown }).facts);
  }, 60000);

  it('records nothing when recording is turned off', async () => {
    const off: ExecutorOptions = { mode: 'live', prometheusTargets: [], recordings: [], recording: { ...DEFAULT_RECORDING_POLICY, enabled: false } };
    const ctx = { manager: ds.manager, publish: async () => undefined, envelope: {}, attempt: 1 } as unknown as HandlerContext;
    await new ExecuteBatchHandler(ds, new ProviderRegistry({ prometheusTargets: [] }, [livePackage]), off).handle(plan('run-off-1'), ctx);
    expect(await count()).toBe(0);
  }, 60000);

  it('keeps a run within its cap and the store within its total cap; a key already recorded keeps its first result', async () => {
    const at = new Date('2026-12-01T00:00:00Z');
    const entries = [entry(1, 500), entry(2, 500), entry(3, 500)];
    const runCap = { ...DEFAULT_RECORDING_POLICY, maxRunBytes: bytesOf(entries[0]) + bytesOf(entries[1]) };
    const first = await storeRecordings(ds.manager, entries, at, 'run-a', runCap);
    expect(first).toEqual({ stored: 2, skipped: [{ key: entries[2].key, reason: 'run_cap' }] });
    // The cap counts what the run stored before, in an earlier batch.
    expect(await storeRecordings(ds.manager, [entry(4)], at, 'run-a', runCap)).toMatchObject({ stored: 0, skipped: [{ reason: 'run_cap' }] });
    // Another run has its own cap, but the store is full.
    const totalCap = { ...DEFAULT_RECORDING_POLICY, maxTotalBytes: bytesOf(entries[0]) * 2 + 10 };
    expect(await storeRecordings(ds.manager, [entry(5)], at, 'run-b', totalCap)).toMatchObject({ stored: 0, skipped: [{ reason: 'total_cap' }] });
    expect(await storeRecordings(ds.manager, [{ ...entries[0], evidence: { id: 'q1', status: 'empty' } }], at, 'run-b')).toEqual({ stored: 0, skipped: [] });
    expect((await ds.query(`SELECT "entry" FROM "provider_executor"."evidence_recordings" WHERE "key" = $1`, [entries[0].key]))[0].entry.evidence.status).toBe('complete');
    expect(await count()).toBe(2);
  });

  it('deletes recordings older than the retention on its scheduled pass, and only those', async () => {
    const now = new Date('2026-12-31T00:00:00Z');
    const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);
    await storeRecordings(ds.manager, [entry(1)], daysAgo(91), 'run-old');
    await storeRecordings(ds.manager, [entry(2)], daysAgo(89), 'run-recent');
    await storeRecordings(ds.manager, [entry(3)], daysAgo(8), 'run-week');
    const retention = (days?: number) => new RecordingRetention(ds, { mode: 'live', prometheusTargets: [], recordings: [], ...(days ? { recording: { ...DEFAULT_RECORDING_POLICY, retentionDays: days } } : {}) }, silent);
    // The default keeps 90 days.
    expect(await retention().sweepOnce(now)).toBe(1);
    expect((await ds.query(`SELECT "run_id" FROM "provider_executor"."evidence_recordings" ORDER BY "run_id"`)).map((r: { run_id: string }) => r.run_id)).toEqual(['run-recent', 'run-week']);
    expect(await retention(7).sweepOnce(now)).toBe(2);
    expect(await count()).toBe(0);
  });
});
