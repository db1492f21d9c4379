/**
 * Signal matching v1: a scenario signal matches a ticket only as whole words (a trailing `*` makes
 * it a prefix: `saturat*` matches "saturated"), and never where the ticket denies it ("no errors",
 * "not slow", "without failures", "non-replication user", "errors: none").
 */
export const SIGNAL_MATCH_VERSION = 'signals-v2';

/** Words that deny what follows them within the same clause. */
const NEGATORS = new Set(['no', 'not', 'without', 'never', 'none', 'nor', 'zero', 'neither', 'free', 'absent', "isn't", "aren't", "wasn't", "weren't", "didn't", "doesn't", "don't", "haven't", "hasn't", "won't", 'cannot', 'isnt', 'arent', 'wasnt', 'werent', 'didnt', 'doesnt', 'dont']);
/** Words that may sit between a negator and the signal ("no new errors", "not really slow"). */
const FILLERS = new Set(['a', 'an', 'the', 'any', 'new', 'more', 'other', 'real', 'really', 'obvious', 'significant', 'signs', 'sign', 'of', 'visible', 'major', 'such', 'further', 'recent', 'seen', 'reported', 'been', 'be', 'being', 'very', 'too', 'that', 'so', 'much', 'many', 'big', 'serious', 'unusual']);
/** Negators that follow what they deny ("errors: none", "lag: 0"). */
const TRAILING_NEGATION = /^\s*[:=]?\s*(?:none|0|zero|n\/a|nil)\b/i;
/** A comma ends the clause too: "no deploy today, slow queries since 10:40" denies only the deploy. */
const CLAUSE_BREAK = /[.,;!?\n]|\b(?:but|however|although|though|yet|except|and then|while)\b/i;
/** Negators that open an idiom, not a denial ("no idea why", "not only"). */
const IDIOMS = new Set(['idea', 'clue', 'doubt', 'sure', 'only', 'matter', 'just', 'certain']);
/** A negator denies the signal when at most this many other words stand between them. */
const MAX_DISTANCE = 2;

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A compiled signal: whole words, `*` at the end for a prefix, spaces matching any run of spaces or hyphens. */
function signalPattern(signal: string): RegExp {
  const prefix = signal.endsWith('*');
  const body = escape(prefix ? signal.slice(0, -1) : signal).replace(/\s+/g, '[\\s-]+');
  return new RegExp(`(?<![A-Za-z0-9_])${body}${prefix ? '[A-Za-z0-9_]*' : '(?![A-Za-z0-9_])'}`, 'gi');
}

const cache = new Map<string, RegExp>();
const patternOf = (signal: string) => {
  let p = cache.get(signal);
  if (!p) cache.set(signal, (p = signalPattern(signal)));
  p.lastIndex = 0;
  return p;
};

/** True when the words just before `index` (in the same clause) deny it, or "non-"/"un-" is glued to it. */
export function isNegated(text: string, index: number, length: number): boolean {
  const before = text.slice(Math.max(0, index - 80), index);
  if (/\bnon-?$/i.test(before)) return true;
  const clause = before.split(CLAUSE_BREAK).pop() ?? '';
  const words = clause.toLowerCase().match(/[a-z']+/g) ?? [];
  for (let i = words.length - 1, skipped = 0; i >= 0 && skipped <= MAX_DISTANCE; i--) {
    const w = words[i].replace(/'$/, '');
    if (NEGATORS.has(w)) return !IDIOMS.has(words[i + 1] ?? '');
    if (!FILLERS.has(w)) skipped++;
  }
  return TRAILING_NEGATION.test(text.slice(index + length, index + length + 12));
}

/** The signals that occur in the text at least once without being denied, in signal order. */
export function matchSignals(text: string, signals: readonly string[]): string[] {
  return signals.filter((signal) => {
    for (const m of text.matchAll(patternOf(signal))) if (!isNegated(text, m.index, m[0].length)) return true;
    return false;
  });
}

/** Whether the signal occurs in the text as a whole word or prefix, denied or not (for asking what a word list already covers). */
export function signalOccurs(text: string, signal: string): boolean {
  return patternOf(signal).test(text);
}
