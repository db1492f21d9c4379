import type { HandlerContext } from '@aoc/bus';
import type { RunExecutionRecordedV1, RunPublishedV1 } from '@aoc/contracts';
import { createServiceDataSource } from '@aoc/persistence';
import { migrateRole } from '@aoc/service-host';
import type { DataSource, EntityManager } from 'typeorm';
import { optimizerDefinition } from '../optimizer.definition';
import { signals } from '../persistence/signal-store';
import { CollectSignalsHandler } from './collect-signals.handler';

/**
 * run.published and run.execution-recorded of one run handled at the same time on real Postgres
 * (two connections, as two partitions of the bus deliver them): the execution handler waits for
 * the publication's transaction instead of parking a record nobody would pick up again.
 */
describe('collect signals on real Postgres, concurrently', () => {
  let ds: DataSource;
  const handler = new CollectSignalsHandler();
  const ctx = (m: EntityManager) => ({ manager: m }) as unknown as HandlerContext;
  const suffix = (Date.now() % 100_000_000).toString(16).padStart(8, '0');
  const run = {
    runId: `run-20261201-${suffix}-001`,
    ticketKey: `SUP-${Date.now() % 1_000_000}`,
    mode: 'read',
    trigger: 'initial',
    publishedAt: '2026-12-01T10:05:00.000Z',
    cutoff: '2026-12-01T10:00:00.000Z',
    customerReplyMarkdown: 'x',
    internalHandoffMarkdown: '**Leading mechanism (moderate):** CPU rose.',
    decision: 'human_required',
    answerFingerprint: 'a'.repeat(64),
    clarificationSimulation: { required: false, requestedContext: [] },
  } as unknown as RunPublishedV1;
  const record = { runId: run.runId, ticketKey: run.ticketKey, responseGeneration: { status: 'succeeded', engine: 'builtin' }, evidenceAcquisition: { status: 'failed', capability: 'none', providers: ['prometheus'] }, failureCodes: ['PROVIDER.TIMEOUT'] } as unknown as RunExecutionRecordedV1;

  beforeAll(async () => {
    const url = process.env['DATABASE_URL'];
    if (!url) throw new Error('DATABASE_URL is required');
    await migrateRole(optimizerDefinition, url);
    ds = createServiceDataSource({ url, schema: 'optimizer', poolSize: 3 });
    await ds.initialize();
  }, 60000);
  afterAll(async () => {
    await ds?.destroy();
  });

  it('derives the runtime signal when the execution record lands while the publication is still uncommitted', async () => {
    let release: () => void = () => undefined;
    let handled: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const published = new Promise<void>((r) => (handled = r));
    // The publication's transaction stays open until the execution handler is seen waiting on it.
    const publishing = ds.transaction(async (m) => {
      await handler.onPublished(run, ctx(m));
      handled();
      await held;
    });
    // Started once the publication was handled (its transaction holds the run's lock, uncommitted).
    await published;
    const executing = ds.transaction((m) => handler.onExecution(record, ctx(m)));
    const deadline = Date.now() + 15_000;
    let waiting = false;
    while (!waiting && Date.now() < deadline) {
      const rows: { n: number }[] = await ds.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
      waiting = (rows[0]?.n ?? 0) > 0;
      if (!waiting) await new Promise((r) => setTimeout(r, 50));
    }
    release();
    await Promise.all([publishing, executing]);
    expect(waiting).toBe(true);
    expect((await signals(ds.manager, { ticketKey: run.ticketKey })).map((s) => s.signature)).toEqual(['runtime:evidence:prometheus:PROVIDER.TIMEOUT']);
    expect(await ds.query(`SELECT 1 FROM "optimizer"."parked_executions" WHERE "run_id" = $1`, [run.runId])).toEqual([]);
  }, 60000);
});
