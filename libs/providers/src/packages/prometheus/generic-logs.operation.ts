import { z } from 'zod';
import { queryLokiRange, type LokiEndpoint, type LokiRangeResult } from '../../connectors/loki-connector';
import { recordOf, type HttpCallRecord } from '../../connectors/http-client';
import { ProviderError } from '../../core/provider-error';
import { redactText } from '../../core/sanitize';
import { DAY_MS } from '../../core/time-window';

/**
 * `logs` of the generic package: one Agent-authored LogQL log query against the endpoint's Loki,
 * answered in summary mode only. The query must be a log query (one stream selector and its
 * pipeline, no metric function, no range) whose selector carries the exact target matcher
 * `{<label>="<target>"}`; the answer is counts by level and by a fixed table of patterns, the
 * busiest minute and at most five short, redacted sample lines. No other line text leaves.
 */

export const LOGS_MAX_WINDOW_MS = DAY_MS;
export const LOGS_DEFAULT_LIMIT = 1000;
export const LOGS_MAX_LIMIT = 5000;
export const LOGS_MAX_SAMPLES = 5;
const SAMPLE_CHARS = 160;
/** Characters of a line a sample, its level and its pattern are read from. */
const SAMPLE_READ = 2000;
const MAX_LOGQL = 4000;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'unknown'] as const;
export type GenericLogLevel = (typeof LOG_LEVELS)[number];

/**
 * Line patterns, first match wins; `other` is everything no pattern names. The ids are a contract
 * (the result schema's enum, the diagnosis rules' `patterns`): existing ids never change, new
 * ones are added.
 */
export const LOG_PATTERNS = [
  'oom',
  'panic',
  'restart',
  'failover',
  'deadlock',
  'lock_timeout',
  'statement_timeout',
  'connection_limit',
  'connection',
  'authentication',
  'disk',
  'replication',
  'checkpoint',
  'temp_file',
  'autovacuum',
  'recovery_conflict',
  'redo_log',
  'other',
] as const;
export type LogPattern = (typeof LOG_PATTERNS)[number];

const PATTERN_TABLE: readonly [LogPattern, RegExp][] = [
  ['oom', /out of memory|\boom[- _]?kill|killed by signal 9|cannot allocate memory|memory exhausted/i],
  ['panic', /\bpanic\b|segmentation fault|stack trace|core dumped|was terminated by signal|mysqld got signal/i],
  // Before `restart`: "checkpoint starting: shutdown" is routine, the warnings are not.
  ['checkpoint', /checkpoints are occurring too frequently|consider increasing (?:the configuration parameter )?"?max_wal_size|age of the last checkpoint|checkpoint request failed|could not complete checkpoint/i],
  [
    'restart',
    /database system is ready to accept|database system was (?:shut down|interrupted)|database system is shut ?down|starting postgresql|all server processes terminated|terminating any other active server processes|received (?:fast|smart|immediate) shutdown|\bshutting down\b|\brestart(?:s|ed|ing)?\b(?! (?:the )?transaction| point)|\bstart(?:ed|ing) (?:server|up)\b|ready for connections|shutdown complete|normal shutdown|starting (?:mariadb|mysql)|starting crash recovery/i,
  ],
  ['failover', /fail ?over|switchover|\bpromot(?:e|ed|ing|ion)\b|new (?:primary|leader|timeline)|selected new timeline|became (?:primary|leader)|leader (?:change|elected)|received promote request/i],
  ['deadlock', /deadlock/i],
  ['lock_timeout', /lock timeout|could not obtain lock|lock wait timeout exceeded/i],
  // Before `statement_timeout`: a hot standby cancels statements that conflict with replay.
  ['recovery_conflict', /conflict with recovery|user was holding (?:shared buffer pin|a relation lock)|user query might have needed to see row versions/i],
  ['statement_timeout', /statement timeout|canceling statement due to|query execution was interrupted|maximum statement execution time exceeded/i],
  ['connection_limit', /too many (?:connections|clients)|remaining connection slots are reserved|connection limit exceeded|max_user_connections|is blocked because of many connection errors/i],
  ['connection', /connection (?:refused|reset|timed out)|could not connect|terminating connection|could not receive data from client|unexpected eof on client connection|broken pipe|aborted connection|got (?:an error|timeout) reading communication packets/i],
  ['authentication', /authentication failed|no pg_hba\.conf entry|permission denied|access denied for user/i],
  ['disk', /no space left on device|could not extend file|disk (?:full|quota)|disk is full|could not write to file|errcode: 28|waiting for someone to free (?:some )?space|the table '[^']*' is full|preallocating \d+ bytes for file .* failed/i],
  ['temp_file', /temporary file: path|temporary file .*size \d+/i],
  ['redo_log', /log sequence number|innodb: .*redo log|redo log .*(?:full|capacity)|innodb_log_file_size/i],
  [
    'replication',
    /replication|wal ?receiver|standby|wal stream|requested wal segment|slave (?:sql|i\/o) thread|replica (?:sql|i\/o) thread|relay log|error reading packet from server|could not receive data from wal stream/i,
  ],
  ['autovacuum', /autovacuum|automatic (?:vacuum|analyze) of table|wraparound/i],
];

// Maps, not object literals: keys come from log text, and `constructor` must not resolve.
const LEVEL_WORDS: ReadonlyMap<string, GenericLogLevel> = new Map(
  Object.entries({ panic: 'fatal', fatal: 'fatal', critical: 'fatal', crit: 'fatal', emerg: 'fatal', alert: 'fatal', error: 'error', err: 'error', warning: 'warn', warn: 'warn', notice: 'info', log: 'info', info: 'info', debug: 'debug', trace: 'debug' } as const),
);
const LINE_LEVEL = /(?:^|[\s[\]"'{,(])(?:level|lvl|severity)["']?\s*[=:]\s*["']?([a-z]+)|\b(PANIC|FATAL|CRITICAL|ERROR|WARNING|WARN|NOTICE|LOG|INFO|DEBUG\d?)(?::|\]|\s+\[|\s*$)|\[(panic|fatal|critical|error|warning|warn|notice|info|debug)\]/i;

export function levelOfWord(word: string | undefined): GenericLogLevel {
  if (!word) return 'unknown';
  return LEVEL_WORDS.get(word.trim().toLowerCase().replace(/\d+$/, '')) ?? 'unknown';
}

/** The level of one line: the stream's own level label first, else the first level word of the line. */
export function lineLevel(line: string, labels: Readonly<Record<string, string>>): GenericLogLevel {
  for (const key of ['level', 'detected_level', 'severity', 'lvl']) {
    const fromLabel = levelOfWord(Object.prototype.hasOwnProperty.call(labels, key) ? labels[key] : undefined);
    if (fromLabel !== 'unknown') return fromLabel;
  }
  const m = LINE_LEVEL.exec(line.slice(0, 400));
  return levelOfWord(m ? (m[1] ?? m[2] ?? m[3]) : undefined);
}

export function linePattern(line: string): LogPattern {
  const head = line.slice(0, 2000);
  for (const [pattern, re] of PATTERN_TABLE) if (re.test(head)) return pattern;
  return 'other';
}

/**
 * A log line reduced to something safe to show: addresses, URLs, credentials and known secrets
 * redacted, every quoted literal and `(...)=(...)` key value blanked, e-mail addresses and long
 * numbers or hex runs replaced, whitespace collapsed, cut to 160 characters.
 */
export function redactLogSample(line: string, secrets: readonly string[] = []): string {
  // A sample is 160 characters: read no more of a long line than can reach it, plus any secret
  // that could straddle the cut, so a 1 MB line costs what a short one does.
  const longest = secrets.reduce((m, s) => Math.max(m, s.length), 0);
  const head = line.length > SAMPLE_READ + longest ? line.slice(0, SAMPLE_READ + longest) : line;
  const text = redactText(head, { secrets, maxStringLength: SAMPLE_READ + longest })
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/'(?:[^'\\]|\\.)*'/g, "'…'")
    .replace(/`[^`]*`/g, '`…`')
    .replace(/\)=\([^)]*\)/g, ')=(…)')
    .replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, '[redacted-email]')
    .replace(/\b[0-9a-f]{16,}\b/gi, '[hex]')
    .replace(/\b\d{7,}\b/g, '[n]')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > SAMPLE_CHARS ? `${text.slice(0, SAMPLE_CHARS - 1)}…` : text;
}

/** A line that is (mostly) statement text is never a sample, whatever the redaction would leave. */
const STATEMENT_LINE = /\b(?:STATEMENT|QUERY|DETAIL|CONTEXT):|\b(?:select|insert|update|delete)\b[\s\S]*\b(?:from|into|set|where)\b/i;

// ---------------------------------------------------------------------------------------------
// LogQL selector check

const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const reject = (field: string, why: string): never => {
  throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: ${why}`);
};

/** The end of a string literal starting at `i` (a `"`, `'` or backtick), or -1 when unterminated. */
function stringEnd(text: string, i: number): number {
  const quote = text[i];
  for (let j = i + 1; j < text.length; j++) {
    if (quote !== '`' && text[j] === '\\') j++;
    else if (text[j] === quote) return j;
  }
  return -1;
}

function unquote(literal: string, field: string): string {
  if (literal.startsWith('`')) return literal.slice(1, -1);
  if (literal.startsWith("'")) return reject(field, 'label values must be double-quoted or backtick strings');
  try {
    return JSON.parse(literal) as string;
  } catch {
    return reject(field, `label value ${literal.slice(0, 40)} is not a valid string`);
  }
}

interface Matcher {
  name: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

function parseMatchers(body: string, field: string): Matcher[] {
  const matchers: Matcher[] = [];
  let i = 0;
  const skip = () => {
    while (i < body.length && /\s/.test(body[i])) i++;
  };
  skip();
  while (i < body.length) {
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(body.slice(i))?.[0];
    if (!name) return reject(field, 'the stream selector must be a list of label matchers');
    i += name.length;
    skip();
    const op = (['=~', '!~', '!=', '='] as const).find((o) => body.startsWith(o, i));
    if (!op) return reject(field, `label ${name} needs a matcher operator (=, !=, =~ or !~)`);
    i += op.length;
    skip();
    if (!['"', '`', "'"].includes(body[i] ?? '')) return reject(field, `label ${name} needs a quoted value`);
    const end = stringEnd(body, i);
    if (end < 0) return reject(field, 'unterminated string in the stream selector');
    matchers.push({ name, op, value: unquote(body.slice(i, end + 1), field) });
    i = end + 1;
    skip();
    if (i < body.length) {
      if (body[i] !== ',') return reject(field, 'label matchers must be separated by commas');
      i++;
      skip();
    }
  }
  return matchers;
}

/**
 * Checks one LogQL log query for the generic package before any network use and returns it
 * trimmed. Refuses (`PROVIDER.QUERY_REJECTED`, naming the field) anything but a single stream
 * selector followed by its pipeline, and a selector without the exact `<label>="<target>"`
 * matcher: a metric query (`rate(...)`, `count_over_time(...)`), a range, or a second selector.
 */
export function validateTargetLogQl(logql: string, label: string, target: string, field = 'logql'): string {
  if (!LABEL_NAME.test(label)) throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}: the selector label ${JSON.stringify(label).slice(0, 70)} is not a valid label name`);
  const text = String(logql).trim();
  if (text.length === 0) return reject(field, 'LogQL is empty');
  if (text.length > MAX_LOGQL) return reject(field, `LogQL is longer than ${MAX_LOGQL} characters`);
  if (/[\u0000-\u0008\u000b-\u001f]/.test(text)) return reject(field, 'control characters are not allowed');
  if (!text.startsWith('{')) return reject(field, 'only a log query is allowed: it must start with the stream selector {…} (metric queries are not)');
  let selector: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"' || ch === '`' || ch === "'") {
      const end = stringEnd(text, i);
      if (end < 0) return reject(field, 'unterminated string literal');
      i = end;
    } else if (ch === '{') {
      if (selector !== null) return reject(field, 'exactly one stream selector is allowed');
      let j = i + 1;
      for (; j < text.length && text[j] !== '}'; j++) {
        if (text[j] === '"' || text[j] === '`' || text[j] === "'") {
          const end = stringEnd(text, j);
          if (end < 0) return reject(field, 'unterminated string in the stream selector');
          j = end;
        } else if (text[j] === '{') return reject(field, 'nested braces are not allowed');
      }
      if (j >= text.length) return reject(field, 'the stream selector is not closed');
      selector = text.slice(i + 1, j);
      i = j;
    } else if (ch === '}') return reject(field, 'unbalanced } outside a string');
    else if (ch === '[' || ch === ']') return reject(field, 'ranges are not allowed: only a log query runs (no metric query)');
    else if (ch === '#') return reject(field, 'comments are not allowed');
  }
  const matchers = parseMatchers(selector ?? '', field);
  if (!matchers.some((m) => m.name === label && m.op === '=' && m.value === target)) {
    return reject(field, `the stream selector needs the exact matcher {${label}="${target}"}`);
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// Summary

const Count = z.number().int().nonnegative();
const Iso = z.string().max(40);

export const GenericLogsResult = z
  .object({
    operation: z.literal('logs'),
    lines: Count,
    /** Loki stopped at the package's line limit: counts are lower bounds. */
    hitLimit: z.boolean(),
    firstAt: Iso.nullable(),
    lastAt: Iso.nullable(),
    byLevel: z.array(z.object({ level: z.enum(LOG_LEVELS), count: Count }).strict()).max(LOG_LEVELS.length),
    byPattern: z.array(z.object({ pattern: z.enum(LOG_PATTERNS), count: Count, errors: Count, firstAt: Iso, lastAt: Iso }).strict()).max(LOG_PATTERNS.length),
    busiestMinute: z.object({ at: Iso, lines: Count }).strict().nullable(),
    samples: z.array(z.object({ at: Iso, level: z.enum(LOG_LEVELS), pattern: z.enum(LOG_PATTERNS), text: z.string().max(SAMPLE_CHARS) }).strict()).max(LOGS_MAX_SAMPLES),
  })
  .strict();
export type GenericLogsResult = z.infer<typeof GenericLogsResult>;

interface ParsedLine {
  at: string;
  level: GenericLogLevel;
  pattern: LogPattern;
  line: string;
}

function isoOfNs(ns: string): string {
  try {
    return new Date(Number(BigInt(ns) / 1_000_000n)).toISOString();
  } catch {
    return new Date(0).toISOString();
  }
}

function countBy<K extends string>(values: readonly K[]): [K, number][] {
  const map = new Map<K, number>();
  for (const v of values) map.set(v, (map.get(v) ?? 0) + 1);
  return [...map.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

const severe = (level: GenericLogLevel) => level === 'fatal' || level === 'error';
const LEVEL_RANK: Readonly<Record<GenericLogLevel, number>> = { fatal: 0, error: 1, warn: 2, unknown: 3, info: 4, debug: 5 };

/** Counts, busiest minute and a few redacted samples of one Loki answer; line text stays here. */
export function summariseLogLines(result: LokiRangeResult, secrets: readonly string[] = []): GenericLogsResult {
  // A Loki that answers past the asked limit (10,000 streams, say) is read up to the package's own limit.
  const entries = result.streams.flatMap((s) => s.entries.map((e) => ({ labels: s.labels, e }))).slice(0, LOGS_MAX_LIMIT);
  const overLimit = result.entryCount > LOGS_MAX_LIMIT;
  const parsed: ParsedLine[] = entries
    .map(({ labels, e }) => ({ at: isoOfNs(e.timestampNs), level: lineLevel(e.line, labels), pattern: linePattern(e.line), line: e.line }))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const byPattern = new Map<LogPattern, { count: number; errors: number; firstAt: string; lastAt: string }>();
  for (const p of parsed) {
    const entry = byPattern.get(p.pattern) ?? { count: 0, errors: 0, firstAt: p.at, lastAt: p.at };
    entry.count += 1;
    if (severe(p.level)) entry.errors += 1;
    entry.lastAt = p.at;
    byPattern.set(p.pattern, entry);
  }
  const minutes = countBy(parsed.map((p) => p.at.slice(0, 16)));
  // Most telling first: severe levels, named patterns, then the most recent; one sample per pattern first.
  const ranked = parsed
    .filter((p) => !STATEMENT_LINE.test(p.line.slice(0, SAMPLE_READ)))
    .sort((a, b) => LEVEL_RANK[a.level] - LEVEL_RANK[b.level] || Number(a.pattern === 'other') - Number(b.pattern === 'other') || (a.at < b.at ? 1 : -1));
  const chosen: ParsedLine[] = [];
  for (const p of ranked) if (chosen.length < LOGS_MAX_SAMPLES && !chosen.some((c) => c.pattern === p.pattern)) chosen.push(p);
  for (const p of ranked) if (chosen.length < LOGS_MAX_SAMPLES && !chosen.includes(p)) chosen.push(p);
  return {
    operation: 'logs',
    lines: parsed.length,
    hitLimit: result.hitLimit || overLimit,
    firstAt: parsed[0]?.at ?? null,
    lastAt: parsed.at(-1)?.at ?? null,
    byLevel: countBy(parsed.map((p) => p.level)).map(([level, count]) => ({ level, count })),
    byPattern: [...byPattern.entries()].sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0])).map(([pattern, v]) => ({ pattern, ...v })),
    busiestMinute: minutes[0] ? { at: `${minutes[0][0]}:00.000Z`, lines: minutes[0][1] } : null,
    samples: chosen.sort((a, b) => (a.at < b.at ? -1 : 1)).map((p) => ({ at: p.at, level: p.level, pattern: p.pattern, text: redactLogSample(p.line, secrets) })),
  };
}

export interface GenericLogsEndpoint extends LokiEndpoint {
  /** The Loki label whose exact value selects the target; defaults to the endpoint's target label. */
  selectorLabel?: string;
}

/** One `logs` entry: checked before any network use, then one bounded range read, summarised. */
export async function runGenericLogs(
  q: { id: string; logql: string; limit?: number },
  scope: { endpoint: GenericLogsEndpoint; label: string; target: string; window: { from: string; to: string }; secrets: readonly string[] },
  io: { signal: AbortSignal; record(record: HttpCallRecord): void },
): Promise<GenericLogsResult> {
  const field = `queries.${q.id}.logql`;
  const logql = validateTargetLogQl(q.logql, scope.label, scope.target, field);
  // The tool already checked the window's shape and that it is not in the future; logs read at most a day.
  const fromMs = Date.parse(scope.window.from);
  const toMs = Date.parse(scope.window.to);
  if (toMs - fromMs > LOGS_MAX_WINDOW_MS) {
    throw new ProviderError('PROVIDER.WINDOW_INVALID', `queries.${q.id}: logs read at most ${LOGS_MAX_WINDOW_MS / 3_600_000} hours, the window spans ${Math.ceil((toMs - fromMs) / 60_000)} minutes`);
  }
  const limit = Math.min(q.limit ?? LOGS_DEFAULT_LIMIT, LOGS_MAX_LIMIT);
  try {
    const { result, record } = await queryLokiRange(scope.endpoint, { logql, startMs: fromMs, endMs: toMs, limit, direction: 'backward' }, { signal: io.signal });
    io.record(record);
    return summariseLogLines(result, scope.secrets);
  } catch (error) {
    const record = recordOf(error);
    if (record) io.record(record);
    throw error;
  }
}
