import { Decision, FeedbackAction, IsoDateTime, JudgeAbstentionCode, RunId, RunMode, RunTrigger, TicketKey } from '@aoc/contracts';
import { z } from 'zod';

/**
 * What the Judge model sees (`JudgeInputV1`) and what it must answer (`JudgeModelOutputV1`).
 *
 * The input holds the frozen ticket, both published messages with the typed decision, the
 * ordered public timeline (roles, `visibleToAi`), version-bound feedback and, for a write-mode
 * answer that replaced another version, the previous answer with its latest feedback. It never
 * holds execution state (evidence acquisition, provider status, failure codes, query attempts):
 * every object is strict, so such a field cannot slip in.
 *
 * The two answers are given as `answer1` and `answer2`; the caller decides which is which, so
 * the same call can be made in both orders (position-bias guard).
 */
const AuthorRole = z.enum(['customer', 'support', 'engineer', 'bot', 'unknown']);

export const JudgeTimelineCommentV1 = z.strictObject({
  id: z.string().min(1).max(64),
  authorRole: AuthorRole,
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
  body: z.string().max(20000),
  visibleToAi: z.boolean().describe('True when the comment was part of the input the automated answer could see'),
});
export type JudgeTimelineCommentV1 = z.infer<typeof JudgeTimelineCommentV1>;

export const JudgeFrozenTicketV1 = z.strictObject({
  key: TicketKey,
  title: z.string().max(500),
  description: z.string().max(50000),
  reporterRole: AuthorRole,
  createdAt: IsoDateTime,
  labels: z.array(z.string().max(64)).max(32),
  comments: z
    .array(z.strictObject({ id: z.string().min(1).max(64), authorRole: AuthorRole, createdAt: IsoDateTime, body: z.string().max(20000) }))
    .max(200)
    .describe('Comments frozen into the analysis input'),
});

export const PublishedAnswerV1 = z.strictObject({
  kind: z.literal('published_answer'),
  customerReplyMarkdown: z.string(),
  internalHandoffMarkdown: z.string(),
  decision: Decision,
  publishedAt: IsoDateTime,
  requestedContext: z.array(z.string().max(300)).max(5).default([]).describe('What the answer asked the customer for (its clarification request)'),
});
export type PublishedAnswerV1 = z.infer<typeof PublishedAnswerV1>;

export const HumanRepliesV1 = z.strictObject({
  kind: z.literal('human_replies'),
  comments: z.array(JudgeTimelineCommentV1).max(100).describe('Public Support replies after the anchor, oldest first; the judge picks the minimal set forming the answer'),
});
export type HumanRepliesV1 = z.infer<typeof HumanRepliesV1>;

export const LabelledAnswerV1 = z.discriminatedUnion('kind', [PublishedAnswerV1, HumanRepliesV1]);
export type LabelledAnswerV1 = z.infer<typeof LabelledAnswerV1>;

export const JudgeFeedbackV1 = z.strictObject({
  commentId: z.string().min(1).max(64),
  action: FeedbackAction,
  reason: z.string(),
  authorRole: z.string(),
  visibility: z.enum(['public', 'internal']),
  commentCreatedAt: z.string(),
  commentUpdatedAt: z.string(),
  inherited: z.boolean().describe('Bound to an earlier run of the same answer version'),
});
export type JudgeFeedbackV1 = z.infer<typeof JudgeFeedbackV1>;

export const PreviousAnswerV1 = z.strictObject({
  runId: RunId,
  publishedAt: IsoDateTime,
  customerReplyMarkdown: z.string(),
  internalHandoffMarkdown: z.string(),
  decision: Decision,
  latestFeedback: z.strictObject({ action: FeedbackAction, reason: z.string(), commentId: z.string() }).nullable(),
});
export type PreviousAnswerV1 = z.infer<typeof PreviousAnswerV1>;

export const JudgeInputV1 = z
  .strictObject({
    schema: z.literal('judge-input.v1'),
    ticket: JudgeFrozenTicketV1,
    run: z.strictObject({ runId: RunId, mode: RunMode, trigger: RunTrigger, cutoff: IsoDateTime.nullable() }),
    anchor: IsoDateTime.describe('Replay cutoff, else publication time: human replies after it form the human answer'),
    answer1: LabelledAnswerV1,
    answer2: LabelledAnswerV1,
    timeline: z.array(JudgeTimelineCommentV1).max(500).describe('Ordered public timeline without /ao commands'),
    internalNotes: z
      .array(JudgeTimelineCommentV1)
      .max(100)
      .default([])
      .describe('Internal Support notes after the anchor (not /ao): what Support learned by its own later work; never held against the published answer'),
    feedback: z.array(JudgeFeedbackV1).max(50).describe('/ao feedback bound to this answer version'),
    previousAnswer: PreviousAnswerV1.nullable().describe('Write-mode answer that replaced a different version: the version it replaced'),
  })
  .refine((i) => i.answer1.kind !== i.answer2.kind, { message: 'one answer must be the published answer and the other the human replies', path: ['answer2'] });
export type JudgeInputV1 = z.infer<typeof JudgeInputV1>;

export const Comparison = z.enum(['answer_1_better', 'answer_2_better', 'equivalent', 'different_but_valid', 'not_comparable']);
export type Comparison = z.infer<typeof Comparison>;

export const PreviousFeedbackResolution = z.enum(['resolved', 'unresolved', 'undetermined', 'not_applicable']);
export type PreviousFeedbackResolution = z.infer<typeof PreviousFeedbackResolution>;

/** Lenient on lengths on purpose: the service clamps lists and texts to the topic's limits. */
export const JudgeModelOutputV1 = z.strictObject({
  comparison: Comparison,
  reason: z.string().min(1),
  humanAnswerCommentIds: z.array(z.string()).describe('Minimal ordered comment ids (from the human replies) forming the final human answer'),
  answer1Gaps: z.array(z.string()),
  answer2Gaps: z.array(z.string()),
  answer1Strengths: z.array(z.string()),
  answer2Strengths: z.array(z.string()),
  keyDifferences: z.array(z.string()),
  internalHandoffGaps: z.array(z.string()),
  previousFeedbackResolved: PreviousFeedbackResolution,
  abstentionCode: JudgeAbstentionCode.nullable().describe('Why the comparison is not_comparable (null otherwise)'),
  feedbackContest: z
    .strictObject({
      commentId: z.string().describe('The /ao comment (feedback[].commentId or previousAnswer.latestFeedback.commentId) the timeline contests'),
      scope: z.enum(['this_version', 'previous_version']),
      evidenceCommentIds: z.array(z.string()).describe('Timeline comments whose explicit facts prove the feedback wrong'),
    })
    .nullable()
    .default(null)
    .describe('Explicit /ao feedback that facts in the timeline directly contradict (null when none)'),
});
export type JudgeModelOutputV1 = z.infer<typeof JudgeModelOutputV1>;
