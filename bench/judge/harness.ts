// Runs the judge on one labelled case: builds the TicketState the judge service would hold from
// contract objects (ticket.analysis-requested, run.published, ticket.timeline-updated), plans the
// judgments and compares in both orders with the configured judge model.
import type { ModelPort } from '@aoc/agent-runtime';
import { answerFingerprint } from '@aoc/answers';
import { RunPublishedV1, TicketAnalysisRequestedV1, TicketTimelineUpdatedV1, type Verdict } from '@aoc/contracts';
import { timelineFeedback } from '@aoc/feedback';
import { compareBothOrders } from '../../services/judge/src/judge-answer/answer-comparison';
import { planJudgments, type JudgmentPlan } from '../../services/judge/src/judge-answer/judge-plan';
import { applyEvent, emptyTicketState, type JudgeEvent, type TicketState } from '../../services/judge/src/judge-answer/ticket-state';
import { frozenAt, type CaseAnswer, type JudgeCase } from './case.schema';

/** Code of a case for which the planner produced no judgment of the case's answer. */
export const NO_PLAN = 'NO_PLAN';
/** Code of a case on which the judge threw (recorded, the run goes on). */
export const JUDGE_ERROR = 'JUDGE_ERROR';
/** A `not_compared` verdict without any abstention code. */
export const UNCODED = 'UNCODED';

export interface CaseRun {
  id: string;
  rule: string;
  file: string;
  expected: { verdict: Verdict; humanCommentIds: string[] };
  verdict: Verdict;
  humanCommentIds: string[];
  /** Abstention code from the judge (`fields.abstentionCode`), NO_PLAN or JUDGE_ERROR; null when none. */
  abstentionCode: string | null;
  ordersAgree: boolean | null;
  previousComplaint: boolean | null;
  verdictReason: string | null;
  /** `fields.judgeEngine` (model name of the built-in judge, or engine:model). */
  judgeEngine: string | null;
  error: string | null;
  ms: number;
}

const TIMELINE_OBSERVED_AT = '2030-01-01T00:00:00.000Z';

function analysisRequested(c: JudgeCase, a: CaseAnswer): TicketAnalysisRequestedV1 {
  const frozen = Date.parse(frozenAt(a));
  return TicketAnalysisRequestedV1.parse({
    runId: a.runId,
    ticketKey: c.ticket.key,
    mode: a.mode,
    trigger: a.trigger,
    requestedAt: a.requestedAt,
    cutoff: a.cutoff,
    ticket: {
      ...c.ticket,
      comments: c.timeline
        .filter((m) => m.visibility === 'public' && Date.parse(m.createdAt) <= frozen)
        .map((m) => ({ id: m.id, authorRole: m.authorRole, visibility: m.visibility, createdAt: m.createdAt, body: m.body })),
    },
  });
}

function runPublished(c: JudgeCase, a: CaseAnswer): RunPublishedV1 {
  return RunPublishedV1.parse({
    runId: a.runId,
    ticketKey: c.ticket.key,
    mode: a.mode,
    trigger: a.trigger,
    publishedAt: a.publishedAt,
    cutoff: a.cutoff,
    customerReplyMarkdown: a.customerReplyMarkdown,
    internalHandoffMarkdown: a.internalHandoffMarkdown,
    decision: a.decision,
    answerFingerprint: answerFingerprint(a.customerReplyMarkdown, a.internalHandoffMarkdown),
    clarificationSimulation: { required: a.requestedContext.length > 0, requestedContext: a.requestedContext },
  });
}

function timelineUpdated(c: JudgeCase): TicketTimelineUpdatedV1 {
  return TicketTimelineUpdatedV1.parse({
    ticketKey: c.ticket.key,
    observedAt: TIMELINE_OBSERVED_AT,
    revision: 1,
    comments: c.timeline.map((m) => ({ ...m, feedback: timelineFeedback(m) })),
  });
}

/** The judge's state for a case, built from contract objects (each validated by its schema). */
export function ticketStateOf(c: JudgeCase): TicketState {
  const answers = c.previous ? [c.previous, c.answer] : [c.answer];
  const events: JudgeEvent[] = [
    ...answers.map((a): JudgeEvent => ({ kind: 'ticket', request: analysisRequested(c, a) })),
    ...answers.map((a): JudgeEvent => ({ kind: 'answer', run: runPublished(c, a) })),
    { kind: 'timeline', timeline: timelineUpdated(c) },
  ];
  return events.reduce(applyEvent, emptyTicketState(c.ticket.key));
}

/** The plan judging the case's answer, or null when the planner produced none. */
export function planOf(c: JudgeCase): JudgmentPlan | null {
  return planJudgments(ticketStateOf(c)).plans.find((p) => p.answer.runId === c.answer.runId) ?? null;
}

/** `fields.abstentionCode` when the judge provides it (added by the judge rewrite). */
export function abstentionCodeOf(fields: object): string | null {
  if (!('abstentionCode' in fields)) return null;
  const code: unknown = fields.abstentionCode;
  return typeof code === 'string' && code.length > 0 ? code : null;
}

/** Judges one case. Contract violations throw (a bad case is a harness error); a judge failure is recorded. */
export async function runCase(model: ModelPort, c: JudgeCase, file: string): Promise<CaseRun> {
  const started = Date.now();
  const base = { id: c.id, rule: c.rule, file, expected: c.expected };
  const plan = planOf(c);
  if (plan === null) {
    return { ...base, verdict: 'not_compared', humanCommentIds: [], abstentionCode: NO_PLAN, ordersAgree: null, previousComplaint: null, verdictReason: null, judgeEngine: null, error: null, ms: Date.now() - started };
  }
  try {
    const outcome = await compareBothOrders(model, plan);
    const { fields } = outcome;
    return {
      ...base,
      verdict: fields.verdict,
      humanCommentIds: [...fields.targetHumanCommentIds],
      abstentionCode: abstentionCodeOf(fields),
      ordersAgree: outcome.ordersAgree,
      previousComplaint: plan.previousComplaint,
      verdictReason: fields.verdictReason,
      judgeEngine: fields.judgeEngine,
      error: null,
      ms: Date.now() - started,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ...base, verdict: 'not_compared', humanCommentIds: [], abstentionCode: JUDGE_ERROR, ordersAgree: null, previousComplaint: plan.previousComplaint, verdictReason: null, judgeEngine: null, error: message, ms: Date.now() - started };
  }
}

/** Runs every case with at most `concurrency` in flight; results in input order. */
export async function runCases(model: ModelPort, cases: readonly { file: string; case: JudgeCase }[], concurrency: number, onDone?: (run: CaseRun) => void): Promise<CaseRun[]> {
  const results: CaseRun[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      results[i] = await runCase(model, cases[i].case, cases[i].file);
      onDone?.(results[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, cases.length)) }, worker));
  return results;
}
