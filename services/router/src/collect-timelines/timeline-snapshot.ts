import { createHash } from 'node:crypto';
import type { TimelineCommentV1 } from '@aoc/contracts';
import { questionDigest, type SourceTimeline } from '@aoc/ticket-source';
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
  const basis = [question, ...comments.map((c) => [c.id, c.authorRole, c.visibility, c.createdAt, c.updatedAt, c.visibleToAi, c.body])];
  return { comments, questionDigest: question, digest: createHash('sha256').update(JSON.stringify(basis)).digest('hex') };
}

/** The next revision: above the last one published and never behind the clock (intake uses the clock too). */
export function nextRevision(last: number, now: Date): number {
  return Math.max(last + 1, now.getTime());
}
