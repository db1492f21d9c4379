import { createServiceDataSource } from '@aoc/persistence';
import type { DataSource } from 'typeorm';
import { ALL_EVENTS, DAY, WEEK } from '../../test/daily-fixture';
import { reporterHarness, type ReporterHarness } from '../../test/reporter-harness';
import { createReporterSchemaCopy, dropReporterSchemaCopy } from '../reporter-schema-copy';
import { countedRunsSql } from './reports.query';

/**
 * The report SQL on the real Postgres (DATABASE_URL), in a private copy of the reporter schema
 * built by the reporter's own migrations, dropped afterwards. Events are also delivered
 * concurrently over a connection pool: the per-ticket lock must keep the projections whole.
 */
const url = process.env['DATABASE_URL'] ?? '';
const schema = `reporter_it_${process.pid}`;

describe('reports on the real Postgres', () => {
  let dataSource: DataSource;
  let h: ReporterHarness;

  beforeAll(async () => {
    dataSource = createServiceDataSource({ url, schema: 'public', poolSize: 8, applicationName: 'aoc-reporter-it' });
    await dataSource.initialize();
    h = reporterHarness(dataSource, await createReporterSchemaCopy(dataSource, schema));
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) {
      await dropReporterSchemaCopy(dataSource, schema);
      await dataSource.destroy();
    }
  });

  it('computes the exact daily and weekly numbers', async () => {
    await h.reset();
    await h.deliver(...ALL_EVENTS);
    const daily = await h.reader.daily(DAY);
    expect(daily.runsCounted).toBe(6);
    expect(daily.quality).toEqual({ good: 2, bad: 2, unknown: 2 });
    expect(daily.funnel).toEqual({
      ticketsAnalysed: 6,
      runsPublished: 6,
      answersWithHumanReply: 2,
      answersJudged: 4,
      answersWithFeedback: 3,
      feedbackByAction: { accept: 1, revise: 0, wrong: 1, human: 1 },
    });
    expect(daily.topGaps).toEqual([
      { gap: 'g-a', count: 2 },
      { gap: 'g-b', count: 1 },
      { gap: 'missing owner', count: 1 },
    ]);
    expect(daily.runtimeSignals.map((s) => s.runId)).toEqual(['r1']);
    expect(daily.providerHealth.map((p) => [p.day, p.provider, p.queries, p.succeeded, p.failed, p.http.status502])).toEqual([
      [DAY, 'clinic', 3, 2, 1, 1],
      [DAY, 'manus', 1, 1, 0, 0],
    ]);
    const weekly = await h.reader.weekly(WEEK);
    expect(weekly.runsCounted).toBe(8);
    expect(weekly.provider5xx.map((r) => [r.provider, r.queryId, r.episodes, r.recovered, r.stillFailed, r.maxAttempts, r.upstreamErrors, r.requestIds])).toEqual([
      ['clinic', 'q1', 2, 1, 1, 3, ['Service Unavailable', 'upstream timeout'], ['req-2']],
      ['clinic', 'q2', 1, 1, 0, 2, ['Bad Gateway'], ['req-1']],
    ]);
  });

  it('gives the same reports when every event is delivered twice, concurrently, in any order', async () => {
    await h.reset();
    await h.deliver(...ALL_EVENTS);
    const expected = { daily: await h.reader.daily(DAY), weekly: await h.reader.weekly(WEEK), answers: await h.reader.answerVersions('SUP-6') };
    await h.reset();
    const doubled = [...ALL_EVENTS, ...[...ALL_EVENTS].reverse()];
    await Promise.all(doubled.map((event) => h.deliver(event)));
    expect({ daily: await h.reader.daily(DAY), weekly: await h.reader.weekly(WEEK), answers: await h.reader.answerVersions('SUP-6') }).toEqual(expected);
  });

  it('filters counted runs and provider facts through their partial indexes', async () => {
    const plan = async (sql: string, params: unknown[]): Promise<string> =>
      dataSource.transaction(async (m) => {
        await m.query('SET LOCAL enable_seqscan = off');
        const rows: { 'QUERY PLAN': string }[] = await m.query(`EXPLAIN ${sql}`, params);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    const counted = await plan(`WITH ${countedRunsSql(h.tables)} SELECT count(*) FROM counted`, ['2026-11-19T16:00:00Z', '2026-11-20T16:00:00Z', null]);
    expect(counted).toContain('reporter_projections_counted_idx');
    // One tenant's report scans that tenant's own partial index.
    const tenants = await plan(`WITH ${countedRunsSql(h.tables)} SELECT count(*) FROM counted`, ['2026-11-19T16:00:00Z', '2026-11-20T16:00:00Z', 'acme']);
    expect(tenants).toContain('reporter_projections_tenant_counted_idx');
    for (const [table, index] of [
      [h.tables.queryEvents, 'reporter_query_events_day_idx'],
      [h.tables.httpAttempts, 'reporter_http_attempts_day_idx'],
      [h.tables.systemEvents, 'reporter_system_events_day_idx'],
    ]) {
      expect(await plan(`SELECT count(*) FROM ${table} WHERE "counted" AND "day" >= $1::date AND "day" < $2::date`, [DAY, '2026-11-21'])).toContain(index);
    }
  });
});
