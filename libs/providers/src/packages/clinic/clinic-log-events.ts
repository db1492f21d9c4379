import type { LifecycleGroup, LogEvent, LogLevel } from './clinic-output.schema';

/**
 * Turns one TiDB-style unified log line (`[time] [LEVEL] [file.go:123] ["message"] [k=v] ...`)
 * into typed fields. Only allowlisted facts survive: a lifecycle group chosen from a fixed
 * table, the level, a file:line source, booleans and numeric execution fields. The message,
 * SQL, connection ids, digests and any other value never leave this function.
 */

const GROUP_PATTERNS: readonly [LifecycleGroup, RegExp][] = [
  ['panic', /\bpanic|fatal error|stack trace|goroutine \d+/i],
  ['oom', /out of memory|\boom\b|memory (?:limit|quota) exceeded|exceed.*mem.*quota/i],
  ['startup', /welcome to|server is running|starting (?:server|tikv|pd|tidb)|start (?:server|grpc|status)|\bbootstrap/i],
  ['shutdown', /server (?:is )?(?:closed|shut ?down)|graceful shutdown|\bshutting down|received signal|exit(?:ing)?\b/i],
  ['slow_query', /slow[ _-]?(?:query|log)|expensive[ _-]query/i],
  ['leader_change', /leader (?:change|transfer|changed|elected)|become leader|transfer[ _]leader|new leader/i],
  ['region_change', /region (?:split|merge|heartbeat)|split region|merge region|batch split/i],
  ['ddl', /\bddl\b|add index|schema (?:version|change)|reorg/i],
  ['gc', /\bgc\b|garbage collect|safe ?point|compaction/i],
  ['backoff', /backoff|retry|retrying|region ?miss|server ?is ?busy|not ?leader|epoch not match/i],
  ['connection', /\bconnection\b|\bconn(?:ection)? (?:closed|reset|refused)|new connection|client disconnected|accept/i],
  ['config_change', /config(?:uration)? (?:change|update|reload)|set global|update config/i],
  ['scheduling', /\bschedul|operator|balance[ _-](?:leader|region)|hot[ _-]region/i],
];

/** Numeric execution fields kept from `[key=value]` pairs, with the name they are reported under. */
const NUMERIC_FIELDS: ReadonlyMap<string, string> = new Map(Object.entries({
  cost_time: 'exec_time_s',
  query_time: 'query_time_s',
  process_time: 'process_time_s',
  wait_time: 'wait_time_s',
  backoff_time: 'backoff_time_s',
  compile_time: 'compile_time_s',
  parse_time: 'parse_time_s',
  duration: 'duration_s',
  takes: 'duration_s',
  elapsed: 'duration_s',
  mem_max: 'mem_max_bytes',
  disk_max: 'disk_max_bytes',
  total_keys: 'total_keys',
  process_keys: 'process_keys',
  result_rows: 'result_rows',
  affected_rows: 'affected_rows',
  retry_count: 'retry_count',
  num_cop_tasks: 'cop_tasks',
  region_count: 'region_count',
}));

const BOOLEAN_FIELDS: ReadonlyMap<string, string> = new Map(Object.entries({
  is_internal: 'internal',
  succ: 'success',
  success: 'success',
  prepared: 'prepared',
  plan_from_cache: 'plan_from_cache',
  has_more_results: 'has_more_results',
}));

// Maps, not object literals: keys come from log text, and `constructor` must not resolve.
const LEVELS: ReadonlyMap<string, LogLevel> = new Map(Object.entries({ fatal: 'fatal', critical: 'fatal', error: 'error', warn: 'warn', warning: 'warn', info: 'info', debug: 'debug', trace: 'debug' } as const));
const SOURCE = /^([A-Za-z0-9_./-]{1,120}\/)?([A-Za-z0-9_-]{1,60}\.(?:go|rs|cpp|cc|c|h|java|py)):(\d{1,6})$/;
const DURATION = /^(\d+(?:\.\d+)?)(ns|µs|us|ms|s|m|h)?$/;
const UNIT_SECONDS: ReadonlyMap<string, number> = new Map(Object.entries({ ns: 1e-9, µs: 1e-6, us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 }));

export function levelOf(value: string | undefined): LogLevel {
  return (value && LEVELS.get(value.trim().toLowerCase())) || 'unknown';
}

export function lifecycleGroupOf(message: string): LifecycleGroup {
  for (const [group, pattern] of GROUP_PATTERNS) if (pattern.test(message)) return group;
  return 'other';
}

/** `[...]` sections of a unified log line, honouring quoted values that contain brackets. */
export function bracketSections(line: string, max = 64): string[] {
  const sections: string[] = [];
  let i = 0;
  while (i < line.length && sections.length < max) {
    const open = line.indexOf('[', i);
    if (open < 0) break;
    let j = open + 1;
    let quoted = false;
    for (; j < line.length; j++) {
      const ch = line[j];
      if (ch === '\\' && quoted) j++;
      else if (ch === '"') quoted = !quoted;
      else if (ch === ']' && !quoted) break;
    }
    sections.push(line.slice(open + 1, j));
    i = j + 1;
  }
  return sections;
}

function numericValue(raw: string, seconds: boolean): number | null {
  const v = raw.replace(/^"|"$/g, '').trim();
  if (seconds) {
    const m = DURATION.exec(v);
    if (!m) return null;
    const n = Number(m[1]) * (UNIT_SECONDS.get(m[2] ?? 's') ?? 1);
    return Number.isFinite(n) ? Math.round(n * 1e6) / 1e6 : null;
  }
  const n = Number(v);
  return /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.test(v) && Number.isFinite(n) ? n : null;
}

export function safeSource(raw: string | undefined): string | null {
  const m = raw ? SOURCE.exec(raw.trim()) : null;
  // The file name and line only: directories can reveal build hosts or user paths.
  return m ? `${m[2]}:${m[3]}` : null;
}

export function parseLogLine(line: string, timestampNs: string, streamLevel?: string): LogEvent {
  const sections = bracketSections(line);
  const levelSection = sections.find((s) => levelOf(s) !== 'unknown');
  const level = levelOf(streamLevel) !== 'unknown' ? levelOf(streamLevel) : levelOf(levelSection);
  const source = sections.map((s) => safeSource(s)).find((s) => s !== null) ?? null;
  const message = sections.find((s) => s.startsWith('"')) ?? (sections.length === 0 ? line : '');
  const numbers: Record<string, number> = {};
  const flags: Record<string, boolean> = {};
  for (const section of sections) {
    const eq = section.indexOf('=');
    if (eq <= 0) continue;
    const key = section.slice(0, eq).trim().toLowerCase();
    const raw = section.slice(eq + 1);
    const numericName = NUMERIC_FIELDS.get(key);
    if (numericName) {
      const value = numericValue(raw, numericName.endsWith('_s'));
      if (value !== null) numbers[numericName] = value;
      continue;
    }
    const flagName = BOOLEAN_FIELDS.get(key);
    if (flagName) {
      const v = raw.replace(/^"|"$/g, '').trim().toLowerCase();
      if (v === 'true' || v === '1') flags[flagName] = true;
      else if (v === 'false' || v === '0') flags[flagName] = false;
    }
  }
  let at: string;
  try {
    at = new Date(Number(BigInt(timestampNs) / 1_000_000n)).toISOString();
  } catch {
    at = new Date(0).toISOString();
  }
  return { at, level, group: lifecycleGroupOf(message), source, numbers, flags };
}
