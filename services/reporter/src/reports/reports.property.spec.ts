import type { RunExecutionRecordedV1, TimelineCommentV1, Verdict } from '@aoc/contracts';
import fc from 'fast-check';
import { comment, execution, judged, published, startEmbeddedReporter, timeline, type ReporterEvent, type ReporterHarness } from '../../test/reporter-harness';

/**
 * Property: the reports depend on the set of facts received, never on delivery order or on
 * redelivery. A generated event set is delivered once in order, then shuffled with duplicates
 * (new message ids are irrelevant to the handlers: they deduplicate on business keys).
 */
const BASE = Date.parse('2026-11-20T20:00:00+08:00');
const minutes = (n: number) => new Date(BASE + n * 60_000).toISOString();
const TICKETS = ['SUP-1', 'SUP-2', 'SUP-3'] as const;
const GAPS = ['missing owner', 'no escalation condition', 'wrong window'];
const DAYS = ['2026-11-20', '2026-11-21'];
const WEEK = '2026-11-16';

const triggerArb = fc.constantFrom('initial', 'bot_assignment', 'continuation', 'replay' as const);
const verdictArb = fc.constantFrom<Verdict>('ai_better', 'equivalent', 'different_but_valid', 'human_better', 'not_compared');

const runArb = fc.record({
  ticket: fc.constantFrom(...TICKETS),
  trigger: triggerArb,
  mode: fc.constantFrom('read', 'write' as const),
  // Spread over 8 hours around midnight in Shanghai, so runs fall on both days.
  at: fc.integer({ min: -240, max: 240 }),
  answer: fc.constantFrom('x', 'y', 'z'),
});

const queryArb = fc.record({
  scenario: fc.constantFrom('s1', 's2'),
  query: fc.constantFrom('q1', 'q2', 'q3'),
  provider: fc.constantFrom('clinic', 'manus' as const),
  outcome: fc.constantFrom('complete', 'empty', 'failed' as const),
  supplemental: fc.boolean(),
  offset: fc.integer({ min: 0, max: 30 }),
});

const executionArb = fc.record({
  recordedOffset: fc.integer({ min: 1, max: 3 }),
  status: fc.constantFrom('complete', 'degraded', 'failed', 'not_attempted' as const),
  response: fc.constantFrom('succeeded', 'failed' as const),
  providers: fc.subarray(['clinic', 'manus', 'none'] as const, { minLength: 0, maxLength: 2 }),
  queries: fc.array(queryArb, { maxLength: 4 }),
  http: fc.array(fc.record({ query: fc.constantFrom('q1', 'q2'), status: fc.constantFrom('200', '400', '500', '502', 'other' as const), offset: fc.integer({ min: 0, max: 30 }) }), { maxLength: 4 }),
  episodes: fc.array(
    fc.record({ query: fc.constantFrom('q1', 'q2'), recovered: fc.boolean(), attempts: fc.integer({ min: 1, max: 4 }), error: fc.constantFrom('Bad Gateway', 'timeout'), request: fc.option(fc.constantFrom('req-a', 'req-b'), { nil: null }) }),
    { maxLength: 2 },
  ),
});

const evaluationArb = fc.record({ verdict: verdictArb, offset: fc.integer({ min: 0, max: 600 }), gaps: fc.subarray(GAPS) });

const commentArb = fc.record({
  role: fc.constantFrom('customer', 'support', 'engineer', 'bot' as const),
  visibility: fc.constantFrom('public', 'internal' as const),
  at: fc.integer({ min: -240, max: 300 }),
  // One body per edit; edits have strictly increasing updatedAt.
  bodies: fc.array(fc.constantFrom('/ao accept', '/ao revise: add owner', '/ao wrong: wrong cause', '/ao human', 'Support answer', 'thanks'), { minLength: 1, maxLength: 3 }),
});

const scenarioArb = fc.record({
  runs: fc.array(fc.tuple(runArb, fc.array(executionArb, { maxLength: 2 }), fc.array(evaluationArb, { maxLength: 2 })), { minLength: 1, maxLength: 6 }),
  comments: fc.array(fc.tuple(fc.constantFrom(...TICKETS), commentArb), { maxLength: 6 }),
  revisions: fc.integer({ min: 1, max: 3 }),
});

type ScenarioInput = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function buildEvents(scenario: ScenarioInput): ReporterEvent[] {
  const events: ReporterEvent[] = [];
  scenario.runs.forEach(([run, executions, evaluations], i) => {
    const runId = `run-${i}`;
    events.push(published(runId, run.ticket, minutes(run.at), { trigger: run.trigger, mode: run.mode, answer: run.answer }));
    executions.forEach((x, k) => {
      const at = (offset: number) => minutes(run.at + offset / 60);
      const record: Partial<RunExecutionRecordedV1> = {
        providerQueryEvents: x.queries.map((q) => ({ scenarioId: q.scenario, queryId: q.query, provider: q.provider, outcome: q.outcome, supplemental: q.supplemental, at: at(q.offset) })),
        providerHttpAttempts: x.http.map((a) => ({ scenarioId: 's1', queryId: a.query, provider: 'clinic', statusClass: a.status, at: at(a.offset) })),
        providerSystemEvents: x.episodes.map((e) => ({
          scenarioId: 's1',
          queryId: e.query,
          provider: 'clinic',
          statusSequence: [...Array.from({ length: e.attempts - 1 }, () => 502), e.recovered ? 200 : 502],
          result: e.recovered ? 'recovered' : 'failed',
          upstreamError: e.error,
          requestId: e.request,
          at: at(0),
        })),
      };
      events.push(
        execution(runId, run.ticket, minutes(run.at + x.recordedOffset + k), {
          evidenceStatus: x.status,
          responseStatus: x.response,
          providers: [...x.providers],
          failureCodes: x.status === 'complete' ? [] : ['E.CODE'],
          ...record,
        }),
      );
    });
    evaluations.forEach((e, k) => events.push(judged(`ev-${i}-${k}`, runId, run.ticket, run.answer, e.verdict, minutes(run.at + 1 + e.offset), [...e.gaps])));
  });
  for (const ticket of TICKETS) {
    const mine = scenario.comments.map(([t, c], i) => ({ t, c, id: `c-${i}` })).filter((x) => x.t === ticket);
    if (mine.length === 0) continue;
    for (let revision = 1; revision <= scenario.revisions; revision++) {
      // Revision r shows each comment at its r-th edit (or its last one).
      const comments: TimelineCommentV1[] = mine.map(({ c, id }) => {
        const edit = Math.min(revision, c.bodies.length) - 1;
        return comment(id, c.role, c.visibility, minutes(c.at), c.bodies[edit], minutes(c.at + edit * 10));
      });
      events.push(timeline(ticket, revision, comments));
    }
  }
  return events;
}

async function snapshot(h: ReporterHarness): Promise<unknown> {
  return {
    daily: await Promise.all(DAYS.map((d) => h.reader.daily(d))),
    weekly: await h.reader.weekly(WEEK),
    health: await h.reader.providerHealth(DAYS[0], DAYS[1]),
    answers: await Promise.all(TICKETS.map((t) => h.reader.answerVersions(t))),
  };
}

describe('reports are a function of the facts, not of their delivery (property)', () => {
  let h: ReporterHarness & { stop(): Promise<void> };

  beforeAll(async () => {
    h = await startEmbeddedReporter();
  }, 120000);

  afterAll(async () => {
    await h?.stop();
  });

  it('gives identical reports for a shuffled, duplicated delivery of the same events', async () => {
    const arb = scenarioArb.chain((scenario) => {
      const events = buildEvents(scenario);
      const indices = events.map((_, i) => i);
      return fc.tuple(fc.constant(events), fc.shuffledSubarray(indices, { minLength: indices.length, maxLength: indices.length }), fc.subarray(indices));
    });
    await fc.assert(
      fc.asyncProperty(arb, async ([events, order, duplicates]) => {
        await h.reset();
        await h.deliver(...events);
        const expected = await snapshot(h);
        await h.reset();
        await h.deliver(...order.map((i) => events[i]), ...duplicates.map((i) => events[i]));
        expect(await snapshot(h)).toEqual(expected);
      }),
      { numRuns: Number(process.env['REPORTER_PROPERTY_RUNS'] ?? 25), endOnFailure: true },
    );
  }, 300000);
});
