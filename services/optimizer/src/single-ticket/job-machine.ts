/**
 * The single-ticket job machine: the one place that says which statuses a single-ticket job has,
 * which moves are allowed and what each terminal outcome means. The job store moves a job only
 * through `moveJob` (persistence/single-ticket-store.ts), which looks the pair (status, event) up
 * here first, so an unlisted move is refused before anything is written.
 */

export const JOB_STATUSES = ['queued', 'investigating', 'repairing', 'verifying', 'publishing', 'concluded', 'optimized_verified', 'human_handoff', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** `result`: what the terminal notification says (null: not terminal). */
export const JOB_STATUS_MEANING: Readonly<Record<JobStatus, { result: 'succeeded' | 'failed' | null; meaning: string }>> = {
  queued: { result: null, meaning: 'a trigger created the job; nothing investigated yet' },
  investigating: { result: null, meaning: 'the latest answer and a fresh read replay are being reviewed' },
  repairing: { result: null, meaning: 'a local diagnosis gap was found: candidates on the tunable data are gated on the ticket and its controls' },
  verifying: { result: null, meaning: "a repair is recorded; waiting for its data version to be deployed and the record's verification" },
  publishing: { result: null, meaning: 'verified: the read replay on the deployed data is being re-published' },
  concluded: { result: 'succeeded', meaning: 'the investigation classified the finding; nothing for this lane to repair' },
  optimized_verified: { result: 'succeeded', meaning: 'the repair was verified on the deployed data and the answer re-published' },
  human_handoff: { result: 'failed', meaning: 'the repair touches a protected path or did not hold on the deployed data: a human takes over' },
  failed: { result: 'failed', meaning: "the lane's own failure (no answer yet, a replay or publication that failed), with its stage" },
};

/** The findings the investigator classifies a job into (at most one is selected). */
export const FINDING_KINDS = ['no_problem', 'historical_only', 'transient', 'global_tuning', 'focus_candidate', 'local_repair'] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/** Terminal outcome codes a job reports (the notification's `outcome`). */
export const JOB_OUTCOMES = ['no_problem', 'historical_only', 'transient', 'global_tuning', 'focus_candidate', 'optimized_verified', 'protected_path', 'verification_failed', 'no_answer_yet', 'replay_failed', 'publish_failed'] as const;
export type JobOutcome = (typeof JOB_OUTCOMES)[number];

export const JOB_EVENTS = ['job_created', 'investigation_started', 'no_answer_yet', 'finding_concluded', 'repair_selected', 'replay_failed', 'repair_recorded', 'no_local_repair', 'protected_path', 'verification_passed', 'verification_failed', 'published', 'publish_failed'] as const;
export type JobEvent = (typeof JOB_EVENTS)[number];

export interface JobTransition {
  from: JobStatus | 'none';
  event: JobEvent;
  to: JobStatus;
  meaning: string;
}

const T = (from: JobTransition['from'], event: JobEvent, to: JobStatus, meaning: string): JobTransition => ({ from, event, to, meaning });

/** The allowed transitions. A pair (from, event) not listed here is refused. */
export const JOB_TRANSITIONS: readonly JobTransition[] = [
  T('none', 'job_created', 'queued', 'a trigger (an /ao, a human_better gap, a runtime degradation, a /ticket comment) opened the job'),
  T('queued', 'investigation_started', 'investigating', 'the ticket has a persisted answer: the review starts'),
  T('queued', 'no_answer_yet', 'failed', 'the ticket has no persisted answer to review (outcome no_answer_yet)'),
  T('investigating', 'finding_concluded', 'concluded', 'no_problem, historical_only, transient or global_tuning: nothing to repair here'),
  T('investigating', 'repair_selected', 'repairing', 'a diagnosis gap the fresh replay reproduces, with a wanted family: a local repair is tried'),
  T('investigating', 'replay_failed', 'failed', 'the fresh read replay failed for a reason that is not transient'),
  T('repairing', 'repair_recorded', 'verifying', 'a candidate passed the gate on the ticket: its optimisation record is written'),
  T('repairing', 'no_local_repair', 'concluded', 'no candidate passed the gate within the bound: left to the Focus loop (focus_candidate)'),
  T('repairing', 'protected_path', 'human_handoff', 'the only admissible plan touches a protected path'),
  T('verifying', 'verification_passed', 'publishing', "the record's problem is optimized_verified on the deployed data"),
  T('verifying', 'verification_failed', 'human_handoff', "the record's problem is ineffective on the deployed data"),
  T('publishing', 'published', 'optimized_verified', 'the read replay on the deployed data was re-published'),
  T('publishing', 'publish_failed', 'failed', 'the publication failed or no publisher is configured'),
];

export class IllegalJobTransitionError extends Error {
  constructor(
    readonly from: JobStatus | 'none',
    readonly event: JobEvent,
  ) {
    super(`a single-ticket job that is ${from} cannot take ${event}: not a transition of the job machine`);
  }
}

export function jobTransitionFor(from: JobStatus | 'none', event: JobEvent): JobTransition {
  const row = JOB_TRANSITIONS.find((t) => t.from === from && t.event === event);
  if (!row) throw new IllegalJobTransitionError(from, event);
  return row;
}

export const isTerminal = (status: JobStatus): boolean => JOB_STATUS_MEANING[status].result !== null;

export function isJobStatus(value: unknown): value is JobStatus {
  return JOB_STATUSES.some((s) => s === value);
}

/** A mermaid state diagram of the table (docs/optimizer.md shows it; a spec keeps them equal). */
export function jobStateDiagram(): string {
  const name = (s: JobStatus | 'none') => (s === 'none' ? '[*]' : s);
  const lines = JOB_TRANSITIONS.map((t) => `  ${name(t.from)} --> ${name(t.to)}: ${t.event}`);
  const finals = JOB_STATUSES.filter(isTerminal).map((s) => `  ${s} --> [*]`);
  return ['stateDiagram-v2', ...lines, ...finals].join('\n');
}
