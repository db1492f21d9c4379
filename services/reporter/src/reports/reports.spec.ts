import type { Verdict } from '@aoc/contracts';
import { ALL_EVENTS as ALL, DAY, WEEK } from '../../test/daily-fixture';
import { execution, judged, published, startEmbeddedReporter, type ReporterEvent, type ReporterHarness } from '../../test/reporter-harness';
import type { QualityReport } from './report.types';

/**
 * Reports over the reporter's real migrations on an embedded Postgres, fed through the handlers
 * (fixture: test/daily-fixture.ts, one ticket per case).
 */

describe('reports (embedded Postgres, real migrations, events through the handlers)', () => {
  let h: ReporterHarness & { stop(): Promise<void> };

  beforeAll(async () => {
    h = await startEmbeddedReporter();
  }, 120000);

  afterAll(async () => {
    await h?.stop();
  });

  describe('one day of mixed runs', () => {
    let daily: QualityReport;

    beforeAll(async () => {
      await h.reset();
      await h.deliver(...ALL);
      daily = await h.reader.daily(DAY);
    }, 60000);

    it('counts initial and bot_assignment runs of the Shanghai day only (no continuation, no replay, not 00:00 of the next day)', () => {
      expect(daily.period).toEqual({ kind: 'daily', from: DAY, to: DAY });
      expect(daily.runsCounted).toBe(6);
      expect(daily.funnel.ticketsAnalysed).toBe(6);
      expect(daily.funnel.runsPublished).toBe(6);
    });

    it('takes the verdict of the latest evaluation of each answer version', () => {
      expect(daily.verdicts).toEqual([
        { verdict: 'ai_better', count: 1 },
        { verdict: 'equivalent', count: 1 },
        { verdict: 'different_but_valid', count: 0 },
        { verdict: 'human_better', count: 1 },
        { verdict: 'not_compared', count: 1 },
        { verdict: 'unjudged', count: 2 },
      ]);
      expect(daily.topGaps).toEqual([
        { gap: 'g-a', count: 2 },
        { gap: 'g-b', count: 1 },
        { gap: 'missing owner', count: 1 },
      ]);
    });

    it('lets explicit feedback own the quality projection (wrong beats ai_better, inherited accept, human only asks for review)', () => {
      expect(daily.quality).toEqual({ good: 2, bad: 2, unknown: 2 });
      expect(daily.judgeReviewRequested).toBe(1);
    });

    it('raises a runtime signal for a selected provider with degraded evidence even with a good verdict', () => {
      expect(daily.runtimeSignals).toEqual([
        {
          runId: 'r1',
          ticketKey: 'SUP-1',
          provider: 'clinic',
          providers: ['clinic'],
          evidenceStatus: 'degraded',
          verdict: 'equivalent',
          failureCodes: ['CLINIC.TIMEOUT'],
          publishedAt: '2026-11-20T02:00:00.000Z',
        },
      ]);
    });

    it('derives the public funnel from recorded events', () => {
      expect(daily.funnel).toEqual({
        ticketsAnalysed: 6,
        runsPublished: 6,
        answersWithHumanReply: 2,
        answersJudged: 4,
        answersWithFeedback: 3,
        feedbackByAction: { accept: 1, revise: 0, wrong: 1, human: 1 },
      });
      expect(daily.anchors).toEqual({ publicReply: 2, internalComment: 4 });
    });

    it('reports provider success per Shanghai day: retries collapse, supplemental apart, HTTP by status class', () => {
      expect(daily.providerHealth).toEqual([
        {
          day: DAY,
          provider: 'clinic',
          queries: 3,
          succeeded: 2,
          failed: 1,
          successRate: 2 / 3,
          http: { status200: 2, status400: 1, status500: 1, status502: 1, other: 0 },
          supplemental: { queries: 1, succeeded: 0, failed: 1 },
        },
        {
          day: DAY,
          provider: 'manus',
          queries: 1,
          succeeded: 1,
          failed: 0,
          successRate: 1,
          http: { status200: 0, status400: 0, status500: 0, status502: 0, other: 1 },
          supplemental: { queries: 0, succeeded: 0, failed: 0 },
        },
      ]);
      expect(daily.providerOverall).toEqual([{ day: DAY, queries: 4, succeeded: 3, failed: 1, successRate: 0.75 }]);
    });

    it('puts 23:59 and 00:00 (+08:00) on different days', async () => {
      const next = await h.reader.daily('2026-11-21');
      expect(next.runsCounted).toBe(1);
      expect(next.providerHealth.map((p) => [p.day, p.provider, p.queries, p.succeeded])).toEqual([['2026-11-21', 'clinic', 1, 1]]);
      const health = await h.reader.providerHealth('2026-11-20', '2026-11-21');
      expect(health.map((p) => [p.day, p.provider, p.queries])).toEqual([
        ['2026-11-20', 'clinic', 3],
        ['2026-11-20', 'manus', 1],
        ['2026-11-21', 'clinic', 1],
      ]);
      const before = await h.reader.daily('2026-11-19');
      expect(before.runsCounted).toBe(1);
    });

    it('summarises the week, with provider 5xx episodes per provider and query', async () => {
      const weekly = await h.reader.weekly(WEEK);
      expect(weekly.period).toEqual({ kind: 'weekly', from: WEEK, to: '2026-11-22' });
      expect(weekly.runsCounted).toBe(8);
      expect(weekly.funnel.ticketsAnalysed).toBe(6);
      expect(weekly.provider5xx).toEqual([
        {
          provider: 'clinic',
          queryId: 'q1',
          episodes: 2,
          recovered: 1,
          stillFailed: 1,
          tickets: ['SUP-5'],
          maxAttempts: 3,
          upstreamErrors: ['Service Unavailable', 'upstream timeout'],
          requestIds: ['req-2'],
        },
        {
          provider: 'clinic',
          queryId: 'q2',
          episodes: 1,
          recovered: 1,
          stillFailed: 0,
          tickets: ['SUP-1'],
          maxAttempts: 2,
          upstreamErrors: ['Bad Gateway'],
          requestIds: ['req-1'],
        },
      ]);
    });

    it('shows answer versions with their anchor, latest evaluation and direct or inherited feedback', async () => {
      const sup6Answers = await h.reader.answerVersions('SUP-6');
      expect(sup6Answers.map((a) => [a.runId, a.counted, a.quality?.score, a.quality?.source, a.feedback.map((f) => [f.commentId, f.action, f.inherited, f.boundRunId])])).toEqual([
        ['r6a', true, 1, 'feedback', [['c6-1', 'accept', false, 'r6a']]],
        ['r6b', true, 1, 'feedback', [['c6-1', 'accept', true, 'r6a']]],
      ]);
      expect(sup6Answers[0].feedback[0].reason).toBe('good answer');
      const sup1Answers = await h.reader.answerVersions('SUP-1');
      expect(sup1Answers).toHaveLength(1);
      expect(sup1Answers[0]).toMatchObject({
        runId: 'r1',
        verdict: 'equivalent',
        verdictReason: 'reason of e1',
        aiGaps: ['missing owner'],
        anchor: { kind: 'public_reply', at: '2026-11-20T02:01:00.000Z' },
        humanReplyAt: '2026-11-20T02:30:00.000Z',
        evidenceStatus: 'degraded',
      });
      const sup2Answers = await h.reader.answerVersions('SUP-2');
      expect(sup2Answers[0]).toMatchObject({ verdict: 'ai_better', anchor: { kind: 'internal_comment' }, quality: { score: 0, source: 'feedback', judgeReviewRequested: false } });
      const replay = await h.reader.answerVersions('SUP-4');
      expect(replay[0]).toMatchObject({ counted: false, anchor: { kind: 'none', at: null } });
      expect(await h.reader.answerVersions('SUP-404')).toEqual([]);
    });

    it('never double counts when every event is delivered again, in reverse order', async () => {
      const weekly = await h.reader.weekly(WEEK);
      const health = await h.reader.providerHealth('2026-11-16', '2026-11-22');
      await h.deliver(...[...ALL].reverse());
      expect(await h.reader.daily(DAY)).toEqual(daily);
      expect(await h.reader.weekly(WEEK)).toEqual(weekly);
      expect(await h.reader.providerHealth('2026-11-16', '2026-11-22')).toEqual(health);
    });
  });

  it('gives the same reports whatever order the topics arrive in', async () => {
    await h.reset();
    await h.deliver(...ALL);
    const inOrder = { daily: await h.reader.daily(DAY), weekly: await h.reader.weekly(WEEK) };
    await h.reset();
    const timelinesFirst = [...ALL].sort((a, b) => rank(a) - rank(b));
    await h.deliver(...timelinesFirst);
    expect({ daily: await h.reader.daily(DAY), weekly: await h.reader.weekly(WEEK) }).toEqual(inOrder);
  }, 60000);

  it('splits every figure by tenant: runs, verdicts, gaps and the provider calls of that tenant\'s runs', async () => {
    await h.reset();
    const at = '2026-11-20T10:00:00+08:00';
    const call = (queryId: string, outcome: 'complete' | 'failed') => ({ scenarioId: 's1', queryId, provider: 'clinic' as const, outcome, supplemental: false, at });
    await h.deliver(
      published('a1', 'ACME-1', at, { tenant: 'acme' }),
      published('a2', 'ACME-2', at, { tenant: 'acme' }),
      published('g1', 'GLX-1', at, { tenant: 'globex' }),
      published('n1', 'ORPHAN-1', at, { tenant: null }),
      execution('a1', 'ACME-1', at, { providerQueryEvents: [call('q1', 'complete')] }),
      execution('g1', 'GLX-1', at, { providerQueryEvents: [call('q1', 'failed'), call('q2', 'failed')] }),
      judged('e-g1', 'g1', 'GLX-1', 'g1', 'human_better', '2026-11-20T12:00:00+08:00', ['globex gap']),
    );
    const acme = await h.reader.daily(DAY, 'acme');
    expect(acme).toMatchObject({ tenant: 'acme', runsCounted: 2, topGaps: [] });
    expect(acme.providerHealth.map((p) => [p.provider, p.queries, p.failed])).toEqual([['clinic', 1, 0]]);
    const globex = await h.reader.daily(DAY, 'globex');
    expect(globex).toMatchObject({ tenant: 'globex', runsCounted: 1, topGaps: [{ gap: 'globex gap', count: 1 }] });
    expect(globex.verdicts.find((v) => v.verdict === 'human_better')?.count).toBe(1);
    expect(await h.reader.providerHealth(DAY, DAY, 'globex')).toMatchObject([{ provider: 'clinic', queries: 2, failed: 2 }]);
    expect((await h.reader.weekly(WEEK, 'acme')).runsCounted).toBe(2);
    expect((await h.reader.daily(DAY, 'initech')).runsCounted).toBe(0);
    // Every tenant's figures include the run no configured tenant owns.
    expect(await h.reader.daily(DAY)).toMatchObject({ tenant: null, runsCounted: 4 });
  }, 60000);

  it("stores the model judge's cross-checks and lists its disagreements per period and tenant, never another tenant's", async () => {
    await h.reset();
    const at = '2026-11-20T10:00:00+08:00';
    const judgedAt = '2026-11-20T12:00:00+08:00';
    const check = (verdict: Verdict, agrees: boolean | null, reasonCode: string | null = 'ticket_value_ignored') => ({ crossCheck: { engine: 'openai:judge-xl', verdict, agrees, reasonCode } });
    await h.deliver(
      published('a1', 'ACME-1', at, { tenant: 'acme' }),
      published('a2', 'ACME-2', at, { tenant: 'acme' }),
      published('a3', 'ACME-3', at, { tenant: 'acme' }),
      published('a4', 'ACME-4', at, { tenant: 'acme' }),
      published('g1', 'GLX-1', at, { tenant: 'globex' }),
      published('g2', 'GLX-2', '2026-11-21T10:00:00+08:00', { tenant: 'globex' }),
      // acme: one disagreement, one agreement, one model abstention, one without any model judge.
      judged('e-a1', 'a1', 'ACME-1', 'a1', 'human_better', judgedAt, [], check('equivalent', false)),
      judged('e-a2', 'a2', 'ACME-2', 'a2', 'equivalent', judgedAt, [], check('equivalent', true, 'covered')),
      judged('e-a3', 'a3', 'ACME-3', 'a3', 'ai_better', judgedAt, [], check('not_compared', null, 'risk_missed')),
      judged('e-a4', 'a4', 'ACME-4', 'a4', 'equivalent', judgedAt),
      // globex: a disagreement on the day, and one on the next day.
      judged('e-g1', 'g1', 'GLX-1', 'g1', 'different_but_valid', judgedAt, [], check('human_better', false, 'late_mechanism_next_step')),
      judged('e-g2', 'g2', 'GLX-2', 'g2', 'equivalent', '2026-11-21T12:00:00+08:00', [], check('ai_better', false, 'covered')),
    );
    const stored: unknown[] = await h.dataSource.query(
      `SELECT "evaluation_id", "cross_check_engine", "cross_check_verdict", "cross_check_agrees", "cross_check_reason_code" FROM ${h.tables.evaluations} WHERE "evaluation_id" IN ('e-a1', 'e-a3', 'e-a4') ORDER BY 1`,
    );
    expect(stored).toEqual([
      { evaluation_id: 'e-a1', cross_check_engine: 'openai:judge-xl', cross_check_verdict: 'equivalent', cross_check_agrees: false, cross_check_reason_code: 'ticket_value_ignored' },
      { evaluation_id: 'e-a3', cross_check_engine: 'openai:judge-xl', cross_check_verdict: 'not_compared', cross_check_agrees: null, cross_check_reason_code: 'risk_missed' },
      { evaluation_id: 'e-a4', cross_check_engine: null, cross_check_verdict: null, cross_check_agrees: null, cross_check_reason_code: null },
    ]);

    const acme = await h.reader.daily(DAY, 'acme');
    expect(acme.judgeCrossCheck).toEqual({
      crossChecked: 3,
      disagreed: 1,
      disagreements: [
        { runId: 'a1', ticketKey: 'ACME-1', evaluationId: 'e-a1', judgedAt: '2026-11-20T04:00:00.000Z', builtinVerdict: 'human_better', modelVerdict: 'equivalent', modelEngine: 'openai:judge-xl', reasonCode: 'ticket_value_ignored' },
      ],
    });
    const globex = await h.reader.daily(DAY, 'globex');
    expect(globex.judgeCrossCheck).toMatchObject({ crossChecked: 1, disagreed: 1, disagreements: [{ runId: 'g1', builtinVerdict: 'different_but_valid', modelVerdict: 'human_better' }] });
    // Another tenant's disagreements never appear; a tenant with none has none.
    expect(acme.judgeCrossCheck?.disagreements.map((d) => d.runId)).not.toContain('g1');
    expect(globex.judgeCrossCheck?.disagreements.map((d) => d.runId)).not.toContain('a1');
    expect((await h.reader.daily(DAY, 'initech')).judgeCrossCheck).toEqual({ crossChecked: 0, disagreed: 0, disagreements: [] });
    // The period decides too: the week holds both of globex's, the next day only the second.
    expect((await h.reader.weekly(WEEK, 'globex')).judgeCrossCheck?.disagreements.map((d) => d.runId)).toEqual(['g1', 'g2']);
    expect((await h.reader.daily('2026-11-21', 'globex')).judgeCrossCheck).toMatchObject({ crossChecked: 1, disagreed: 1, disagreements: [{ runId: 'g2' }] });
    // Every tenant's view holds them all.
    expect((await h.reader.daily(DAY)).judgeCrossCheck).toMatchObject({ crossChecked: 4, disagreed: 2 });
    // A later evaluation of the same answer version without a disagreement replaces it in the report.
    await h.deliver(judged('e-a1b', 'a1', 'ACME-1', 'a1', 'human_better', '2026-11-20T13:00:00+08:00', [], check('human_better', true, 'determined_nothing')));
    expect((await h.reader.daily(DAY, 'acme')).judgeCrossCheck).toEqual({ crossChecked: 3, disagreed: 0, disagreements: [] });
  }, 60000);

  it('rejects malformed parameters naming the field', async () => {
    await expect(h.reader.daily('2026-02-30')).rejects.toMatchObject({ field: 'day' });
    await expect(h.reader.weekly('2026-11-17')).rejects.toMatchObject({ field: 'weekStart' });
    await expect(h.reader.providerHealth('2026-11-20', '2026-11-19')).rejects.toMatchObject({ field: 'to' });
    await expect(h.reader.answerVersions('not a key')).rejects.toMatchObject({ field: 'ticketKey' });
  });
});

/** Timelines, then evaluations, then executions, then publications: the worst case for binding and projection. */
function rank(event: ReporterEvent): number {
  return ['ticket.timeline-updated', 'evaluation.judged', 'run.execution-recorded', 'run.published'].indexOf(event.topic);
}
