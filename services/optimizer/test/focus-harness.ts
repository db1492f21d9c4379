import type { HandlerContext, UnitOfWork } from '@aoc/bus';
import type { EvaluationJudgedV1, RunPublishedV1, TicketTimelineUpdatedV1 } from '@aoc/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import { CollectSignalsHandler } from '../src/collect-signals/collect-signals.handler';
import { bodyDigest } from '../src/collect-signals/signal-refs';
import { builtinProposer, type CandidateProposer } from '../src/propose-candidate/builtin-proposer';
import { localDataAccess } from '../src/run-focus/data-access';
import type { IterationDeps } from '../src/run-focus/focus-iteration';
import type { CandidateWriter, ReplayPort, ReplayRequest, ReplayResult } from '../src/run-focus/ports';
import { startOptimizerDb } from './optimizer-db';

/**
 * The Focus lifecycle's test bench: the embedded Postgres, three judged tickets whose customers
 * confirmed lock waits while the answers blamed CPU, and a scripted replay engine that leads with
 * CPU unless the data it replays on says lock waits drive CPU. Everything else is the real code.
 */

export const FP = 'f'.repeat(64);
/** The digest of the tickets' title and description as the seeded timelines carry it. */
export const QUESTION = 'a'.repeat(64);
export const TICKETS = ['SUP-9101', 'SUP-9102', 'SUP-9103'];
const REFERENCE = 'row lock waits behind a long transaction';

export const answerFor = (leads: 'cpu' | 'locks') => ({
  customerReplyMarkdown: 'What the data shows: ...',
  internalHandoffMarkdown: leads === 'cpu' ? '**Leading mechanism (moderate):** CPU utilisation rose from 1.2 s to 1.9 s.' : '**Leading mechanism (moderate):** lock waits rose from 1.5 to 6.',
  decision: 'human_required' as const,
  requestedContext: [],
  queriedFamilies: ['cpu', 'lock_waits'],
});

export class ScriptedReplay implements ReplayPort {
  calls: { cases: string[]; overlay: boolean }[] = [];
  failControlsWith: 'regress' | null = null;
  /** Cases whose replay does not execute (their provider fails on this case alone). */
  failing = new Set<string>();
  /** Targets the current data already answers right (they lead with lock waits without a candidate). */
  solved = new Set<string>();
  async replay(cases: readonly ReplayRequest[], overlay: ReadonlyMap<string, string> | null): Promise<ReplayResult[]> {
    this.calls.push({ cases: cases.map((c) => c.caseId), overlay: overlay !== null });
    const rules = [...(overlay ?? new Map<string, string>()).values()].join('');
    const fixed = /"lock_waits": \[[^\]]*"cpu"/.test(rules);
    const leads = (c: ReplayRequest) => (c.role === 'control' ? (fixed && this.failControlsWith === 'regress' ? 'cpu' : 'locks') : fixed || this.solved.has(c.caseId) ? 'locks' : 'cpu');
    return cases.map((c) =>
      this.failing.has(c.caseId)
        ? { caseId: c.caseId, answer: null, execution: { responseGeneration: 'failed', providerCapability: 'unverified' }, error: 'replay failed: provider timeout' }
        : { caseId: c.caseId, answer: answerFor(leads(c)), execution: { responseGeneration: 'complete', providerCapability: 'verified' }, error: null },
    );
  }
}

export class FocusHarness {
  ds!: DataSource;
  /** Messages published through the outbox, in order (emptied by `seed`). */
  readonly published: { topic: string; payload: unknown }[] = [];
  /** Candidate commits written. */
  writes = 0;
  private stopDb: () => Promise<void> = async () => undefined;

  readonly transact: IterationDeps['transact'] = (work) =>
    this.ds.transaction((m) => {
      const uow = { manager: m, publish: async (topic: { name: string }, payload: unknown) => void this.published.push({ topic: topic.name, payload }) } as unknown as UnitOfWork;
      return work(uow);
    });

  /** Transactions where the first query containing `sql` throws `message` (a process killed mid-transaction): everything in it rolls back. */
  crashingAt(sql: string, message: string): IterationDeps['transact'] {
    let armed = true;
    return (work) =>
      this.transact((uow) => {
        const query = uow.manager.query.bind(uow.manager);
        const manager = Object.create(uow.manager) as EntityManager;
        manager.query = (async (text: string, params?: unknown[]) => {
          if (armed && text.includes(sql)) {
            armed = false;
            throw new Error(message);
          }
          return query(text, params);
        }) as EntityManager['query'];
        return work({ ...uow, manager } as typeof uow);
      });
  }

  readonly writer: CandidateWriter = { write: async ({ focusId, attempt }) => ((this.writes += 1), { branch: `aoc/${focusId}/attempt-${attempt}`, sha: 'a'.repeat(40) }) };

  deps(replay: ReplayPort, proposer: CandidateProposer = builtinProposer): IterationDeps {
    return { transact: this.transact, replay, data: localDataAccess(), now: () => new Date('2026-12-01T04:00:00Z'), proposer, writer: this.writer, timeZone: 'Asia/Shanghai' };
  }

  ctx(): HandlerContext {
    return { manager: this.ds.manager } as unknown as HandlerContext;
  }

  async start(): Promise<void> {
    ({ ds: this.ds, stop: this.stopDb } = await startOptimizerDb());
  }

  async stop(): Promise<void> {
    await this.stopDb();
  }

  /** An empty schema, then the three tickets answered, with their timelines, and judged `human_better`. */
  async seed(): Promise<void> {
    this.published.length = 0;
    this.writes = 0;
    await this.ds.query(`TRUNCATE "optimizer"."checkpoints", "optimizer"."focuses", "optimizer"."focus_rejections", "optimizer"."signal_refs", "optimizer"."ticket_timelines", "optimizer"."answer_versions", "optimizer"."leases", "optimizer"."verdicts", "optimizer"."problem_statuses", "optimizer"."optimization_records", "optimizer"."notifications", "optimizer"."focus_transitions"`);
    const handler = new CollectSignalsHandler();
    for (const [i, ticketKey] of TICKETS.entries()) {
      const runId = `run-20261201-0000000${i}-001`;
      await handler.onPublished({ runId, ticketKey, mode: 'read', trigger: 'initial', publishedAt: '2026-11-30T10:05:00.000Z', cutoff: '2026-11-30T10:00:00.000Z', customerReplyMarkdown: 'x', internalHandoffMarkdown: answerFor('cpu').internalHandoffMarkdown, decision: 'human_required', answerFingerprint: FP, clarificationSimulation: { required: false, requestedContext: [] } } as unknown as RunPublishedV1, this.ctx());
      await handler.onTimeline(timeline(ticketKey), this.ctx());
      // The reference digest is the body's: the judge computes it the same way.
      const evaluation = { evaluationId: `ev-${i}`, revision: 1, supersedesEvaluationId: null, runId, ticketKey, answerFingerprint: FP, judgedAt: '2026-11-30T12:00:00.000Z', judgeEngine: 'rubric-judge-v3', verdict: 'human_better', abstentionCode: null, verdictReason: 'r', qualityScore: 0, aiGaps: ['named "CPU utilisation"; the customer confirmed "lock waits"'], keyDifferences: [], aiStrengths: [], internalHandoffGaps: [], targetHumanCommentIds: ['c-2'], referenceComments: [{ id: 'c-2', createdAt: '2026-11-30T11:00:00.000Z', bodyDigest: bodyDigest(REFERENCE) }], humanAnswerMarkdown: 'locks' } as EvaluationJudgedV1;
      await handler.onJudged(evaluation, this.ctx());
    }
  }
}

/** A seeded ticket's timeline: the customer's question and the support reply naming lock waits. */
export function timeline(ticketKey: string, revision = 1): TicketTimelineUpdatedV1 {
  return {
    ticketKey,
    observedAt: '2026-11-30T12:00:00.000Z',
    revision,
    comments: [
      { id: 'c-1', authorRole: 'customer', visibility: 'public', createdAt: '2026-11-30T09:50:00.000Z', updatedAt: '2026-11-30T09:50:00.000Z', body: 'timeouts', visibleToAi: true, feedback: null },
      { id: 'c-2', authorRole: 'support', visibility: 'public', createdAt: '2026-11-30T11:00:00.000Z', updatedAt: '2026-11-30T11:00:00.000Z', body: REFERENCE, visibleToAi: false, feedback: null },
    ],
    questionDigest: QUESTION,
  };
}
