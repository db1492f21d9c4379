/**
 * Rule data of the built-in judge (versioned; the engine in `rubric-judge.ts` and its helpers
 * read it). Phrases are English: a human answer in another language is left to the model judge.
 */
import type { RuleId } from './decide-comparison';

export const JUDGE_RULES_VERSION = 'judge-rules-v3';

/** Share of the human answer's fair facts the published answer must state to be equivalent. */
export const EQUIVALENT_COVERAGE = 0.6;

/** A reply that only reports progress, or hands the ticket on. */
export const PROGRESS = /\b(?:looking into|investigating|we are (?:checking|reviewing|working)|we(?:'ll| will) (?:check|update|get back|follow up|look)|escalat(?:ed|ing)|forwarded|working on (?:it|this)|bear with us|stay tuned|checking with|any update|keep you (?:posted|updated))\b/i;

/** A reply that only closes the ticket or says thanks. */
export const CLOSING = /\b(?:closing (?:this|the) ticket|clos(?:e|ing) (?:this|it) (?:out|now)|mark(?:ing|ed)? (?:this|it) (?:as )?(?:resolved|solved|closed)|feel free to reopen|glad (?:it|that|this) (?:helped|works)|thanks? (?:you )?for (?:confirming|your patience|the update)|you're welcome|resolved\.?$)/i;

/** Words of a diagnosis or a fix: a reply with them says something even without numbers. */
export const SUBSTANCE = /\b(?:cause[ds]?|because|due to|the reason|root cause|therefore|hence|which is why|that(?:'s| is) why|we found|we see|we observe|we noticed|we measured|shows?|showed|was (?:hitting|at|full|blocked|caused)|reached|hit the|exhausted|ran out|recommend|suggest|please (?:add|increase|raise|run|set|change|kill|reduce|enable)|you (?:can|should|need to)|fix(?:ed)?|workaround|mitigat\w*|resolved by|add(?:ing)? an index|increase|decrease)\b/i;

/** A reply that corrects or replaces what Support said before. */
export const CORRECTION = /\b(?:correction|to correct|i was wrong|we were wrong|scratch that|disregard (?:my|our|the) (?:previous|earlier|last)|ignore (?:my|our) (?:previous|earlier|last)|on closer (?:look|inspection)|turns out|it turned out|not what i said|my (?:earlier|previous) (?:guess|reply|comment|answer) was)\b/i;

/** A tentative reply: a later firm answer replaces it. */
export const HEDGE = /\b(?:might be|may be|maybe|possibly|perhaps|could be|i suspect|we suspect|my guess|first guess|not sure yet|likely (?:the|a) )/i;

/** A customer comment that asks something. */
export const QUESTION = /\?|\b(?:can you|could you|would you|how do (?:i|we)|what about|is there a way|also,? (?:we|i|can|could)|another question|one more (?:thing|question)|separately)\b/i;

/** Customer follow-ups after the human answer. */
export const SEPARATE_ISSUE = /\b(?:separate|unrelated|different|another|other) (?:issue|problem|incident|thing|matter|ticket)\b|\bnot related to (?:this|the original|our)/i;
/**
 * A confirmation: the customer says a diagnosis was right, or applied a step and reports the
 * outcome ("the fix worked", "after adding the index it's fine", "it was the backup job").
 */
export const CONFIRMS = new RegExp(
  [
    String.raw`\b(?:that (?:fixed|solved|resolved|was) it|confirmed?|confirming|(?:you|it|they|\w+ analysis|\w+ answer) (?:was|were) right|(?:was|is) indeed|that did it|works now|working (?:again|now)|(?:is|are|was|were|got|went) back to normal|back to normal (?:after|since)|problem (?:is )?gone|fixed (?:it|the issue)|solved (?:it|the issue))\b`,
    String.raw`\bthe (?:fix|change|workaround|suggestion|recommendation|new setting|new index|index|resize|restart) (?:worked|helped|did it|did the trick|solved it|fixed it)\b`,
    String.raw`\bafter (?:we |i )?(?:add|kill|cancel|resiz|rais|increas|lower|reduc|restart|drop|terminat|mov|set|appl|creat|purg|rebuil|batch|split|enabl|disabl|chang|switch|scal|act|follow|did)\w*\b[^.;!?]{0,80}?\b(?:caught up|recovered|went away|disappeared|stopped|came back|(?:it|everything|all|latency|lag|the \w+)(?:'s| (?:is|are|was|were|has been|stayed|runs|works)) (?:again )?(?:fine|ok|okay|good|normal|back|gone|stable|fast|quiet|green|current))\b`,
    String.raw`\b(?:so |and )?it was (?:indeed |really |actually )?the (?!same\b)\w+`,
  ].join('|'),
  'i',
);
export const REFUTES = /\b(?:did(?:n't| not)|does(?:n't| not)|has(?:n't| not)) (?:help|fix|solve|change)|\b(?:the )?(?:real|actual|true) (?:cause|reason|problem) (?:was|is)|\bturned out (?:to be|it was|the)|\bactually (?:it|the cause|the problem) (?:was|is)|\bwas(?:n't| not) (?:the|that|it)\b|\bthat(?:'s| is) not (?:it|the cause|right|correct)/i;

/** A clause of a follow-up that clears a component ("the network was fine"): its mechanisms are not the cause. */
export const EXONERATES = /\b(?:(?:was|is|were|are) (?:fine|ok|okay|healthy|innocent|not the (?:problem|cause|issue))|nothing wrong with|had nothing to do with|(?:was|were)(?:n't| not) (?:involved|the problem|the cause))\b/i;

/**
 * Which answer a follow-up sides with by naming its author rather than its mechanism: the human
 * Support answer, or the published (automated, first) analysis. It decides over mechanism overlap.
 */
export const FOLLOW_UP_SIDE = {
  human: /\b(?:as (?:support|your (?:colleague|engineer|dba)|the (?:engineer|dba)) (?:said|suggested|wrote)|(?:support|your (?:colleague|engineer|dba)|the (?:engineer|dba)) (?:was|were) right|what support said)\b/i,
  ai: /\b(?:as the (?:first|automated|initial|auto-?oncall) (?:answer|analysis|reply) (?:said|suggested)|the (?:first|automated|initial|auto-?oncall) (?:answer|analysis|reply) was right|what the (?:first|automated|initial|auto-?oncall) (?:answer|analysis|reply) said)\b/i,
};

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

/**
 * What a sentence of the human answer does with its facts (`bearing.ts`). Only a fact in a cause,
 * action or decision statement can ground `human_better`; a target to return to, a pleasantry or
 * a restated symptom never does.
 */
export const BEARING = {
  /** Clause-level: a level to return to or the usual value ("should return to about 40 ms"). */
  target: /\b(?:(?:should|will|would|to|can|must) (?:then )?(?:return|go back|come back|drop back|get back|fall back|recover|be back)|back (?:down |up )?to|return(?:s|ed)? to|usual(?:ly)?|normal (?:level|value|range)|as before|like before|baseline|previous level|used to be|expected (?:level|value))\b/i,
  /** Clause-level: a clause that starts by restoring a value is an action, not a target ("set it back to 24G"). */
  imperative: /^\s*(?:please\s+)?(?:set|raise|lower|restore|resize|reduce|increase|change|put|revert|roll back|move)\b/i,
  /** Clause-level: courtesy, no finding. */
  pleasantry: /\b(?:thanks?|thank you|hope (?:this|that|it) helps|let us know|feel free|happy to help|sorry|apolog\w*|regards|cheers|have a (?:nice|good|great))\b/i,
  /** Statement-level: the statement explains why. */
  cause: /\b(?:because|due to|caused? by|causes?|cause is|root cause|the reason|reason is|results? in|leads? to|led to|therefore|hence|which (?:means|leaves|explains|is why)|that(?:'s| is) (?:why|it)|comes? from|came from|triggered|starts? (?:right|just|shortly|soon) after|(?:right|just|shortly|soon) after|concentrat\w*|lands? on|is too (?:small|large|low|high|big)|not enough|exceed(?:s|ed)?|(?:hit|hits|reached|reaches) the (?:limit|maximum|max|cap|ceiling)|saturat\w*|exhaust\w*|so\b|blocks?|blocked|holds?|waits? (?:on|for)|no longer fits?|these are|this is)\b/i,
  /** Statement-level: the statement says what to do — an imperative at its start, or a modal recommendation anywhere. */
  action: /^\s*(?:please\s+|then\s+|so\s+|and\s+|or\s+|also\s+)?(?:set|raise|lower|increase|reduce|add|create|drop|kill|cancel|end|terminate|restart|resize|scale|split|cache|sort|retry|enable|disable|move|schedule|run|upgrade|put|cap|expand|tune|rewrite|batch|switch|spread|limit|use|avoid|stop|change|remove|delete)\b|\b(?:please (?:\w+)|you (?:can|should|need to|could|may want to)|we (?:can|will|could|recommend|suggest)|recommend|suggest|will (?:fix|help|resolve|remove)|(?:adding|creating|raising|lowering|setting|splitting|caching) .{1,60} will)\b/i,
  /** Clause-level: the human says a value stays as it is — it is not what to do. */
  unchanged: /\b(?:does(?:n't| not) need to (?:change|be changed|be raised|be increased)|no need to (?:change|touch|raise|increase)|need not (?:change|be changed)|can stay(?: as it is)?|is fine as it is|leave .{1,30} as (?:it is|is))\b/i,
  /** Statement-level: ownership, urgency or routing. */
  decision: /\b(?:escalat\w*|(?:on )?our side|(?:on )?your side|nothing to do|no action (?:is )?needed|no emergency|not urgent|urgent|hand(?:ed)? (?:it )?(?:over|to)|engineering team|platform team|we (?:have|are) (?:raised|raising|expanding|fixing|applied|applying))\b/i,
};

/**
 * Requests in `/ao` feedback ("name the statement and the table", "say which replica", "give the
 * time"): the reviewer asks for a kind of fact, so the check is whether the new version names such
 * a fact the previous version did not. `asked` is the noun after a request verb.
 */
export const REQUEST_VERB = /\b(?:name|names|naming|give|gives|say|says|state|states|tell|include|add|mention|identify|specify|show|list|quote|point (?:to|at)|which|what|missing|lacks?|without|no)\b/i;
export const REQUESTED_KINDS = {
  statement: /\b(?:statements?|quer(?:y|ies)|sql|digests?)\b/i,
  table: /\btables?\b/i,
  index: /\bindex(?:es)?\b/i,
  time: /\b(?:time|timestamp|when|hour|start(?:ed)? at)\b/i,
  replica: /\b(?:replicas?|standbys?|followers?)\b/i,
} as const;
export type RequestedKind = keyof typeof REQUESTED_KINDS;

/** What names a fact of each requested kind in an answer (`feedback-requests.ts`). */
export const NAMED = {
  statement: [/\bselect\b[^;\n]{1,200}?\bfrom\s+[`"]?[a-z_][\w.$]*/gi, /\bupdate\s+[`"]?[a-z_][\w.$]*[`"]?\s+set\b/gi, /\b(?:insert|replace)\s+into\s+[`"]?[a-z_][\w.$]*/gi, /\bdelete\s+from\s+[`"]?[a-z_][\w.$]*/gi, /\balter\s+table\s+[`"]?[a-z_][\w.$]*/gi, /\bdigest\s+`?[0-9a-f]{8,}/gi],
  table: [/\b(?:from|join|into|update|table)\s+`?([a-z_][\w$]*(?:\.[a-z_][\w$]*)?)`?(?![\w-])/gi, /`?([a-z_][\w$]*(?:\.[a-z_][\w$]*)?)`?\s+table\b/gi, /\bon\s+`?([a-z_][\w$]*)`?\s*\(\s*[a-z_]/gi],
  index: [/\bindex\s+(?:on\s+)?`?([a-z_][\w$]*(?:\s*\([a-z_][\w, ]*\))?)`?/gi, /`?([a-z_]*idx[\w$]*|[\w$]*_idx)`?/gi],
  replica: [/\b(?:replica|standby|follower)\s+`?([a-z0-9][\w-]*\d[\w-]*)`?/gi, /\b([a-z][\w-]*-(?:r|replica|standby|ro)-?\d+|r\d{1,2}|replica-?\d+)\b/gi],
} as const;

/** Words that are never the name of a table or an index ("the whole table", "from your app"). */
export const NOT_A_NAME = /^(?:the|a|an|this|that|these|those|whole|same|each|every|your|our|its|their|one|full|big|large|hot|temporary|temp|system|new|old|which|what|scan|lock|locks|statistics|memory|disk|primary|replica|source|level|usual|there|here|it|them|us|you|all|any|some|other|another|on|in|to|of|by|with|for|is|was|index|table|query|statement|store|node|host|instance|cluster|app|application|client|customer|support|workload|traffic|load)$/i;

/**
 * Verdict rules whose ground is the customer's own later word: explicit `/ao` feedback on the
 * judged version that they go against is recorded as contested (`feedback-contest.ts`). A complaint
 * (revise|wrong) is contested when the customer sided with the published answer; an accept when the
 * customer sided with the human against it. Ticket-value rules are not here: the feedback may be
 * about something else than that value.
 */
export const FEEDBACK_CONTESTED_BY: { complaint: readonly RuleId[]; accept: readonly RuleId[] } = {
  complaint: ['customer_confirms_ai', 'customer_refutes_human', 'separate_issue_ai'],
  accept: ['customer_refutes_ai', 'customer_confirms_human'],
};

/** A request to hand the ticket to a human. */
export const REQUEST_HUMAN = /\bhand (?:it |this |the ticket )?(?:over )?to (?:a )?(?:human|support|an engineer|someone)|\blet (?:a )?(?:human|support|an engineer) (?:handle|take|decide)/i;
