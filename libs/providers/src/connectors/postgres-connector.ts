import { createHmac, randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { Client, DatabaseError, type CustomTypesConfig, type FieldDef, type QueryArrayConfig } from 'pg';
import { z } from 'zod';
import { ProviderError } from '../core/provider-error';
import { opaqueRef, redactText } from '../core/sanitize';
import { validateReadOnlyPgSql } from '../validation/read-only-pg-sql';
import type { SqlCell } from './mysql-connector';
import { issueField } from '@aoc/errors';

/** A PostgreSQL endpoint read with the package's own (ideally pg_monitor) account. */
export const PostgresStatsEndpoint = z
  .object({
    /** Secret: never in an error, a log or a result. */
    host: z.string().min(1).max(255),
    port: z.number().int().min(1).max(65535),
    database: z.string().min(1).max(63),
    user: z.string().min(1).max(63),
    /** Secret: never in an error, a log or a result. */
    password: z.string().max(1024),
    ssl: z.union([z.boolean(), z.object({ ca: z.string().optional(), rejectUnauthorized: z.boolean().optional(), servername: z.string().optional() }).strict()]).optional(),
    connectTimeoutMs: z.number().int().min(100).max(60_000).optional(),
  })
  .strict();
export type PostgresStatsEndpoint = z.infer<typeof PostgresStatsEndpoint>;

export const PostgresStatsResult = z
  .object({
    columns: z.array(z.string()),
    rows: z.array(z.array(z.union([z.string(), z.number(), z.boolean(), z.null()]))),
    rowCount: z.number().int().nonnegative(),
    truncated: z.boolean(),
  })
  .strict();
export type PostgresStatsResult = z.infer<typeof PostgresStatsResult>;

export interface PostgresStatsOptions {
  signal?: AbortSignal;
  /** Server-side statement/lock timeout; the client gives up 2 s later. Default 10 s, at most 60 s. */
  timeoutMs?: number;
  /** Default 100, at most 500. */
  maxRows?: number;
  /** Serialised result size; default and most 64 KiB. */
  maxBytes?: number;
  /** Named in a refusal, e.g. `queries.0.sql`. */
  field?: string;
}

export const POSTGRES_STATS_LIMITS = {
  defaultRows: 100,
  maxRows: 500,
  maxBytes: 64 * 1024,
  defaultTimeoutMs: 10_000,
  maxTimeoutMs: 60_000,
  connectTimeoutMs: 5_000,
} as const;

/** Every value of the endpoint that must never appear in a result, an error or a log. */
export function postgresStatsSecrets(endpoint: Pick<PostgresStatsEndpoint, 'host' | 'port' | 'password'>): string[] {
  return [endpoint.password, `${endpoint.host}:${endpoint.port}`, endpoint.host].filter((s) => s.length > 0);
}

// ---------------------------------------------------------------------------------------------
// Result values

/** Statement kinds shown next to a digest; anything else is OTHER. */
const STATEMENT_KINDS = new Set(['select', 'insert', 'update', 'delete', 'merge', 'with', 'values', 'table', 'copy', 'create', 'alter', 'drop', 'truncate', 'grant', 'revoke', 'begin', 'start', 'commit', 'end', 'rollback', 'abort', 'savepoint', 'release', 'prepare', 'execute', 'deallocate', 'set', 'reset', 'show', 'explain', 'analyze', 'vacuum', 'reindex', 'cluster', 'refresh', 'lock', 'call', 'do', 'fetch', 'declare', 'close', 'move', 'listen', 'notify', 'unlisten', 'discard', 'checkpoint', 'comment']);

/** Normalised shape of statement text: its first keyword, never more. */
export function statementKind(text: string): string {
  const stripped = text.replace(/^(?:\s+|\(|--[^\n]*\n?|\/\*[\s\S]*?\*\/)+/, '');
  const word = /^[A-Za-z]+/.exec(stripped)?.[0].toLowerCase() ?? '';
  return STATEMENT_KINDS.has(word) ? word.toUpperCase() : 'OTHER';
}

/**
 * Role names become `user:<16 hex>`, an HMAC with a key that lives only in this process: the
 * same role gives the same reference within one run (so sessions can be grouped by role), and
 * a reference cannot be reversed by hashing likely names.
 */
const USER_REF_KEY = randomBytes(32);
/** `<kind>:<16 hex>`, an HMAC with this process's key: stable within a run, not reversible by guessing. */
export const keyedRef = (kind: string, value: string) => `${kind}:${createHmac('sha256', USER_REF_KEY).update(`${kind}\n${value}`).digest('hex').slice(0, 16)}`;
const userRef = (name: string) => keyedRef('user', name);

/** Column names (output names: the validator keeps these columns under their own name). */
const STATEMENT_TEXT_COLUMNS = new Set(['query']);
const USER_COLUMNS = new Set(['usename', 'rolname', 'user', 'current_user', 'session_user']);
const REDACTED_COLUMNS = new Set(['client_addr', 'client_hostname', 'client_port', 'conninfo', 'sender_host', 'datacl']);

// Type OIDs of the text format rows are read in.
const OID = {
  bool: 16, bytea: 17, int8: 20, int2: 21, int4: 23, oid: 26, xid: 28, xid8: 5069, float4: 700, float8: 701, numeric: 1700,
  date: 1082, timestamp: 1114, timestamptz: 1184, interval: 1186, inet: 869, cidr: 650, macaddr: 829, macaddr8: 774, aclitems: 1034,
} as const;
const INTEGER_OIDS = new Set<number>([OID.int8, OID.int2, OID.int4, OID.oid, OID.xid, OID.xid8]);
const FLOAT_OIDS = new Set<number>([OID.float4, OID.float8, OID.numeric]);
const ADDRESS_OIDS = new Set<number>([OID.inet, OID.cidr, OID.macaddr, OID.macaddr8]);
/** Shown as (redacted) text: character types, names, LSNs, reg* types, times, uuids, arrays of scalars. */
const TEXT_OIDS = new Set<number>([18, 19, 25, 1042, 1043, 3220, 2205, 24, 2206, 1083, 1266, 2950, 705, 1000, 1005, 1007, 1016, 1028, 1021, 1022, 1231, 1009, 1003, 1015, 1014]);

const SECONDS_PER = { Y: 365.25 * 86_400, M: 30 * 86_400, W: 7 * 86_400, D: 86_400, H: 3_600, TM: 60, S: 1 } as const;
const ISO_INTERVAL = /^P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)W)?(?:(-?\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?\d+(?:\.\d+)?)S)?)?$/;
const PG_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?(?:([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?$/;

/** `IntervalStyle = iso_8601` text to seconds (a month is 30 days, a year 365.25, as in extract(epoch)). */
export function intervalSeconds(text: string): number | null {
  const m = ISO_INTERVAL.exec(text);
  if (!m || text === 'P' || text.endsWith('T')) return null;
  const [y, mo, w, d, h, mi, s] = m.slice(1).map((v) => (v === undefined ? 0 : Number(v)));
  const total = y * SECONDS_PER.Y + mo * SECONDS_PER.M + w * SECONDS_PER.W + d * SECONDS_PER.D + h * SECONDS_PER.H + mi * SECONDS_PER.TM + s;
  return Math.round(total * 1e6) / 1e6;
}

/** `TimeZone = UTC`, `DateStyle = ISO` text to an ISO-8601 instant (millisecond precision). */
export function timestampIso(text: string): string | null {
  const m = PG_TIMESTAMP.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, sign, oh, om, os] = m;
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om ?? 0) * 60 + Number(os ?? 0)) : 0;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Math.floor(Number(frac ?? 0) * 1000)) - offset * 1000;
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

function typedCell(raw: string, oid: number, secrets: readonly string[]): SqlCell {
  if (oid === OID.bool) return raw === 't';
  if (INTEGER_OIDS.has(oid)) {
    const n = Number(raw);
    return Number.isSafeInteger(n) ? n : raw;
  }
  if (FLOAT_OIDS.has(oid)) {
    const n = Number(raw);
    return Number.isFinite(n) ? n : raw;
  }
  if (oid === OID.timestamp || oid === OID.timestamptz) return timestampIso(raw) ?? raw;
  if (oid === OID.date) return /^\d{4}-\d{2}-\d{2}$/.test(raw) ? raw : redactText(raw, { secrets, maxStringLength: 40 });
  if (oid === OID.interval) return intervalSeconds(raw);
  if (ADDRESS_OIDS.has(oid)) return '[redacted-address]';
  if (oid === OID.aclitems) return '[redacted]';
  if (oid === OID.bytea) return `[binary ${Math.max(0, (raw.length - 2) / 2)} bytes]`;
  if (TEXT_OIDS.has(oid)) return redactText(raw, { secrets, maxStringLength: 1000 });
  // Records, JSON and types we do not know are not evidence a model can use.
  return '[structured value]';
}

type ColumnPlan = { kind: 'digest' | 'user' | 'redacted' | 'typed'; oid: number };

function planColumns(fields: readonly FieldDef[], secrets: readonly string[]): { columns: string[]; plans: ColumnPlan[] } {
  const columns: string[] = [];
  const plans = fields.map((f): ColumnPlan => {
    const name = f.name.toLowerCase();
    if (STATEMENT_TEXT_COLUMNS.has(name)) {
      columns.push(`${name}_digest`, `${name}_kind`);
      return { kind: 'digest', oid: f.dataTypeID };
    }
    columns.push(redactText(f.name, { secrets, maxStringLength: 64 }));
    if (USER_COLUMNS.has(name)) return { kind: 'user', oid: f.dataTypeID };
    if (REDACTED_COLUMNS.has(name)) return { kind: 'redacted', oid: f.dataTypeID };
    return { kind: 'typed', oid: f.dataTypeID };
  });
  return { columns, plans };
}

function sanitiseRow(raw: readonly (string | null)[], plans: readonly ColumnPlan[], secrets: readonly string[]): SqlCell[] {
  const cells: SqlCell[] = [];
  plans.forEach((plan, i) => {
    const value = raw[i] ?? null;
    if (plan.kind === 'digest') {
      // Statement text leaves only as a reference and its first keyword.
      const present = value !== null && value.trim().length > 0;
      cells.push(present ? opaqueRef('digest', value) : null, present ? statementKind(value) : null);
    } else if (value === null) cells.push(null);
    else if (plan.kind === 'user') cells.push(userRef(value));
    else if (plan.kind === 'redacted') cells.push('[redacted]');
    else cells.push(typedCell(value, plan.oid, secrets));
  });
  return cells;
}

// ---------------------------------------------------------------------------------------------
// Errors

const TIMEOUT_SQLSTATES: Readonly<Record<string, string>> = {
  '57014': 'statement timeout',
  '55P03': 'lock timeout',
  '25P03': 'idle-in-transaction timeout',
};
const AUTH_SQLSTATES = new Set(['28P01', '28000']);
const TLS_ERROR = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/;
const SYSTEM_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name did not resolve',
  EAI_AGAIN: 'host name did not resolve',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
};

const timeoutError = (detail: string) => new ProviderError('PROVIDER.TIMEOUT', detail, { retryable: true });

function serverError(error: DatabaseError, secrets: readonly string[], relations: readonly string[]): ProviderError {
  const code = error.code ?? 'XX000';
  const message = redactText(`${code}: ${error.message}`, { secrets, maxStringLength: 500 });
  if (TIMEOUT_SQLSTATES[code]) return timeoutError(`PostgreSQL ${TIMEOUT_SQLSTATES[code]}: ${message}`);
  // The server's text names the role; the detail keeps only the fact.
  if (AUTH_SQLSTATES.has(code)) return new ProviderError('PROVIDER.AUTH_FAILED', `PostgreSQL refused the configured credentials (SQLSTATE ${code})`);
  if (code === '42501') return new ProviderError('PROVIDER.AUTH_FAILED', `the configured role may not read this: ${message}`);
  if (code === '3D000') return new ProviderError('PROVIDER.UNREACHABLE', `the configured database does not exist (SQLSTATE ${code})`);
  if (relations.includes('pg_stat_statements') && /pg_stat_statements/.test(error.message) && (code === '42P01' || code === '55000')) {
    const why = code === '42P01' ? 'the extension is not installed in this database' : 'the module is not loaded (shared_preload_libraries)';
    return new ProviderError('PROVIDER.QUERY_REJECTED', `pg_stat_statements is not available: ${why}`);
  }
  if (code === '25006') return new ProviderError('PROVIDER.QUERY_REJECTED', `the read-only transaction refused a write: ${message}`);
  if (code.startsWith('08') || code.startsWith('53') || code.startsWith('57P')) return new ProviderError('PROVIDER.UNREACHABLE', message, { retryable: true });
  return new ProviderError('PROVIDER.QUERY_REJECTED', message);
}

function toProviderError(error: unknown, context: { secrets: readonly string[]; relations: readonly string[]; connected: boolean; connectTimeoutMs: number }): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof DatabaseError) return serverError(error, context.secrets, context.relations);
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  const message = error instanceof Error ? error.message : String(error);
  if (!context.connected && /timeout expired|connection timeout/i.test(message)) return timeoutError(`connecting to PostgreSQL timed out after ${context.connectTimeoutMs} ms`);
  // System and TLS messages carry the address; only the code is kept.
  if (SYSTEM_ERRORS[code]) return new ProviderError('PROVIDER.UNREACHABLE', `PostgreSQL ${SYSTEM_ERRORS[code]} (${code})`, { retryable: true });
  if (TLS_ERROR.test(code)) return new ProviderError('PROVIDER.UNREACHABLE', `TLS to PostgreSQL failed (${code})`);
  if (/does not support SSL/i.test(message)) return new ProviderError('PROVIDER.UNREACHABLE', 'the PostgreSQL server does not support TLS');
  if (/terminated/i.test(message)) return new ProviderError('PROVIDER.UNREACHABLE', 'the PostgreSQL connection was closed', { retryable: true });
  return new ProviderError('PROVIDER.UNREACHABLE', redactText(`PostgreSQL client error: ${message}`, { secrets: context.secrets, maxStringLength: 300 }), { retryable: true });
}

// ---------------------------------------------------------------------------------------------
// The query

function boundedInteger(value: number | undefined, fallback: number, max: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new ProviderError('PROVIDER.INPUT_INVALID', `${name} must be a positive integer`);
  return Math.min(value, max);
}

/** The transaction every statement runs in; numbers only, so nothing caller-controlled. */
function sessionSetup(timeoutMs: number): string {
  return [
    'BEGIN READ ONLY',
    `SET LOCAL statement_timeout = ${timeoutMs}`,
    `SET LOCAL lock_timeout = ${timeoutMs}`,
    `SET LOCAL idle_in_transaction_session_timeout = ${timeoutMs + 5000}`,
    // pg_catalog first: an unqualified allowlisted name cannot resolve to a look-alike table.
    'SET LOCAL search_path = pg_catalog, public',
    "SET LOCAL TimeZone = 'UTC'",
    "SET LOCAL DateStyle = 'ISO, YMD'",
    "SET LOCAL IntervalStyle = 'iso_8601'",
    'SHOW transaction_read_only',
  ].join('; ');
}

/** Every value arrives as its text form; {@link typedCell} types it. */
const RAW_TEXT: CustomTypesConfig = { getTypeParser: (() => (value: string) => value) as unknown as CustomTypesConfig['getTypeParser'] };

/**
 * Runs one Agent-authored statistics SELECT on PostgreSQL. The statement is validated
 * ({@link validateReadOnlyPgSql}) before any network use, then runs on a fresh connection in
 * `BEGIN READ ONLY` with statement, lock and idle-in-transaction timeouts, bounded by a server-side
 * LIMIT, and is rolled back. Statement text comes back as `digest:<16 hex>` plus its first keyword
 * (`query_digest`, `query_kind`), client addresses and connection strings as `[redacted]`, role
 * names as `user:<16 hex>` references, other values typed (numbers, ISO timestamps, intervals in
 * seconds). The host and password never appear in a result or an error.
 */
export async function queryPostgresStats(endpointInput: PostgresStatsEndpoint, sql: string, options: PostgresStatsOptions = {}): Promise<PostgresStatsResult> {
  const parsed = PostgresStatsEndpoint.safeParse(endpointInput);
  if (!parsed.success) {
    throw new ProviderError('PROVIDER.INPUT_INVALID', `PostgreSQL endpoint is invalid at ${parsed.error.issues.map((i) => issueField(i)).join(', ')}`);
  }
  const endpoint = parsed.data;
  const checked = validateReadOnlyPgSql(sql, options.field ?? 'sql');
  const maxRows = boundedInteger(options.maxRows, POSTGRES_STATS_LIMITS.defaultRows, POSTGRES_STATS_LIMITS.maxRows, 'maxRows');
  const maxBytes = boundedInteger(options.maxBytes, POSTGRES_STATS_LIMITS.maxBytes, POSTGRES_STATS_LIMITS.maxBytes, 'maxBytes');
  const timeoutMs = boundedInteger(options.timeoutMs, POSTGRES_STATS_LIMITS.defaultTimeoutMs, POSTGRES_STATS_LIMITS.maxTimeoutMs, 'timeoutMs');
  const connectTimeoutMs = endpoint.connectTimeoutMs ?? POSTGRES_STATS_LIMITS.connectTimeoutMs;
  const secrets = postgresStatsSecrets(endpoint);
  if (options.signal?.aborted) throw timeoutError('PostgreSQL query was cancelled by its deadline');

  // Our own socket, so cancelling releases the connection at once whatever the server is doing.
  const socket = new Socket();
  const client = new Client({
    stream: () => socket,
    host: endpoint.host,
    port: endpoint.port,
    user: endpoint.user,
    password: endpoint.password,
    database: endpoint.database,
    ssl: endpoint.ssl,
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: 'aoc-pg-stats',
    types: RAW_TEXT,
  });
  client.on('error', () => undefined);
  const state = { connected: false, aborted: false };
  let cancel: (detail: string) => void = () => undefined;
  const cancelled = new Promise<never>((_, reject) => {
    cancel = (detail) => {
      state.aborted = true;
      socket.destroy();
      reject(timeoutError(detail));
    };
  });
  cancelled.catch(() => undefined);
  const onAbort = () => cancel('PostgreSQL query was cancelled by its deadline');
  options.signal?.addEventListener('abort', onAbort);
  const backstop = setTimeout(() => cancel(`PostgreSQL query exceeded ${timeoutMs} ms`), connectTimeoutMs + timeoutMs + 2000);

  const work = async (): Promise<PostgresStatsResult> => {
    await client.connect();
    state.connected = true;
    const setup = (await client.query(sessionSetup(timeoutMs))) as unknown as { rows: { transaction_read_only?: string }[] }[];
    if (setup[setup.length - 1]?.rows[0]?.transaction_read_only !== 'on') throw new ProviderError('PROVIDER.UNREACHABLE', 'the PostgreSQL transaction did not become read-only');
    // Extended protocol: the server itself refuses a second statement.
    const bounded: QueryArrayConfig & { queryMode: 'extended' } = { text: `SELECT * FROM (\n${checked.sql}\n) AS aoc_stats LIMIT ${maxRows + 1}`, rowMode: 'array', queryMode: 'extended' };
    const result = await client.query<(string | null)[]>(bounded);
    await client.query('ROLLBACK');
    const { columns, plans } = planColumns(result.fields, secrets);
    const rows: SqlCell[][] = [];
    let bytes = Buffer.byteLength(JSON.stringify(columns), 'utf8') + 64;
    let truncated = result.rows.length > maxRows;
    for (const raw of result.rows.slice(0, maxRows)) {
      const cells = sanitiseRow(raw, plans, secrets);
      bytes += Buffer.byteLength(JSON.stringify(cells), 'utf8') + 1;
      if (bytes > maxBytes) {
        truncated = true;
        break;
      }
      rows.push(cells);
    }
    const out = PostgresStatsResult.safeParse({ columns, rows, rowCount: rows.length, truncated });
    if (!out.success) throw new ProviderError('PROVIDER.RESPONSE_INVALID', 'the PostgreSQL result did not fit the result shape');
    return out.data;
  };

  try {
    return await Promise.race([work(), cancelled]);
  } catch (error) {
    if (state.aborted && !(error instanceof ProviderError)) throw timeoutError('PostgreSQL query was cancelled by its deadline');
    throw toProviderError(error, { secrets, relations: checked.relations, connected: state.connected, connectTimeoutMs });
  } finally {
    clearTimeout(backstop);
    options.signal?.removeEventListener('abort', onAbort);
    // One connection per statement: nothing is reused, so a failed or cut read leaves no state.
    if (state.connected && !state.aborted && !socket.destroyed) await Promise.race([client.end().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
    socket.destroy();
  }
}
