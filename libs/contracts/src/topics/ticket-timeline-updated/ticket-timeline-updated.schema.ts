import { z } from 'zod';
import { IsoDateTime, TicketKey } from '../../common';
import { defineTopic } from '../../topic-definition';

export const FeedbackAction = z.enum(['accept', 'revise', 'wrong', 'human']);
export type FeedbackAction = z.infer<typeof FeedbackAction>;

export const TimelineCommentV1 = z.object({
  id: z.string().min(1).max(64),
  authorRole: z.enum(['customer', 'support', 'engineer', 'bot', 'unknown']),
  visibility: z.enum(['public', 'internal']),
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
  body: z.string().max(20000),
  visibleToAi: z.boolean().describe('False for comments the AI must not see (later than a cutoff, internal)'),
  feedback: z
    .object({ action: FeedbackAction, reason: z.string().max(4000) })
    .nullable()
    .describe('Parsed /ao feedback command when the comment carries a trusted one'),
});
export type TimelineCommentV1 = z.infer<typeof TimelineCommentV1>;

/** Comments one timeline revision carries at most (the latest ones). */
export const MAX_TIMELINE_COMMENTS = 500;

export const TicketTimelineUpdatedKeyV1 = TicketKey;
export const TicketTimelineUpdatedV1 = z.object({
  ticketKey: TicketKey,
  observedAt: IsoDateTime,
  revision: z.number().int().nonnegative().describe('Monotonic per ticket; consumers ignore older revisions'),
  comments: z.array(TimelineCommentV1).max(MAX_TIMELINE_COMMENTS),
  questionDigest: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional()
    .describe('sha256 of the ticket title and description as the source holds them at observedAt (an edit of either changes it); absent on revisions written before it was carried'),
});
export type TicketTimelineUpdatedV1 = z.infer<typeof TicketTimelineUpdatedV1>;

export const ticketTimelineUpdatedTopic = defineTopic({
  baseName: 'ticket.timeline-updated',
  version: 1,
  description: 'Ordered public and internal comments of a ticket with author roles and /ao feedback.',
  keyField: 'ticketKey',
  key: TicketTimelineUpdatedKeyV1,
  value: TicketTimelineUpdatedV1,
  producers: ['router'],
  consumers: ['judge', 'reporter', 'optimizer'],
});
