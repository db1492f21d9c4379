import { createHash } from 'node:crypto';
import { MAX_MESSAGE_BYTES, type TimelineCommentV1 } from '@aoc/contracts';
import { clipMiddle, questionDigest, type SourceTimeline } from '@aoc/ticket-source';
import { timelineComments } from '../intake/ticket-intake.service';

/** The timeline a source read gives, as the topic carries it, and a digest of what can change. */
export interface TimelineSnapshot {
  comments: TimelineCommentV1[];
  /** sha256 of the title and description now. */
  questionDigest: string;
  /** sha256 over the question and each comment's id, role, visibility, times and body: an edited question or a new, edited, re-scoped or deleted comment changes it. */
  digest: string;
}

export function snapshotOf(timeline: SourceTimeline, visibleUntil: Date): TimelineSnapshot {
  const comments = timelineComments(timeline.comments, visibleUntil.getTime());
  const question = questionDigest(timeline.question);
  // The digest is over the source as read, so a change inside a clipped part is still a change.
  const basis = [question, ...comments.map((c) => [c.id, c.authorRole, c.visibility, c.createdAt, c.updatedAt, c.visibleToAi, c.body])];
  return { comments: fitTimeline(comments), questionDigest: question, digest: createHash('sha256').update(JSON.stringify(basis)).digest('hex') };
}

/** Room for the comments in one bus message, leaving the envelope, the other fields and the headers theirs. */
export const TIMELINE_COMMENT_BYTES = MAX_MESSAGE_BYTES - 16 * 1024;
/** A clipped body keeps at least this much of its head and tail. */
const MIN_BODY = 1000;

const bytesOf = (comments: readonly TimelineCommentV1[]) => Buffer.byteLength(JSON.stringify(comments), 'utf8');

/**
 * The comments cut to fit one bus message (a ticket with pasted logs must not stop collection):
 * the longest bodies are clipped first, to a cap halved until they fit (head and tail kept, the cut
 * marked); only then are the oldest comments without /ao feedback dropped. Every comment that
 * stays keeps its id, author, visibility and times, so bindings and references still resolve.
 */
export function fitTimeline(comments: readonly TimelineCommentV1[], maxBytes = TIMELINE_COMMENT_BYTES): TimelineCommentV1[] {
  let out = [...comments];
  for (let cap = 8000; bytesOf(out) > maxBytes && cap >= MIN_BODY; cap = Math.floor(cap / 2)) {
    out = out.map((c) => (c.body.length > cap ? { ...c, body: clipMiddle(c.body, cap, 'the timeline collector') } : c));
  }
  while (bytesOf(out) > maxBytes && out.length > 1) {
    const oldest = out.findIndex((c) => c.feedback === null);
    if (oldest < 0) break;
    out = [...out.slice(0, oldest), ...out.slice(oldest + 1)];
  }
  return out;
}

/** The next revision: above the last one published and never behind the clock (intake uses the clock too). */
export function nextRevision(last: number, now: Date): number {
  return Math.max(last + 1, now.getTime());
}
