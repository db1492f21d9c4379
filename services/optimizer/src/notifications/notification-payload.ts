import { createHash } from 'node:crypto';
import { IsoDateTime, TicketKey } from '@aoc/contracts';
import { z } from 'zod';
import { FOCUS_STATUSES, STATUS_MEANING, TRANSITION_OUTCOMES, type FocusStatus, type TransitionOutcome } from '../focus/focus-machine';
import { PROBLEM_EVENTS, type ProblemEvent } from '../focus/problem-status-machine';
import type { FocusRow } from '../persistence/focus-store';
import type { OptimizationRecord, VerificationEvidence } from '../records/optimization-record';

/**
 * The notifications the optimizer sends for its terminal results, as versioned JSON: the body of
 * the webhook POST is exactly one of these (`format` + `schemaVersion` + `kind`). Each carries a
 * `notificationId` derived from the result alone (kind and subject), so one result is one id
 * however often it is written or sent: a receiver keeps the ids it accepted and drops a repeat.
 *
 * - `focus.terminal`: a Focus reached a final status of the state machine.
 * - `problem.decided`: a problem of an optimisation record became `optimized_verified` or `ineffective`.
 * - `single_ticket.result`: a single-ticket job reached a terminal status (written with that move).
 */

export const NOTIFICATION_FORMAT = 'auto-oncall-optimizer-notification';
export const NOTIFICATION_SCHEMA_VERSION = 1;
export const NOTIFICATION_KINDS = ['focus.terminal', 'problem.decided', 'single_ticket.result'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const NOTIFICATION_ID = /^ntf-[0-9a-f]{24}$/;
const NotificationId = z.string().regex(NOTIFICATION_ID, 'must be ntf-<24 hex>');
const Text = (max: number) => z.string().max(max);
/** Tenants of the tickets behind the result ('' for a ticket no configured tenant owns). */
const Tenants = z.array(z.string().max(64)).max(10);
const Links = z.object({ html: z.string().startsWith('/').max(300), json: z.string().startsWith('/').max(300) }).strict();

const Envelope = {
  format: z.literal(NOTIFICATION_FORMAT),
  schemaVersion: z.literal(NOTIFICATION_SCHEMA_VERSION),
  notificationId: NotificationId,
  occurredAt: IsoDateTime,
  tenants: Tenants,
  /** Paths on the optimizer's HTTP API (relative: the receiver knows where the optimizer is served). */
  links: Links,
};

const FocusTerminal = z
  .object({
    ...Envelope,
    kind: z.literal('focus.terminal'),
    focus: z
      .object({
        focusId: z.string().min(1).max(64),
        signature: Text(200),
        status: z.enum(FOCUS_STATUSES).refine((s) => !STATUS_MEANING[s].holdsSlot, 'must be a final status'),
        outcome: z.enum(TRANSITION_OUTCOMES),
        /** Why the run ended there (bounded). */
        reason: Text(1000),
        /** What the status means (the state machine's words). */
        meaning: Text(300),
        problemStatement: Text(1000),
        blockingCriterionId: Text(64),
        targets: z.array(z.object({ ticketKey: TicketKey, ref: Text(128) }).strict()).max(10),
        controls: z.array(TicketKey).max(10),
        createdAt: IsoDateTime,
      })
      .strict(),
  })
  .strict();

const ProblemDecided = z
  .object({
    ...Envelope,
    kind: z.literal('problem.decided'),
    problem: z
      .object({
        recordId: z.string().regex(/^opt-[0-9a-f]{16}$/),
        focusId: z.string().min(1).max(64),
        attempt: z.number().int().min(1),
        ref: Text(128),
        ticketKey: TicketKey,
        signature: Text(200),
        statement: Text(500),
        status: z.enum(['optimized_verified', 'ineffective']),
        event: z.enum(PROBLEM_EVENTS),
        reason: Text(1000),
        /** The data version the record produces (deployed when decided). */
        dataVersion: Text(64),
        baseVersion: Text(64),
        /** The tunables the record moved: `<surface>` `<path>` `<pointer>`. */
        changes: z.array(z.object({ surface: Text(200), path: Text(300), pointer: Text(300) }).strict()).max(10),
        verification: z
          .object({ source: Text(32), executed: z.boolean(), blocking: Text(32).nullable(), leadingFamily: Text(64).nullable(), detail: Text(600) })
          .strict()
          .nullable(),
        decidedAt: IsoDateTime,
      })
      .strict(),
  })
  .strict();

const SingleTicketResult = z
  .object({
    ...Envelope,
    kind: z.literal('single_ticket.result'),
    job: z
      .object({
        jobId: z.string().min(1).max(128),
        ticketKey: TicketKey,
        /** A single-ticket job ends succeeded or failed; either is a terminal result. */
        status: z.enum(['succeeded', 'failed']),
        /** The job's own outcome code (e.g. `no_problem`, `optimized_verified`, `human_handoff`, a failure stage). */
        outcome: Text(100),
        reason: Text(1000),
        finishedAt: IsoDateTime,
      })
      .strict(),
  })
  .strict();

export const OptimizerNotification = z.discriminatedUnion('kind', [FocusTerminal, ProblemDecided, SingleTicketResult]);
export type OptimizerNotification = z.output<typeof OptimizerNotification>;
export type FocusTerminalNotification = z.output<typeof FocusTerminal>;
export type ProblemDecidedNotification = z.output<typeof ProblemDecided>;
export type SingleTicketResultNotification = z.output<typeof SingleTicketResult>;

/** The id of a result: the same kind and subject always give the same id. */
export function notificationIdOf(kind: NotificationKind, subject: string): string {
  return `ntf-${createHash('sha256').update(JSON.stringify([NOTIFICATION_FORMAT, kind, subject])).digest('hex').slice(0, 24)}`;
}

/** What a notification is about: the Focus, the record's problem, the job. */
export function subjectOf(n: OptimizerNotification): string {
  if (n.kind === 'focus.terminal') return n.focus.focusId;
  if (n.kind === 'problem.decided') return `${n.problem.recordId}/${n.problem.ref}`;
  return n.job.jobId;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** A Focus reached a final status through `outcome`. */
export function focusTerminalNotification(focus: Pick<FocusRow, 'focusId' | 'signature' | 'candidate' | 'tenants' | 'createdAt'>, to: FocusStatus, outcome: TransitionOutcome, reason: string, at: Date): FocusTerminalNotification {
  const c = focus.candidate;
  return FocusTerminal.parse({
    format: NOTIFICATION_FORMAT,
    schemaVersion: NOTIFICATION_SCHEMA_VERSION,
    notificationId: notificationIdOf('focus.terminal', focus.focusId),
    kind: 'focus.terminal',
    occurredAt: at.toISOString(),
    tenants: focus.tenants,
    links: { html: `/focuses/${encodeURIComponent(focus.focusId)}`, json: `/v1/focuses/${encodeURIComponent(focus.focusId)}` },
    focus: {
      focusId: focus.focusId,
      signature: clip(focus.signature, 200),
      status: to,
      outcome,
      reason: clip(reason, 1000),
      meaning: STATUS_MEANING[to].meaning,
      problemStatement: clip(c.problemStatement, 1000),
      blockingCriterionId: c.blockingCriterionId,
      targets: c.targets.map((t) => ({ ticketKey: t.ticketKey, ref: t.ref })),
      controls: c.controls.map((t) => t.ticketKey),
      createdAt: focus.createdAt,
    },
  });
}

/** A problem of a record was decided by its verification. */
export function problemDecidedNotification(record: OptimizationRecord, ref: string, to: 'optimized_verified' | 'ineffective', event: ProblemEvent, reason: string, evidence: VerificationEvidence | null, tenants: readonly string[], at: Date): ProblemDecidedNotification {
  const problem = record.problems.find((p) => p.ref === ref);
  if (!problem) throw new Error(`${ref} is not a problem of ${record.recordId}`);
  return ProblemDecided.parse({
    format: NOTIFICATION_FORMAT,
    schemaVersion: NOTIFICATION_SCHEMA_VERSION,
    notificationId: notificationIdOf('problem.decided', `${record.recordId}/${ref}`),
    kind: 'problem.decided',
    occurredAt: at.toISOString(),
    tenants: [...tenants],
    links: { html: `/optimization-records/${record.recordId}`, json: `/v1/optimization-records/${record.recordId}` },
    problem: {
      recordId: record.recordId,
      focusId: record.focus.focusId,
      attempt: record.focus.attempt,
      ref,
      ticketKey: problem.ticketKey,
      signature: problem.signature,
      statement: problem.statement,
      status: to,
      event,
      reason: clip(reason, 1000),
      dataVersion: record.data.dataVersion,
      baseVersion: record.data.baseVersion,
      changes: record.data.changes.map((ch) => ({ surface: ch.surface, path: ch.path, pointer: ch.pointer })),
      verification: evidence ? { source: evidence.source, executed: evidence.executed, blocking: evidence.blocking, leadingFamily: evidence.leadingFamily, detail: evidence.detail } : null,
      decidedAt: at.toISOString(),
    },
  });
}

/** A single-ticket job's terminal result (`succeeded`: concluded or optimized_verified; `failed`: failed or human_handoff). */
export function singleTicketResultNotification(job: SingleTicketResultNotification['job'], tenants: readonly string[], at: Date): SingleTicketResultNotification {
  return SingleTicketResult.parse({
    format: NOTIFICATION_FORMAT,
    schemaVersion: NOTIFICATION_SCHEMA_VERSION,
    notificationId: notificationIdOf('single_ticket.result', job.jobId),
    kind: 'single_ticket.result',
    occurredAt: at.toISOString(),
    tenants: [...tenants],
    links: { html: `/single-ticket/${encodeURIComponent(job.jobId)}`, json: `/v1/single-ticket-jobs/${encodeURIComponent(job.jobId)}` },
    job,
  });
}

/** The exact bytes sent (and signed): compact JSON of the parsed notification. */
export function notificationBody(n: OptimizerNotification): string {
  return JSON.stringify(OptimizerNotification.parse(n));
}
