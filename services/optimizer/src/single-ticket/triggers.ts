import { createHash } from 'node:crypto';
import type { TimelineCommentV1 } from '@aoc/contracts';
import type { SignalKind } from '../collect-signals/signal-refs';

/**
 * What starts a single-ticket job: a stored problem signal taken from the optimizer-candidates
 * feed (a bound `/ao wrong|revise`, a `human_better` gap or difference, a runtime degradation), or
 * a `/ticket [description]` comment on the ticket. Either names its trigger ref, and the job id is
 * a digest of ticket and trigger ref, so a redelivered trigger is the same job.
 */

export type JobTrigger =
  | { kind: 'signal'; ref: string; signalKind: SignalKind; signature: string; statement: string; runId: string }
  | { kind: 'ticket_command'; commentId: string; description: string | null; at: string };

/** Longest `/ticket` description kept (a longer one is clipped, never refused). */
export const TICKET_DESCRIPTION_MAX = 500;

/** Only staff may start a job by comment; a customer's text is never a command. */
const COMMAND_AUTHORS: ReadonlySet<TimelineCommentV1['authorRole']> = new Set(['support', 'engineer']);

/**
 * The `/ticket` command of a comment body: its first non-empty line must be `/ticket` alone or
 * followed by whitespace and a description (case-insensitive). Returns the description (null when
 * none) or undefined when the body is not a command.
 */
export function parseTicketCommand(body: string): { description: string | null } | undefined {
  const first = body.split(/\r?\n/).find((line) => line.trim() !== '')?.trim() ?? '';
  const m = /^\/ticket(?:\s+(.*))?$/i.exec(first);
  if (!m) return undefined;
  const description = (m[1] ?? '').replace(/\s+/g, ' ').trim();
  return { description: description === '' ? null : description.slice(0, TICKET_DESCRIPTION_MAX) };
}

/** The `/ticket` commands among a timeline's comments, one per comment id. */
export function ticketCommands(comments: readonly TimelineCommentV1[]): Extract<JobTrigger, { kind: 'ticket_command' }>[] {
  return comments.flatMap((c) => {
    if (!COMMAND_AUTHORS.has(c.authorRole)) return [];
    const parsed = parseTicketCommand(c.body);
    return parsed ? [{ kind: 'ticket_command' as const, commentId: c.id, description: parsed.description, at: c.createdAt }] : [];
  });
}

/** The trigger's identity: the signal ref, or the comment. */
export const triggerRef = (t: JobTrigger): string => (t.kind === 'signal' ? t.ref : `comment:${t.commentId}`);

const hex = (parts: readonly unknown[], n: number) => createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, n);

/** `stj-<24 hex>`: the same ticket and trigger always give the same job. */
export const jobIdOf = (ticketKey: string, trigger: JobTrigger): string => `stj-${hex(['single_ticket', ticketKey, triggerRef(trigger)], 24)}`;

/** The problem ref a `/ticket` job's repair names (it has no signal ref of its own). */
export const commandRefOf = (jobId: string): string => `stj_${jobId.slice(4)}`;

/** The id of one trigger arrival (a joined trigger is kept under it). */
export const triggerIdOf = (ticketKey: string, trigger: JobTrigger): string => `trg-${hex([ticketKey, triggerRef(trigger)], 24)}`;
