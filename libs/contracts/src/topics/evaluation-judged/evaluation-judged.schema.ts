import { z } from 'zod';
import { IsoDateTime, JudgeAbstentionCode, RunId, Sha256Hex, TicketKey, Verdict } from '../../common';
import { defineTopic } from '../../topic-definition';
import { FeedbackAction } from '../ticket-timeline-updated/ticket-timeline-updated.schema';
import { JudgeEligibility, eligibilityFromAbstention } from './judge-eligibility';

export { JudgeEligibility, eligibilityFromAbstention } from './judge-eligibility';

/** The quality projection of a verdict. */
export function expectedQualityScore(verdict: Verdict): 0 | 1 | null {
  if (verdict === 'human_better') return 0;
  if (verdict === 'not_compared') return null;
  return 1;
}

/**
 * How a model judge's verdict compares with the verdict the built-in judge decided (and the Judge
 * published) on the same input. Codes only, no ticket text: it reaches the dashboard as it is.
 */
export const EvaluationCrossCheckV1 = z
  .object({
    engine: z.string().min(1).max(64).describe('The model judge that cross-checked (engine:model)'),
    verdict: Verdict.describe("The model judge's verdict on the same input (both answer orders)"),
    agrees: z
      .boolean()
      .nullable()
      .describe('true: the same verdict; false: a different verdict (a disagreement); null: the model abstained (not_compared), which is no disagreement'),
    reasonCode: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/, 'a reason code is a lower-case rule id')
      .nullable()
      .describe("The built-in judge's rule that decided the published verdict (e.g. ticket_value_ignored); null when not known"),
  })
  .refine((c) => (c.agrees === null) === (c.verdict === 'not_compared'), { message: 'agrees is null exactly when the model abstained', path: ['agrees'] })
  .describe("A model judge's cross-check of a built-in verdict");
export type EvaluationCrossCheckV1 = z.infer<typeof EvaluationCrossCheckV1>;

export const EvaluationJudgedKeyV1 = TicketKey;
export const EvaluationJudgedV1 = z.object({
  evaluationId: z.string().min(1).max(128).describe('One judgment: the answer version with the human replies and review requests it was judged against'),
  revision: z.number().int().min(1).default(1).describe('1, 2, ... per answer version (runId): a later human answer re-judges it; the highest revision is current'),
  supersedesEvaluationId: z.string().min(1).max(128).nullable().default(null).describe('The evaluation of the same answer version this revision replaces'),
  runId: RunId,
  ticketKey: TicketKey,
  answerFingerprint: Sha256Hex,
  judgedAt: IsoDateTime,
  judgeEngine: z.string().min(1).max(64),
  verdict: Verdict,
  abstentionCode: JudgeAbstentionCode.nullable().default(null).describe('Set exactly when verdict is not_compared (older revisions: null)'),
  verdictReason: z.string().max(2000),
  qualityScore: z.union([z.literal(0), z.literal(1), z.null()]).describe('1 for ai_better|equivalent|different_but_valid, 0 for human_better, null otherwise'),
  aiGaps: z.array(z.string().min(1).max(500)).max(20),
  keyDifferences: z.array(z.string().min(1).max(500)).max(20),
  aiStrengths: z.array(z.string().min(1).max(500)).max(20),
  internalHandoffGaps: z.array(z.string().min(1).max(500)).max(20),
  targetHumanCommentIds: z.array(z.string().min(1).max(64)).max(20),
  referenceComments: z
    .array(z.object({ id: z.string().min(1).max(64), createdAt: IsoDateTime, bodyDigest: Sha256Hex }))
    .max(20),
  humanAnswerMarkdown: z.string().max(20000).nullable(),
  // Optional (not defaulted in the schema) so payload literals written before the field still type-check;
  // readers take `eligibilityOf`, whose default for an older message is derived from its verdict and code.
  eligibility: JudgeEligibility.optional().describe('Why the answer version was or was not compared; absent on older messages (see eligibilityOf)'),
  feedbackContest: z
    .object({
      commentId: z.string().min(1).max(64).describe('The /ao comment whose action the timeline contests'),
      action: FeedbackAction,
      scope: z.enum(['this_version', 'previous_version']).describe('Feedback bound to the judged version, or the previous version\'s revise|wrong a write-mode answer had to fix'),
      evidenceCommentIds: z.array(z.string().min(1).max(64)).min(1).max(10).describe('Timeline comments whose facts contradict the feedback'),
    })
    .nullable()
    .optional()
    .describe('Explicit /ao feedback that facts in the timeline contest (the feedback still owns the quality projection); absent or null when none'),
  // Optional for the same reason as `eligibility`: messages written before the field parse unchanged.
  crossCheck: EvaluationCrossCheckV1.nullable()
    .optional()
    .describe(
      'A model judge cross-checked the verdict the built-in judge decided and published; null when a model judge is configured but nothing was cross-checked (the built-in judge abstained, or the model judged); absent without a model judge and on older messages',
    ),
})
  .refine((e) => e.verdict === 'not_compared' || e.abstentionCode === null, { message: 'abstentionCode is only set for not_compared', path: ['abstentionCode'] })
  .refine((e) => e.eligibility === undefined || (e.eligibility === 'compared') === (e.verdict !== 'not_compared'), {
    message: 'eligibility is compared exactly when a verdict was given',
    path: ['eligibility'],
  })
  .refine((e) => !e.crossCheck || e.verdict !== 'not_compared', { message: 'only a decided verdict is cross-checked', path: ['crossCheck'] })
  .refine((e) => !e.crossCheck || e.crossCheck.agrees === null || e.crossCheck.agrees === (e.crossCheck.verdict === e.verdict), {
    message: 'agrees says whether the model verdict equals the published verdict',
    path: ['crossCheck', 'agrees'],
  })
  .refine((e) => e.qualityScore === expectedQualityScore(e.verdict), {
  message: 'qualityScore must be 1 for ai_better|equivalent|different_but_valid, 0 for human_better, null for not_compared',
  path: ['qualityScore'],
});
export type EvaluationJudgedV1 = z.infer<typeof EvaluationJudgedV1>;

/** The evaluation's eligibility; for a message written before the field, derived from its verdict and abstention code. */
export function eligibilityOf(e: Pick<EvaluationJudgedV1, 'verdict' | 'abstentionCode' | 'eligibility'>): JudgeEligibility {
  return e.eligibility ?? eligibilityFromAbstention(e.verdict, e.abstentionCode);
}

export const evaluationJudgedTopic = defineTopic({
  baseName: 'evaluation.judged',
  version: 1,
  description: 'Judge verdict of a published answer version against the later human answer.',
  keyField: 'ticketKey',
  key: EvaluationJudgedKeyV1,
  value: EvaluationJudgedV1,
  producers: ['judge'],
  consumers: ['reporter', 'optimizer'],
});
