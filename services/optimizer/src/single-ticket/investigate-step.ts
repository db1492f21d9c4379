import type { EntityManager } from 'typeorm';
import { qualitySignature } from '../collect-signals/signal-refs';
import type { Criterion } from '../judge-criteria/criterion-judge';
import { moveJob, type SingleTicketJob } from '../persistence/single-ticket-store';
import { answerVersionsOf, signals, type AnswerVersionRow } from '../persistence/signal-store';
import type { ReplayRequest } from '../run-focus/ports';
import { judgeReplays, type JudgedReplay } from '../run-focus/replay-judging';
import { criteriaFor, familyOf } from '../select-focus/focus-selector';
import { builtinInvestigator, type Investigation, type InvestigationInput } from './investigator';
import type { LaneDeps } from './ports';

/**
 * The investigation step: the latest persisted answer, the wanted family (from the trigger, else
 * the ticket's quality signals), a fresh read replay at the answer's cutoff on the current data
 * (no overlay), judged on that family's criteria, and the investigator's classification. The replay
 * runs outside any transaction; the classification is applied as one conditional move.
 */

/** The latest answer version of a ticket (what the lane reviews), or null. */
export const latestAnswer = async (m: EntityManager, ticketKey: string): Promise<AnswerVersionRow | null> => (await answerVersionsOf(m, ticketKey)).at(-1) ?? null;

/** The single target case of a job: the ticket at its latest answer's cutoff, on that answer's recorded evidence. */
export const targetRequest = (answer: AnswerVersionRow): ReplayRequest => ({ caseId: answer.ticketKey, role: 'target', ticketKey: answer.ticketKey, cutoff: answer.cutoff, runId: answer.runId });

/** Which family the human side names, and in whose words. */
async function humanSide(m: EntityManager, job: SingleTicketJob): Promise<{ family: string | null; human: InvestigationInput['human'] }> {
  const t = job.trigger;
  if (t.kind === 'signal') {
    if (t.signalKind === 'runtime') return { family: null, human: { source: 'runtime', statement: t.statement } };
    return { family: familyOf(t.signature), human: { source: t.signalKind === 'explicit_feedback' ? 'feedback' : 'evaluation', statement: t.statement } };
  }
  const named = t.description ? familyOf(qualitySignature(t.description)) : null;
  if (named) return { family: named, human: { source: 'ticket_command', statement: t.description ?? '' } };
  // A bare /ticket: the ticket's own quality signals say what the human side named, newest answer's first.
  const quality = (await signals(m, { ticketKey: job.ticketKey })).filter((s) => s.kind !== 'runtime' && familyOf(s.signature) !== null);
  const chosen = quality.at(-1);
  if (chosen) return { family: familyOf(chosen.signature), human: { source: 'ticket_signals', statement: chosen.statement } };
  return { family: null, human: { source: 'none', statement: t.description ?? '/ticket without a description' } };
}

export interface FreshContext {
  answer: AnswerVersionRow;
  family: string | null;
  criteria: Criterion[];
  blockingCriterionId: string | null;
  fresh: JudgedReplay;
  human: InvestigationInput['human'];
}

/** Replays the ticket on the current data (what `mode=read` would answer now) and judges it. */
export async function freshReplay(deps: LaneDeps, answer: AnswerVersionRow, criteria: readonly Criterion[]): Promise<JudgedReplay> {
  const request = targetRequest(answer);
  try {
    const results = await deps.replay.replay([request], null);
    return (await judgeReplays([request], results, criteria, deps.freeTextJudge))[0];
  } catch (error) {
    return (await judgeReplays([request], [{ caseId: request.caseId, answer: null, execution: { responseGeneration: 'failed', providerCapability: 'unverified' }, error: `the replay failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300) }], criteria))[0];
  }
}

/** Starts (or resumes) the investigation; returns the job's investigation, or null when the job ended without one. */
export async function investigate(deps: LaneDeps, job: SingleTicketJob): Promise<Investigation | null> {
  const started = await deps.transact(async ({ manager: m }) => {
    const answer = await latestAnswer(m, job.ticketKey);
    if (!answer) {
      if (job.status === 'queued') await moveJob(m, job, 'queued', 'no_answer_yet', { reason: `no_answer_yet: ${job.ticketKey} has no persisted answer to review; trigger it again once the ticket is answered`, outcome: 'no_answer_yet' }, deps.now());
      return null;
    }
    if (job.status === 'queued') await moveJob(m, job, 'queued', 'investigation_started', { reason: `reviewing answer ${answer.runId}` }, deps.now());
    return { answer, ...(await humanSide(m, job)) };
  });
  if (!started) return null;
  const { answer, family, human } = started;
  const known = family === null ? null : familyOf(`quality:${family}`);
  const { criteria, blockingCriterionId } = known ? criteriaFor(known) : { criteria: [], blockingCriterionId: null };
  const fresh = await freshReplay(deps, answer, criteria);
  const investigation = await (deps.investigator ?? builtinInvestigator).investigate({ trigger: job.trigger, answer, wantedFamily: known, human, fresh, blockingCriterionId });
  await deps.transact(({ manager: m }) => applyFinding(m, deps, job, investigation));
  return investigation;
}

async function applyFinding(m: EntityManager, deps: LaneDeps, job: SingleTicketJob, investigation: Investigation): Promise<void> {
  const f = investigation.finding;
  const at = deps.now();
  if (f.kind === 'local_repair') await moveJob(m, job, 'investigating', 'repair_selected', { reason: f.reason, investigation }, at);
  else if (f.kind === 'replay_failed') await moveJob(m, job, 'investigating', 'replay_failed', { reason: `replay_failed at investigating: ${f.reason}`, outcome: 'replay_failed', investigation }, at);
  else if (f.kind === 'focus_candidate') throw new Error('focus_candidate is decided by the repair step, not the investigator');
  else await moveJob(m, job, 'investigating', 'finding_concluded', { reason: `${f.kind}: ${f.reason}`, outcome: f.kind, investigation }, at);
}
