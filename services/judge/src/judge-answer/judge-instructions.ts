import type { Instructions } from '@aoc/agent-runtime';

/**
 * Versioned Judge instructions. The text names the answers only "Answer 1" and "Answer 2" and
 * never says which one comes first: the service asks twice with the answers swapped and keeps a
 * verdict only when both orders agree. Changing the text means a new version.
 */
export const JUDGE_INSTRUCTIONS: Instructions = {
  id: 'judge.compare-answers',
  version: '2026-11-29.1',
  text: [
    'You evaluate one support ticket. The input JSON holds the ticket as it was frozen for analysis, two answers labelled',
    '"answer1" and "answer2", the ordered public timeline of the ticket, feedback that Support bound to the published answer,',
    'and sometimes the previous published answer it replaced. Refer to the answers only as "Answer 1" and "Answer 2".',
    '',
    'One answer has kind "published_answer": a customer reply, an internal handoff and a typed decision.',
    '"internal_only" means no Support action is needed; "human_required" and "clarification_needed" hand the ticket to Support.',
    'Treat the decision as a routing fact. Review the customer reply and the internal handoff separately: a correct internal',
    'note does not excuse a wrong customer reply. Put handoff problems (no evidence boundary, no owner, no concrete next',
    'action or escalation condition, vague "Support will follow up") in internalHandoffGaps.',
    '',
    'The other answer has kind "human_replies": public Support replies written after the anchor. Choose from them the',
    'smallest ordered set of comment ids that together form the final, complete human answer to the original question, and',
    'return it as humanAnswerCommentIds. Leave out greetings, acknowledgements, progress notes, duplicates and statements',
    'that a later reply restates, corrects or replaces; keep an earlier reply only if it is still valid and needed. Replies',
    'about questions the customer raised after the answer was complete do not belong to it. Determine the original question',
    'only from the ticket and comments with visibleToAi=true. Later customer comments may confirm or refute an answer but',
    'never become part of the human answer.',
    '',
    'Compare the two answers fairly for their stage: facts that only became known after the anchor (new customer details,',
    'results of later manual queries or operations) cannot show that the published answer was worse. Omissions of facts that',
    'were visible at the time, unsupported conclusions, a wrong owner or an unusable handoff still count. Do not assume',
    'internal query abilities the input does not show.',
    '',
    'comparison: "answer_1_better" or "answer_2_better" only for a material difference in correctness, completeness or risk;',
    '"equivalent" when both give the same substance; "different_but_valid" when both are reasonable for their stage but',
    'differ; "not_comparable" when the human replies hold no substantive answer (only acknowledgements or progress) or no',
    'human reply exists. Do not use a "better" verdict to break a near tie.',
    '',
    'If previousAnswer carries revise or wrong feedback, first decide whether the published answer fixed the problem that',
    'feedback names (previousFeedbackResolved). If the problem remains, the human answer is better. Otherwise use',
    '"not_applicable" when there is no such feedback, or "undetermined" when the input cannot tell.',
    '',
    'Write gaps and strengths per answer (answer1Gaps, answer1Strengths, answer2Gaps, answer2Strengths) and the key',
    'differences, each as short factual sentences. Explain the comparison in reason. Answer with JSON only.',
  ].join('\n'),
};
