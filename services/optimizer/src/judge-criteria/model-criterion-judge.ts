import type { Instructions, ModelPort } from '@aoc/agent-runtime';
import { z } from 'zod';
import { judgeCriterion, withExecutionGuards, type CaseJudgement, type Criterion, type CriterionResult, type ExecutionState, type JudgedAnswer } from './criterion-judge';

/**
 * Free-text criteria through the OpenAI-compatible judge: the model reads the criterion and the
 * two published messages only (never execution state) and answers met, gap or inconclusive with a
 * reason. Typed criteria keep their deterministic checks.
 */
export const CRITERION_INSTRUCTIONS: Instructions = {
  id: 'optimizer-criterion-judge',
  version: '2026-12-01.1',
  text: [
    'You check one acceptance criterion against a published answer to a database incident ticket.',
    'Input: the criterion text, the customer reply and the internal handoff. Judge only what the two messages say.',
    'Answer met when the messages clearly satisfy the criterion, gap when they clearly do not, inconclusive when the messages do not let you decide. Give a one-sentence reason quoting the deciding words.',
  ].join('\n'),
};

const Verdict = z.object({ status: z.enum(['met', 'gap', 'inconclusive']), reason: z.string().min(1).max(300) });

export type FreeTextJudge = (criterion: Extract<Criterion, { kind: 'free_text' }>, answer: JudgedAnswer) => Promise<CriterionResult>;

export function modelFreeTextJudge(model: ModelPort): FreeTextJudge {
  return async (criterion, answer) => {
    const out = await model.invoke({
      role: 'judge',
      instructions: CRITERION_INSTRUCTIONS,
      input: { criterion: criterion.text, customerReplyMarkdown: answer.customerReplyMarkdown, internalHandoffMarkdown: answer.internalHandoffMarkdown },
      output: Verdict,
    });
    return { criterionId: criterion.id, status: out.output.status, reason: out.output.reason };
  };
}

/** A case judged with the model for free-text criteria; a model failure leaves that criterion inconclusive. */
export async function judgeCaseWithModel(caseId: string, criteria: readonly Criterion[], answer: JudgedAnswer, state: ExecutionState, freeText: FreeTextJudge): Promise<CaseJudgement> {
  const results: CriterionResult[] = [];
  for (const c of criteria) {
    const typed = judgeCriterion(c, answer);
    if (c.kind !== 'free_text' || typed.status === 'not_applicable') {
      results.push(typed);
      continue;
    }
    try {
      results.push(await freeText(c, answer));
    } catch (error) {
      results.push({ criterionId: c.id, status: 'inconclusive', reason: `the model judge failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300) });
    }
  }
  return { caseId, results: withExecutionGuards(results, criteria, state) };
}
