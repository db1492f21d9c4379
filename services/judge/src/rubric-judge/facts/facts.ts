import { familiesInText, familyLabel } from '@aoc/metric-ontology';
import { NEGATIONS, SYNONYMS, TERMS, TOLERANCE, ZONES } from './judge-vocabulary.data';
import { quantities, type Quantity } from './quantities';

/**
 * Facts of a text as the built-in judge compares them: quantities (unit-aware, with tolerance),
 * clock times (normalised to UTC), identifiers (names with digits, `_`, `.`, `()`, code spans)
 * and technical terms (metric families from the ontology plus the domain vocabulary; a
 * multi-word term keeps its parts). A term right after a negation is its own, negated claim.
 */
export type FactKind = 'quantity' | 'time' | 'identifier' | 'term';

export interface Fact {
  kind: FactKind;
  /** Stable key; for quantities and times a coarse one (matching uses `quantity`/`minutes`). */
  key: string;
  /** How it is shown in gaps and reasons. */
  display: string;
  quantity?: Quantity;
  /** Minutes after midnight UTC. */
  minutes?: number;
  negated?: boolean;
}

const TERM_PATTERNS = TERMS.map((t) => ({ term: t, re: new RegExp(`(?<![\\p{L}\\p{N}_])${t.replace(/ /g, '[\\s-]+')}(?:e?s)?(?![\\p{L}\\p{N}_])`, 'giu') }));
const SYNONYM_PATTERNS = SYNONYMS.map(([source, to]) => [new RegExp(source, 'gi'), to] as const);

function fold(text: string): string {
  let out = text.toLowerCase();
  for (const [re, to] of SYNONYM_PATTERNS) out = out.replace(re, to);
  return out;
}

const negatedAt = (text: string, index: number) => NEGATIONS.test(text.slice(Math.max(0, index - 28), index).split(/[.;,\n]/).pop() ?? '');

function termFacts(text: string): Fact[] {
  const folded = fold(text);
  const out: Fact[] = [];
  const add = (name: string, display: string, index: number) => {
    const negated = negatedAt(folded, index);
    out.push({ kind: 'term', key: `${negated ? 'not:' : ''}${name}`, display: `${negated ? 'not ' : ''}${display}`, negated });
  };
  for (const mention of familiesInText(folded)) add(`family:${mention.family}`, familyLabel(mention.family), mention.index);
  // Every mention counts: "without an index ... add an index" states both claims, in any order.
  for (const { term, re } of TERM_PATTERNS) for (const hit of folded.matchAll(re)) add(`term:${term}`, term, hit.index);
  return out;
}

function timeFacts(text: string): Fact[] {
  const out: Fact[] = [];
  const re = /(?<![\d:.])(\d{4}-\d{2}-\d{2}[t ])?([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d(?:\.\d+)?)?\s*(am|pm)?\s*(z\b|utc|gmt|[+-]\d{2}:?\d{2}|\(?utc\s*[+-]\s*\d{1,2}(?::?\d{2})?\)?|[a-z]{2,4}\b)?/gi;
  for (const m of text.matchAll(re)) {
    let hours = Number(m[2]);
    const minutes = Number(m[3]);
    const meridiem = m[4]?.toLowerCase();
    if (meridiem === 'pm' && hours < 12) hours += 12;
    if (meridiem === 'am' && hours === 12) hours = 0;
    const zone = (m[5] ?? '').toLowerCase().replace(/[()\s]/g, '');
    let offset = 0;
    const numeric = /^(?:utc)?([+-])(\d{1,2}):?(\d{2})?$/.exec(zone);
    if (numeric) offset = (numeric[1] === '-' ? -1 : 1) * (Number(numeric[2]) * 60 + Number(numeric[3] ?? 0));
    else if (zone in ZONES) offset = ZONES[zone];
    const utc = (((hours * 60 + minutes - offset) % 1440) + 1440) % 1440;
    const hh = String(Math.floor(utc / 60)).padStart(2, '0');
    const mm = String(utc % 60).padStart(2, '0');
    out.push({ kind: 'time', key: `time:${hh}:${mm}`, display: `${hh}:${mm} UTC`, minutes: utc });
  }
  return out;
}

function identifierFacts(raw: string): Fact[] {
  const found: string[] = [];
  for (const m of raw.matchAll(/`([^`\n]{2,80})`/g)) found.push(m[1].trim().toLowerCase());
  const text = raw.toLowerCase();
  for (const m of text.matchAll(/\b([a-z_][a-z0-9_.]*)\(([a-z0-9_, ]{1,80})\)/g)) found.push(`${m[1]}(${m[2].replace(/\s+/g, '')})`);
  for (const m of text.matchAll(/[a-z0-9][a-z0-9_.:/-]*[a-z0-9]/g)) {
    const token = m[0].replace(/[.:]+$/, '');
    if (/^\d+(?:[.:,]\d+)*$/.test(token) || /^\d+(?:\.\d+)?[a-z%]+$/.test(token) || /^(?:https?|www)/.test(token)) continue;
    if (/^p\d{2,3}$/.test(token)) continue; // percentiles are terms of latency, not names
    const mixed = /\d/.test(token) && /[a-z]/.test(token);
    const compound = /[a-z][_.][a-z0-9]|[a-z0-9]-[a-z0-9].*-/.test(token);
    if (mixed || compound) found.push(token);
  }
  const unique = [...new Set(found)];
  // A name inside a longer one (`created_at` in `orders(created_at)`) is the same fact.
  return unique.filter((id) => !unique.some((o) => o !== id && o.includes(id))).map((id) => ({ kind: 'identifier' as const, key: `id:${id}`, display: id }));
}

function quantityKey(q: Quantity): string {
  return `q:${q.dimension}:${Number(q.value.toPrecision(3))}`;
}

const FORMAT: Record<Quantity['dimension'], (v: number) => string> = {
  duration: (v) => (v >= 1000 ? `${Number((v / 1000).toPrecision(4))} s` : `${Number(v.toPrecision(4))} ms`),
  percent: (v) => `${v}%`,
  change: (v) => `x${Number(v.toPrecision(3))}`,
  bytes: (v) => `${Number((v / 1024 ** 3).toPrecision(3))} GiB`,
  rate: (v) => `${v}/s`,
  count: (v) => `${v}`,
  number: (v) => `${v}`,
};

/** Distinct facts of a text: quantities, times, identifiers, terms, in that order. */
export function factsOf(text: string): Fact[] {
  const input = typeof text === 'string' ? text : '';
  const all: Fact[] = [
    ...quantities(input).map((q) => ({ kind: 'quantity' as const, key: quantityKey(q), display: q.raw.length > 0 ? q.raw : FORMAT[q.dimension](q.value), quantity: q })),
    ...timeFacts(input),
    ...identifierFacts(input),
    ...termFacts(input),
  ];
  const seen = new Set<string>();
  return all.filter((f) => (seen.has(f.key) ? false : (seen.add(f.key), true)));
}

function closeEnough(a: Quantity, b: Quantity): boolean {
  const numeric = (d: Quantity['dimension']) => d === 'count' || d === 'number';
  if (a.dimension !== b.dimension && !(numeric(a.dimension) && numeric(b.dimension))) return false;
  const tolerance = a.approximate || b.approximate ? TOLERANCE.approximate : TOLERANCE.relative;
  if (a.dimension === 'percent' && Math.abs(a.value - b.value) <= TOLERANCE.percentPoints) return true;
  const scale = Math.max(Math.abs(a.value), Math.abs(b.value));
  return scale === 0 || Math.abs(a.value - b.value) / scale <= tolerance;
}

/** One fact states the other (same kind; quantities and times within tolerance). */
export function sameFact(a: Fact, b: Fact): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'quantity' && a.quantity && b.quantity) return closeEnough(a.quantity, b.quantity);
  if (a.kind === 'time' && a.minutes !== undefined && b.minutes !== undefined) {
    const d = Math.abs(a.minutes - b.minutes);
    return Math.min(d, 1440 - d) <= TOLERANCE.timeMinutes;
  }
  if (a.kind === 'identifier') {
    const [x, y] = [a.key.replace(/\s+/g, ''), b.key.replace(/\s+/g, '')];
    return x === y || (x.length >= 6 && y.includes(x)) || (y.length >= 6 && x.includes(y));
  }
  return a.key === b.key;
}

export const states = (facts: readonly Fact[], f: Fact) => facts.some((g) => sameFact(g, f));

const MEASURED: readonly Quantity['dimension'][] = ['percent', 'duration', 'bytes', 'rate'];

/**
 * Two quantities that cannot both be true: same dimension, same subject family, values apart by
 * more than the approximate tolerance (`CPU 72%` vs `CPU 95%`, `p99 40 ms` vs `p99 400 ms`).
 */
export function contradicts(a: Fact, b: Fact): boolean {
  if (a.kind !== 'quantity' || b.kind !== 'quantity' || !a.quantity || !b.quantity) return false;
  const [x, y] = [a.quantity, b.quantity];
  // Bare counts are too ambiguous (pool sizes, pods, peaks and baselines); measured units are not.
  if (x.subject === null || x.subject !== y.subject || x.dimension !== y.dimension || !MEASURED.includes(x.dimension)) return false;
  const scale = Math.max(Math.abs(x.value), Math.abs(y.value));
  return scale > 0 && Math.abs(x.value - y.value) / scale > TOLERANCE.approximate;
}

/** Facts of `facts` that no fact of `other` states. */
export const minusFacts = (facts: readonly Fact[], other: readonly Fact[]) => facts.filter((f) => !states(other, f));
