import type { FeedbackAction } from '@aoc/contracts';

export type { FeedbackAction } from '@aoc/contracts';

/** One /ao command: the action and everything the author wrote after it. */
export interface ParsedFeedback {
  action: FeedbackAction;
  reason: string;
}

/** A published answer version, as feedback binding needs it. */
export interface AnswerVersionRef {
  runId: string;
  /** Stored fingerprint (bare pair digest, or a prefixed legacy digest; see @aoc/answers). */
  answerFingerprint: string;
  /** ISO-8601 */
  publishedAt: string;
}

/** A trusted /ao comment bound, once and for good, to the answer version it evaluated. */
export interface FeedbackBinding {
  commentId: string;
  runId: string;
  answerFingerprint: string;
  action: FeedbackAction;
  reason: string;
  commentCreatedAt: string;
  commentUpdatedAt: string;
  authorRole: string;
  visibility: 'public' | 'internal';
}
