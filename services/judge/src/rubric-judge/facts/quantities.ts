import { familiesInText } from '@aoc/metric-ontology';
import { APPROXIMATE } from './judge-vocabulary.data';

/**
 * Numbers as an engineer reads them: a value in a canonical unit per dimension, so `140 ms` and
 * `0.14 s`, `+30%` and `1.3x`, `1,200 qps` and `1.2k statements per second` compare. Each keeps
 * the family its sentence talks about (`subject`) so `limit 200` and `limit 500` contradict
 * while `CPU 72%` and `disk 72%` do not meet.
 */
export type Dimension = 'duration' | 'percent' | 'change' | 'bytes' | 'rate' | 'count' | 'number';

export interface Quantity {
  dimension: Dimension;
  /** ms for durations, bytes, per second for rates, the factor for changes, else the number. */
  value: number;
  approximate: boolean;
  /** Metric family of the words just before the number in its sentence, if any. */
  subject: string | null;
  /** The text as written, for messages. */
  raw: string;
}

const DURATION_MS: Record<string, number> = { ms: 1, msec: 1, millisecond: 1, s: 1000, sec: 1000, second: 1000, min: 60000, minute: 60000, h: 3600000, hr: 3600000, hour: 3600000, day: 86400000 };
const BYTES: Record<string, number> = { b: 1, byte: 1, kb: 1024, kib: 1024, mb: 1024 ** 2, mib: 1024 ** 2, gb: 1024 ** 3, gib: 1024 ** 3, tb: 1024 ** 4, tib: 1024 ** 4 };
const SCALE: Record<string, number> = { k: 1e3, thousand: 1e3, m: 1e6, million: 1e6, bn: 1e9, billion: 1e9 };
const RATE_UNITS = /^(?:qps|tps|iops|ops\/s|\/s|\/sec|per second|per sec|statements per second|queries per second|transactions per second)$/;
const WORD_FACTORS: Record<string, number> = { doubled: 2, tripled: 3, quadrupled: 4, halved: 0.5 };

const NUMBER = '(\\d{1,3}(?:,\\d{3})+|\\d+(?:\\.\\d+)?)';
const UNIT =
  '(ms|msec|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|%|x|×|kib|mib|gib|tib|kb|mb|gb|tb|bytes?|b|k|thousand|m|million|bn|billion|qps|tps|iops|ops/s|/s|/sec|per second|per sec)?';
const QUANTITY = new RegExp(`(?<![\\w.-])([+-]|x|×)?${NUMBER}\\s*${UNIT}(?![\\w])`, 'gi');
const CHANGE_AFTER = /^\s*(higher|more|increase|up|slower|faster|lower|less|decrease|down|drop|fewer)\b/i;
const CHANGE_BEFORE = /\b(?:rose|grew|increased|jumped|went up|fell|dropped|decreased|went down)\s+by\s*$/i;
const DOWN_WORDS = /^(lower|less|decrease|down|drop|fewer|faster)$/i;
const COUNT_NOUN = /^\s*(connections?|sessions?|rows?|statements?|queries|query|requests?|transactions?|threads?|locks?|deadlocks?|errors?|regions?|replicas?|nodes?|cores?|clients?|backends?|pages?|files?)\b/i;

const singular = (unit: string) => unit.toLowerCase().replace(/(?<=[a-z]{3})s$/, '');

function subjectBefore(text: string, index: number): string | null {
  const sentenceStart = Math.max(text.lastIndexOf('.', index - 1), text.lastIndexOf('\n', index - 1), text.lastIndexOf(';', index - 1), index - 80);
  const before = text.slice(Math.max(0, sentenceStart), index);
  const mentions = familiesInText(before);
  return mentions.length > 0 ? mentions[mentions.length - 1].family : null;
}

function subjectAfter(text: string, end: number): string | null {
  const after = text.slice(end, end + 40).split(/[.;\n]/)[0];
  const mentions = familiesInText(after);
  return mentions.length > 0 ? mentions[0].family : null;
}

/** Every quantity of a text, in order of appearance. Years and version-like numbers are left out. */
export function quantities(text: string): Quantity[] {
  const out: Quantity[] = [];
  for (const m of text.matchAll(QUANTITY)) {
    const [raw, sign, digits, unitRaw] = m;
    const index = m.index ?? 0;
    const n = Number(digits.replace(/,/g, ''));
    if (!Number.isFinite(n)) continue;
    const unit = (unitRaw ?? '').toLowerCase();
    const before = text.slice(Math.max(0, index - 24), index);
    const after = text.slice(index + raw.length, index + raw.length + 40);
    if (/\d[-./:]$|[:/]$/.test(before) || /^[-./:]\d/.test(after)) continue; // dates, times, versions, ids
    if (!unit && /^\d{4}$/.test(digits) && n >= 1900 && n <= 2100) continue;
    const approximate = APPROXIMATE.test(before);
    const subject = subjectBefore(text, index) ?? subjectAfter(text, index + raw.length);
    const push = (dimension: Dimension, value: number) => out.push({ dimension, value, approximate, subject, raw: raw.trim() });
    const isChange = sign === '+' || sign === '-' || CHANGE_AFTER.test(after) || CHANGE_BEFORE.test(before);
    if (unit === '%') {
      if (isChange) {
        const down = sign === '-' || DOWN_WORDS.test(CHANGE_AFTER.exec(after)?.[1] ?? '') || /\b(?:fell|dropped|decreased|went down)\s+by\s*$/i.test(before);
        push('change', down ? 1 - n / 100 : 1 + n / 100);
      } else push('percent', n);
    } else if (unit === 'x' || unit === '×' || sign === 'x' || sign === '×') push('change', n);
    else if (singular(unit) in DURATION_MS) push('duration', n * DURATION_MS[singular(unit)]);
    else if (unit in BYTES || singular(unit) in BYTES) push('bytes', n * (BYTES[unit] ?? BYTES[singular(unit)]));
    else if (RATE_UNITS.test(unit)) push('rate', n);
    else if (unit in SCALE) {
      const value = n * SCALE[unit];
      push(RATE_UNITS.test(after.trim().split(/\s+(?=[a-z])/i)[0] ?? '') || /^\s*(?:qps|tps|per second)/i.test(after) ? 'rate' : COUNT_NOUN.test(after) ? 'count' : 'number', value);
    } else if (/^\s*(?:qps|tps|iops|statements per second|queries per second|per second)\b/i.test(after)) push('rate', n);
    else if (COUNT_NOUN.test(after)) push('count', n);
    else push('number', n);
  }
  for (const m of text.matchAll(/\b(doubled|tripled|quadrupled|halved)\b/gi)) {
    out.push({ dimension: 'change', value: WORD_FACTORS[m[1].toLowerCase()], approximate: true, subject: subjectBefore(text, m.index ?? 0), raw: m[1] });
  }
  return out;
}
