import { z } from 'zod';
import { IsoDateTime, JudgeAbstentionCode, RunId, Sha256Hex, TicketKey, Verdict } from '../../common';
import { defineTopic } from '../../topic-definition';

/** The quality projection of a verdict. */
export function expectedQualityScore(verdict: Verdict): 0 | 1 | null {
  if (verdict === 'human_better') return 0;
  if (verdict === 'not_compared') return null;
  return 1;
}

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
})
  .refine((e) => e.verdict === 'not_compared' || e.abstentionCode === null, { message: 'abstentionCode is only set for not_compared', path: ['abstentionCode'] })
  .refine((e) => e.qualityScore === expectedQualityScore(e.verdict), {
  message: 'qualityScore must be 1 for ai_better|equivalent|different_but_valid, 0 for human_better, null for not_compared',
  path: ['qualityScore'],
});
export type EvaluationJudgedV1 = z.infer<typeof EvaluationJudgedV1>;

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
