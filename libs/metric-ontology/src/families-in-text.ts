import { METRIC_FAMILIES } from './ontology';
import type { MetricFamilyId } from './ontology-schema';

export interface FamilyMention {
  family: MetricFamilyId;
  /** The family's own words (as listed in the ontology) found in the text, in order of first occurrence. */
  words: string[];
  /** Character offset of the family's first match. */
  index: number;
}

interface FamilyMatcher {
  readonly family: MetricFamilyId;
  /** One group per word, longest word first, so the group number says which word matched. */
  readonly re: RegExp;
  readonly words: readonly string[];
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** White space or a hyphen between the parts of a phrase: "out-of-memory" is "out of memory". */
const phraseSource = (word: string): string => word.split(/[\s-]+/).map(escapeRegex).join('[\\s-]+');

const MATCHERS: readonly FamilyMatcher[] = METRIC_FAMILIES.filter((f) => f.words.length > 0).map((f) => {
  const words = [...new Set(f.words)].sort((a, b) => b.length - a.length);
  const alternatives = words.map((w) => `(${phraseSource(w)})`).join('|');
  // Letters, digits and `_` bound a word, so "lock" is not found in "block" nor "wal" in "max_wal_size".
  // An optional plural ending lets "deadlock" find "deadlocks" and "crash" find "crashes".
  const re = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives})(?:s|es)?(?![\\p{L}\\p{N}_])`, 'giu');
  return { family: f.id, re, words };
});

/**
 * Families whose words occur in the text as whole words or phrases, case-insensitive, ordered by
 * first occurrence (ties in ontology order). Each family is matched on its own, so a phrase never
 * hides the words of another family inside it: "disk latency" is io_latency and also
 * statement_latency (for "latency"). Within one family the longest word at a place wins:
 * "too many connections" reports that phrase, not also "connection". Pure word matching;
 * negation ("no deadlocks") is for callers.
 */
export function familiesInText(text: string): FamilyMention[] {
  const input = typeof text === 'string' ? text : '';
  const mentions: FamilyMention[] = [];
  for (const m of MATCHERS) {
    const found: string[] = [];
    let index = -1;
    m.re.lastIndex = 0;
    for (let hit = m.re.exec(input); hit; hit = m.re.exec(input)) {
      if (index < 0) index = hit.index;
      const word = m.words[hit.slice(1).findIndex((g) => g !== undefined)];
      if (word !== undefined && !found.includes(word)) found.push(word);
    }
    if (index >= 0) mentions.push({ family: m.family, words: found, index });
  }
  // Array.prototype.sort is stable, so equal offsets keep ontology order.
  return mentions.sort((a, b) => a.index - b.index);
}

/**
 * The family a text names first; where two start at the same place ("lock waits" is locks and
 * lock_waits), the one with the longer phrase, the more specific. Null when it names none.
 */
export function firstFamilyInText(text: string): MetricFamilyId | null {
  const [first] = familiesInText(text).sort((a, b) => a.index - b.index || b.words.join(' ').length - a.words.join(' ').length);
  return first?.family ?? null;
}
