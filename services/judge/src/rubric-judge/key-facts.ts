/**
 * Key facts of a text, as the built-in rubric judge compares them: quantities (numbers with
 * units, normalised so `90 ms`, `90ms` and `0.09s` match), clock times, identifiers (names with
 * digits, `_`, `.` or `()`, and code spans) and technical terms from a fixed vocabulary. It is a
 * comparison of stated facts, not of meaning: two texts that say the same thing in different
 * words share few facts.
 */
export type KeyFactKind = 'quantity' | 'time' | 'identifier' | 'term';

export interface KeyFact {
  kind: KeyFactKind;
  /** Canonical form used for matching, e.g. `90ms`, `10:38`, `orders(created_at)`, `full table scan`. */
  key: string;
}

/** Multi-word terms first, so `full table scan` wins over `table scan`. Singular forms. */
const TERMS = [
  'full table scan', 'table scan', 'index scan', 'missing index', 'execution plan', 'slow query', 'hot region', 'hot spot', 'region split',
  'lock contention', 'lock wait', 'write conflict', 'garbage collection', 'out of memory', 'replication lag', 'connection pool',
  'report query', 'batch job', 'rate limit', 'scale out', 'scale in', 'leader transfer', 'disk full', 'network partition',
  'index', 'hotspot', 'deadlock', 'gc', 'oom', 'cpu', 'memory', 'disk', 'iops', 'io', 'network', 'p99', 'p95', 'p999', 'qps', 'tps',
  'topsql', 'statistics', 'analyze', 'ddl', 'backup', 'restore', 'changefeed', 'tikv', 'tidb', 'pd', 'tiflash', 'ticdc', 'dm',
  'timeout', 'restart', 'upgrade', 'rollback', 'leader', 'raft', 'compaction', 'rocksdb', 'coprocessor', 'transaction', 'throttle',
  'quota', 'configuration', 'region', 'partition', 'checkpoint', 'latency', 'throughput', 'bandwidth', 'connection', 'certificate',
];

const TERM_SET = new Set(TERMS);
const TERM_PATTERNS = TERMS.map((t) => ({ term: t, pattern: new RegExp(`(?<![a-z0-9_])${t.replace(/ /g, '\\s+')}(?:e?s)?(?![a-z0-9_])`, 'g') }));

/** Synonyms folded onto one term before matching. */
const SYNONYMS: [RegExp, string][] = [
  [/\bindexes\b|\bindices\b/g, 'index'],
  [/\bstatement[s]?\s+summary\b/g, 'topsql'],
  [/\btop\s*sql\b/g, 'topsql'],
  [/\bhot\s*spots?\b/g, 'hotspot'],
  [/\bfull[- ]table[- ]scans?\b/g, 'full table scan'],
  [/\bout[- ]of[- ]memory\b/g, 'oom'],
  [/\bgarbage collection\b/g, 'gc'],
  [/\bqueries per second\b|\bstatements per second\b/g, 'qps'],
];

const DURATION_MS: Record<string, number> = { ms: 1, millisecond: 1, milliseconds: 1, s: 1000, sec: 1000, secs: 1000, second: 1000, seconds: 1000, min: 60000, mins: 60000, minute: 60000, minutes: 60000, h: 3600000, hr: 3600000, hrs: 3600000, hour: 3600000, hours: 3600000 };
const SIZE: Record<string, string> = { b: 'b', kb: 'kb', mb: 'mb', gb: 'gb', tb: 'tb', kib: 'kb', mib: 'mb', gib: 'gb', tib: 'tb' };
const COUNT_NOUNS = 'rows?|statements?|queries|query|connections?|requests?|regions?|keys?|transactions?|qps|tps|ops|cores?|nodes?|replicas?|threads?';

function roundNumber(n: number): string {
  return String(Number(n.toPrecision(6)));
}

function quantities(text: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`(?<![\\w.])[~≈]?(\\d+(?:\\.\\d+)?)\\s*(ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|%|x|kib|mib|gib|tib|kb|mb|gb|tb|b|k|m|bn)?(?:\\s+(${COUNT_NOUNS}))?(?![\\w])`, 'g');
  for (const m of text.matchAll(re)) {
    const value = Number(m[1]);
    const unit = m[2];
    const noun = m[3]?.replace(/ies$/, 'y').replace(/s$/, '');
    if (unit && unit in DURATION_MS) {
      out.push(`${roundNumber(value * DURATION_MS[unit])}ms`);
    } else if (unit === '%' || unit === 'x') {
      out.push(`${roundNumber(value)}${unit}`);
    } else if (unit && unit in SIZE) {
      out.push(`${roundNumber(value)}${SIZE[unit]}`);
    } else if (unit === 'k' || unit === 'm' || unit === 'bn') {
      const factor = unit === 'k' ? 1e3 : unit === 'm' ? 1e6 : 1e9;
      out.push(noun ? `${roundNumber(value * factor)} ${noun}` : `${roundNumber(value * factor)}`);
    } else if (noun) {
      out.push(`${roundNumber(value)} ${noun}`);
    }
    // A bare number without a unit or counted noun is not a fact on its own.
  }
  return out;
}

function times(text: string): string[] {
  return [...text.matchAll(/(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(?:\s*(?:z|utc))?(?![\d:])/g)].map((m) => `${m[1].padStart(2, '0')}:${m[2]}`);
}

function identifiers(raw: string): string[] {
  const out: string[] = [];
  for (const m of raw.matchAll(/`([^`\n]{2,80})`/g)) out.push(m[1].trim().toLowerCase());
  const text = raw.toLowerCase();
  // name(col, col) — tables with columns, functions with arguments.
  for (const m of text.matchAll(/\b([a-z_][a-z0-9_.]*)\(([a-z0-9_, ]{1,80})\)/g)) out.push(`${m[1]}(${m[2].replace(/\s+/g, '')})`);
  for (const m of text.matchAll(/[a-z0-9][a-z0-9_.:/-]*[a-z0-9]/g)) {
    const token = m[0];
    if (/^\d+(?:[.:]\d+)*$/.test(token)) continue; // numbers and times are handled elsewhere
    const hasDigitAndLetter = /\d/.test(token) && /[a-z]/.test(token);
    const isCompound = /[a-z][_.][a-z0-9]|[a-z0-9]-[a-z0-9].*-/.test(token);
    if (/^\d+(?:\.\d+)?[a-z%]+$/.test(token)) continue; // quantities such as 90ms
    if (/^(?:https?|www)/.test(token)) continue;
    if (TERM_SET.has(token)) continue; // p99, p95: technical terms, not identifiers
    if (hasDigitAndLetter || isCompound) out.push(token.replace(/[.:]+$/, ''));
  }
  return out;
}

function terms(text: string): string[] {
  let folded = text.toLowerCase();
  for (const [re, to] of SYNONYMS) folded = folded.replace(re, to);
  const out: string[] = [];
  for (const { term, pattern } of TERM_PATTERNS) {
    if (pattern.test(folded)) {
      out.push(term);
      // `full table scan` implies `table scan`; keep only the longer one.
      folded = folded.replace(pattern, ' ');
    }
    pattern.lastIndex = 0;
  }
  return out;
}

/** Distinct key facts of a text, in a stable order (kind, then first appearance). */
export function keyFacts(text: string): KeyFact[] {
  const seen = new Set<string>();
  const out: KeyFact[] = [];
  const add = (kind: KeyFactKind, keys: string[]) => {
    for (const key of keys) {
      if (key.length === 0 || seen.has(key)) continue;
      seen.add(key);
      out.push({ kind, key });
    }
  };
  const lower = text.toLowerCase();
  add('quantity', quantities(lower));
  add('time', times(lower));
  // An identifier inside a longer one (`created_at` in `orders(created_at)`) is the same fact.
  const ids = [...new Set(identifiers(text))];
  add('identifier', ids.filter((id) => !ids.some((other) => other !== id && other.includes(id))));
  add('term', terms(text));
  return out;
}

export function factKeys(text: string): Set<string> {
  return new Set(keyFacts(text).map((f) => f.key));
}
