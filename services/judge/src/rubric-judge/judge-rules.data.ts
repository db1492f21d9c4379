/**
 * Rule data of the built-in judge (versioned; the engine in `rubric-judge.ts` and its helpers
 * read it). Phrases are English: a human answer in another language is left to the model judge.
 */
export const JUDGE_RULES_VERSION = 'judge-rules-v1';

/** Share of the human answer's fair facts the published answer must state to be equivalent. */
export const EQUIVALENT_COVERAGE = 0.6;

/** A reply that only reports progress, or hands the ticket on. */
export const PROGRESS = /\b(?:looking into|investigating|we are (?:checking|reviewing|working)|we(?:'ll| will) (?:check|update|get back|follow up|look)|escalat(?:ed|ing)|forwarded|working on (?:it|this)|bear with us|stay tuned|checking with|any update|keep you (?:posted|updated))\b/i;

/** A reply that only closes the ticket or says thanks. */
export const CLOSING = /\b(?:closing (?:this|the) ticket|clos(?:e|ing) (?:this|it) (?:out|now)|mark(?:ing|ed)? (?:this|it) (?:as )?(?:resolved|solved|closed)|feel free to reopen|glad (?:it|that|this) (?:helped|works)|thanks? (?:you )?for (?:confirming|your patience|the update)|you're welcome|resolved\.?$)/i;

/** Words of a diagnosis or a fix: a reply with them says something even without numbers. */
export const SUBSTANCE = /\b(?:cause[ds]?|because|due to|the reason|root cause|we found|we see|shows?|showed|was (?:hitting|at|full|blocked|caused)|reached|hit the|exhausted|ran out|recommend|suggest|please (?:add|increase|raise|run|set|change|kill|reduce|enable)|you (?:can|should|need to)|fix(?:ed)?|workaround|mitigat\w*|resolved by|add(?:ing)? an index|increase|decrease)\b/i;

/** A reply that corrects or replaces what Support said before. */
export const CORRECTION = /\b(?:correction|to correct|i was wrong|we were wrong|scratch that|disregard (?:my|our|the) (?:previous|earlier|last)|ignore (?:my|our) (?:previous|earlier|last)|on closer (?:look|inspection)|turns out|it turned out|not what i said|my (?:earlier|previous) (?:guess|reply|comment|answer) was)\b/i;

/** A tentative reply: a later firm answer replaces it. */
export const HEDGE = /\b(?:might be|may be|maybe|possibly|perhaps|could be|i suspect|we suspect|my guess|first guess|not sure yet|likely (?:the|a) )/i;

/** A customer comment that asks something. */
export const QUESTION = /\?|\b(?:can you|could you|would you|how do (?:i|we)|what about|is there a way|also,? (?:we|i|can|could)|another question|one more (?:thing|question)|separately)\b/i;

/** Customer follow-ups after the human answer. */
export const SEPARATE_ISSUE = /\b(?:separate|unrelated|different|another|other) (?:issue|problem|incident|thing|matter|ticket)\b|\bnot related to (?:this|the original|our)/i;
export const CONFIRMS = /\b(?:that (?:fixed|solved|resolved|was) it|confirmed?|confirming|you were right|(?:was|is) indeed|that did it|works now|working (?:again|now)|back to normal (?:after|since)|problem (?:is )?gone|fixed (?:it|the issue)|solved (?:it|the issue))\b/i;
export const REFUTES = /\b(?:did(?:n't| not)|does(?:n't| not)|has(?:n't| not)) (?:help|fix|solve|change)|\b(?:the )?(?:real|actual|true) (?:cause|reason|problem) (?:was|is)|\bturned out (?:to be|it was|the)|\bactually (?:it|the cause|the problem) (?:was|is)|\bwas(?:n't| not) (?:the|that|it)\b|\bthat(?:'s| is) not (?:it|the cause)/i;

/** Sentences of a human reply that report a manual query or an operation done after the anchor. */
export const MANUAL_WORK = /\b(?:i|we) (?:ran|queried|checked|looked at|pulled|inspected|restarted|killed|applied|changed|increased|raised|added)\b|\bafter (?:checking|querying|looking)\b|\bour (?:internal|backend|side)\b|\b(?:the )?(?:slow ?log|error log|audit log|processlist|pg_stat_activity|query) (?:shows|showed|returned)\b/i;

/** Statements of the published answer that it could not determine the cause. */
export const UNDETERMINED = /\b(?:could not|cannot|can't|unable to) (?:confirm|determine|tell|find)|\bnot determined\b|\bundetermined\b|\bstill to confirm\b|\bnot yet (?:known|confirmed)\b/i;

/** A risk the published answer names (what happens next if nothing is done). */
export const RISK = /\b(?:risk|will (?:run out|fill|be full|reach|exhaust|fail|stop)|at this rate|before it (?:reaches|runs out)|data loss|could (?:lose|crash|fail)|outage|would (?:fill|run out|exhaust))\b/i;

/** Verbs of a concrete next action in the handoff. */
export const ACTION_VERB = /\b(?:query|queries|check|run|verify|inspect|compare|collect|retry|re-run|rerun|escalate|ask|read|open|review|confirm|measure|look up|pull|export|restart|apply|add|find|kill|raise|increase|cap|move)\b/i;

/** Feedback reasons: what the reviewer wants changed. */
export const FEEDBACK = {
  /** "the limit is 500, not 200" / "should say 500 instead of 200". */
  corrected: /(.{0,80}?)\b(?:not|instead of|rather than)\b\s*(.{1,80})/i,
  /** "remove the claim about X" / "X is wrong" / "don't say X". */
  removed: /\b(?:remove|drop|delete|don't (?:say|claim|mention)|do not (?:say|claim|mention)|no evidence for|unsupported claim(?: about)?|wrong(?:ly)? (?:claims?|says?|states?))\b\s*(?:the )?(?:claim (?:about|that) )?(.{2,80})/i,
  /** "missing X" / "should mention X" / "add X". */
  added: /(?:\b(?:missing|should (?:mention|include|say|name|state)|must (?:mention|include|say|name|state)|did(?:n't| not) (?:mention|include|name|say))|(?:^|[;:.]\s*)(?:add|name|mention|include|state|say))\b\s*(?:the )?(.{2,80})/i,
  /** The answer skipped a human who had to act. */
  bypassedHuman: /\b(?:bypass(?:ed|es|ing)?|skipp(?:ed|ing)|without) (?:a |the )?(?:human|support|engineer|review)|\bshould (?:have )?(?:gone|go|been handed|be handed) to (?:a )?(?:human|support|an engineer)|\bneeds? (?:a )?(?:human|support|manual) (?:review|action|follow-?up)|\bnot internal[_ ]only\b|\bshould (?:be|have been) human[_ ]required\b/i,
  /** The answer sent to Support what needed nobody. */
  neededNoHuman: /\bshould (?:be|have been) internal[_ ]only\b|\bno (?:need for|human|support) (?:action|needed|follow-?up)\b/i,
};
