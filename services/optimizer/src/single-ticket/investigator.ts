import type { CriterionStatus } from '../judge-criteria/criterion-judge';
import type { AnswerVersionRow } from '../persistence/signal-store';
import type { JudgedReplay } from '../run-focus/replay-judging';
import type { FindingKind } from './job-machine';
import type { JobTrigger } from './triggers';

/**
 * The read-only investigator of the single-ticket lane. It sees the ticket's latest persisted
 * answer, the trigger and a fresh read replay at the answer's cutoff on the current data, judged
 * on the wanted family's criteria. It first writes an answer review (what the answer led with and
 * decided, what the human side names, what the fresh replay leads with now), then classifies at
 * most one finding. It writes nothing: the lane applies its classification.
 */

export interface InvestigationInput {
  trigger: JobTrigger;
  answer: AnswerVersionRow;
  /** The family the human side names (the trigger, else the ticket's quality signals); null when none. */
  wantedFamily: string | null;
  /** Where the wanted family came from and in what words. */
  human: { source: 'feedback' | 'evaluation' | 'ticket_command' | 'runtime' | 'ticket_signals' | 'none'; statement: string };
  fresh: JudgedReplay;
  blockingCriterionId: string | null;
}

export interface AnswerReview {
  original: { runId: string; answerFingerprint: string; leadingFamily: string | null; decision: string; requestedContext: string[] };
  human: { source: InvestigationInput['human']['source']; statement: string; family: string | null };
  fresh: { executed: boolean; leadingFamily: string | null; blocking: CriterionStatus | null; error: string | null };
  summary: string;
}

export interface Finding {
  kind: FindingKind | 'replay_failed';
  reason: string;
  wantedFamily: string | null;
  ledFamily: string | null;
}

export interface Investigation {
  engine: string;
  answerReview: AnswerReview;
  finding: Finding;
}

/** The investigator port: built-in by default; a model engine would be held to the same output. */
export interface SingleTicketInvestigator {
  readonly engine: string;
  investigate(input: InvestigationInput): Promise<Investigation>;
}

/** One-off upstream failures (seed §9.2: 429/502/503/504, readiness, timeouts): not a finding of this ticket. */
const TRANSIENT = /\b(429|502|503|504)\b|time(?:d)? ?out|ECONNRESET|ETIMEDOUT|readiness|temporarily unavailable/i;
export const isTransientError = (error: string | null): boolean => error !== null && TRANSIENT.test(error);

export function answerReview(input: InvestigationInput): AnswerReview {
  const { answer, fresh } = input;
  const blocking = input.blockingCriterionId === null ? null : (fresh.judgement.results.find((r) => r.criterionId === input.blockingCriterionId)?.status ?? null);
  const review = {
    original: { runId: answer.runId, answerFingerprint: answer.answerFingerprint, leadingFamily: answer.leadingFamily, decision: answer.decision, requestedContext: [...answer.requestedContext] },
    human: { source: input.human.source, statement: input.human.statement.slice(0, 500), family: input.wantedFamily },
    fresh: { executed: fresh.executed, leadingFamily: fresh.leadingFamily, blocking, error: fresh.error },
  };
  const summary = [
    `The answer ${answer.runId} led with ${answer.leadingFamily ?? 'no mechanism'} and decided ${answer.decision}.`,
    input.wantedFamily ? `The human side (${input.human.source}) names ${input.wantedFamily}.` : `The human side (${input.human.source}) names no metric family.`,
    fresh.executed ? `The fresh read replay leads with ${fresh.leadingFamily ?? 'no mechanism'}${blocking ? ` (blocking criterion ${blocking})` : ''}.` : `The fresh read replay did not execute (${fresh.error ?? 'no answer'}).`,
  ].join(' ');
  return { ...review, summary };
}

const finding = (kind: Finding['kind'], reason: string, input: InvestigationInput): Finding => ({ kind, reason, wantedFamily: input.wantedFamily, ledFamily: input.fresh.leadingFamily });

/** A runtime trigger: reproduced is global tuning, not reproduced (or a one-off failure) is transient. */
function runtimeFinding(input: InvestigationInput): Finding {
  const { fresh } = input;
  if (!fresh.executed) {
    if (isTransientError(fresh.error)) return finding('transient', `the fresh replay failed with a one-off upstream error (${fresh.error ?? ''}): an external transient`, input);
    return finding('global_tuning', `the fresh replay reproduces the degradation (${fresh.error ?? 'no answer'}): timeouts and retries are tuned globally, not patched per ticket`, input);
  }
  return finding('transient', 'the fresh replay executed with its evidence: the degradation does not reproduce', input);
}

/** Classifies one finding at most, from the answer review. */
export function classify(input: InvestigationInput): Finding {
  if (input.trigger.kind === 'signal' && input.trigger.signalKind === 'runtime') return runtimeFinding(input);
  const { fresh, answer } = input;
  if (!fresh.executed) {
    if (isTransientError(fresh.error)) return finding('transient', `the fresh replay failed with a one-off upstream error (${fresh.error ?? ''})`, input);
    return finding('replay_failed', `the fresh replay did not execute: ${fresh.error ?? 'no answer'}`, input);
  }
  if (input.wantedFamily === null) return finding('no_problem', 'the trigger names no metric family and the fresh replay executed: no current finding to check', input);
  const blocking = input.blockingCriterionId === null ? undefined : fresh.judgement.results.find((r) => r.criterionId === input.blockingCriterionId);
  if (blocking?.status === 'met') {
    if (answer.leadingFamily === fresh.leadingFamily || answer.leadingFamily === input.wantedFamily) return finding('no_problem', `the answer and the fresh replay both lead with ${fresh.leadingFamily ?? 'it'}: ${input.wantedFamily} is met`, input);
    return finding('historical_only', `the answer led with ${answer.leadingFamily ?? 'no mechanism'}; the fresh replay leads with ${fresh.leadingFamily ?? '?'} and meets ${input.wantedFamily}: the problem is historical`, input);
  }
  if (blocking?.status === 'gap') return finding('local_repair', `the fresh replay still leads with ${fresh.leadingFamily ?? 'no mechanism'} where the human side names ${input.wantedFamily}: a diagnosis gap to repair on the tunable data`, input);
  return finding('no_problem', `the blocking criterion is ${blocking?.status ?? 'not judged'} on the fresh replay (${blocking?.reason ?? 'no result'}): no current finding`, input);
}

export const builtinInvestigator: SingleTicketInvestigator = {
  engine: 'builtin-single-ticket-investigator-v1',
  investigate: (input) => Promise.resolve({ engine: 'builtin-single-ticket-investigator-v1', answerReview: answerReview(input), finding: classify(input) }),
};
