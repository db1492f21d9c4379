/**
 * Data of the metamorphic relations (`metamorphic.ts`): the phrases the transformations write and
 * the cues they read. Kept apart from the transformation code so a new synonym or template is a
 * data change. English only, as the labelled set's human answers mostly are.
 */

/**
 * Meaning-preserving swaps applied to the human answer (regex source of a word or phrase,
 * replacement). One pass over all of them, so a replacement is never swapped again. Words that are
 * often identifiers or table names (customers, orders, events) and words whose sense depends on
 * their place ("each" after a count) are left out on purpose.
 */
export const SYNONYMS: readonly [string, string][] = [
  ['because', 'given that'],
  ['please', 'kindly'],
  ['recommend', 'advise'],
  ['suggest', 'propose'],
  ['kill', 'terminate'],
  ['large', 'big'],
  ['big', 'large'],
  ['every', 'each'],
  ['almost', 'nearly'],
  ['nearly', 'almost'],
  ['roughly', 'approximately'],
  ['about(?= ~?\\d)', 'around'],
  ['around(?= ~?\\d)', 'about'],
  ['reached', 'hit'],
  ['grew', 'increased'],
  ['started', 'began'],
  ['immediately', 'right away'],
  ['right away', 'immediately'],
  ['be enough', 'be sufficient'],
  ['application', 'app'],
  ['shows', 'indicates'],
  ['we see', 'we observe'],
  ['fixed', 'resolved'],
  ['raise', 'increase'],
  ['lower(?= )', 'reduce'],
  ['problem', 'issue'],
  ['problems', 'issues'],
  ['the whole', 'the entire'],
  ['is caused by', 'comes from'],
  ['cancel', 'abort'],
  ['find', 'identify'],
  ['right after', 'just after'],
  ['in the future', 'from now on'],
  ['so(?= (?:the|its|their|every|all|those|requests|replay|writes)\\b)', 'therefore'],
];

/** Text the transformations never rewrite: code blocks, code spans, quoted literals, assignments. */
export const PROTECTED = /```[\s\S]*?```|`[^`\n]*`|(?<=[\s(=])'[^'\n]*'|"[^"\n]*"|=\s*\S+/g;

/** Unit rewrites of the human answer: value in the first unit -> value in the second (factor), applicable in a range. */
export interface UnitRewrite {
  from: string;
  to: string;
  factor: number;
  /** Only values in [min, max] are rewritten (keeps the result readable). */
  min: number;
  max: number;
}
export const UNIT_REWRITES: readonly UnitRewrite[] = [
  { from: 'ms', to: 's', factor: 1 / 1000, min: 10, max: 100000 },
  { from: 's', to: 'ms', factor: 1000, min: 0.01, max: 120 },
  { from: 'seconds', to: 'ms', factor: 1000, min: 0.01, max: 120 },
  { from: 'GiB', to: 'TiB', factor: 1 / 1024, min: 100, max: 1e5 },
  { from: 'GiB', to: 'MiB', factor: 1024, min: 0.1, max: 100 },
  { from: 'MiB', to: 'GiB', factor: 1 / 1024, min: 256, max: 1e6 },
  { from: 'TiB', to: 'GiB', factor: 1024, min: 0.1, max: 100 },
  { from: 'GB', to: 'MB', factor: 1024, min: 0.1, max: 1000 },
  { from: 'MB', to: 'GB', factor: 1 / 1024, min: 256, max: 1e6 },
];

/** A percent that is a share of something ("95% of 1 TiB") reads the same as a fraction ("0.95 of 1 TiB"). */
export const SHARE_PERCENT = /(?<![\w.+-])(\d{1,2}(?:\.\d+)?)%(?=\s+of\b)/g;

/** Sentence openers that refer back or connect: a sentence starting so cannot be moved. */
export const ANAPHORIC_OPENER = /^(?:this|that|these|those|it|its|they|their|them|there|here|so|then|also|but|and|or|however|therefore|hence|which|once|after|before|afterwards|correction|update|sorry|yes|no|right|otherwise|either|both|such|the same|to fix)\b/i;

/** Sentences in which the reply reports its own work after the anchor (a manual query or an operation). */
export const MANUAL_SENTENCE = /^(?:we|i) (?:checked|ran|queried|looked at|pulled|inspected|restarted|killed|applied|changed|increased|raised|added)\b/i;

/** Where a ticket quotes the usual level: the number a target sentence returns to. */
export const USUAL_VALUE = /\b(?:usual(?:ly)?|normally|baseline|instead of|used to|before)\b[^.\n]{0,40}?((?:~|about |around )?\d+(?:\.\d+)?\s*(?:ms|s|%|GiB|MiB|TiB|GB|MB|qps|connections))\b|((?:~|about |around )?\d+(?:\.\d+)?\s*(?:ms|s|%|GiB|MiB|TiB|GB|MB|qps|connections))\b[^.\n]{0,20}?\b(?:usual(?:ly)?|normally|before)\b/i;
/** Any number with a unit in the ticket (restated as a symptom when no usual level is quoted). */
export const TICKET_VALUE = /(?<![\w.:-])(\d+(?:\.\d+)?\s*(?:ms|%|GiB|MiB|TiB|GB|MB|qps|connections))(?![\w])/i;

/** The incidental sentence added to the human answer: a target when the ticket quotes a usual level (`{value}`), else a restated symptom. */
export const SYMPTOM_SENTENCES: readonly string[] = ['As you reported, it was at {value}.', 'Thanks for reporting the {value} you saw.'];
export const TARGET_SENTENCES: readonly string[] = [
  'Once that is done it should go back to about {value}.',
  'After that you should be back to around {value}, as before.',
];

/** Progress-only replies inserted right after the anchor. */
export const PROGRESS_REPLIES: readonly string[] = [
  'Thanks for the details, we are looking into it.',
  'We are checking this with the team and will update you shortly.',
];

/** Where the human answer states its cause (the sentence a customer points back to). */
export const CAUSE_SENTENCE = /\b(?:because|due to|caused by|cause is|comes from|is too (?:small|large)|so (?:their|its|every|the)|blocks?|is waiting|was triggered|failed on|is failing|(?:is|was) full|these are|the reason)\b/i;
/** The published answer's cause line. */
export const AI_CAUSE_LINE = /^\s*(?:most likely cause|likely cause|root cause|probable cause|what we found)\s*:\s*(.+)$/im;
/** The handoff's leading mechanism (the cause when the customer reply has no cause line). */
export const AI_MECHANISM_LINE = /\*\*leading mechanism \(\w+\):\*\*\s*(.+)$/im;
/** The handoff's firm leading mechanism: a customer can refute only a cause the answer stood by. */
export const FIRM_MECHANISM = /\*\*leading mechanism \((?:strong|moderate)\):\*\*/i;

/** Customer follow-ups written by the refutation relations; `{cause}` is the other side's cause. */
export const REFUTES_AI = 'We tried the first suggestion and it did not help. The real cause was what Support said: {cause}';
export const REFUTES_HUMAN = "That did not help, it wasn't that. The real cause was what the first analysis said: {cause}";
/** Customer confirmations with evidence (issue 19 item 4): an outcome after acting on one side's cause. */
export const CONFIRMS_AI = 'The first analysis was right: {cause} After we acted on it everything is back to normal.';
export const CONFIRMS_HUMAN = 'Support was right: {cause} The fix worked and it has been stable since.';

/**
 * Reply-time relations: every instant of a case moved by the same amount (one is picked per case;
 * they cross a day, a month and a year boundary and are not whole hours), and every instant written
 * at another UTC offset (the same instants; half-hour and negative offsets included).
 */
export const TIME_SHIFTS_MS: readonly number[] = [
  ((9 * 24 + 6) * 60 + 41) * 60_000 + 13_000,
  ((37 * 24 + 17) * 60 + 5) * 60_000,
  -(((400 * 24 + 3) * 60 + 29) * 60_000),
];
export const UTC_OFFSETS_MINUTES: readonly number[] = [8 * 60, -5 * 60, 5 * 60 + 30, -(9 * 60 + 30), 14 * 60];
