import { connect as connectTcp, type Socket } from 'node:net';
import { z } from 'zod';
import { createConnection, type Connection, type FieldPacket, type QueryError } from 'mysql2';
import { ProviderError } from '../core/provider-error';
import { redactText } from '../core/sanitize';
import { validateReadOnlySql } from '../validation/read-only-sql';
import { errnoOf, prepareSession, type ReadOnlyGuard } from './mysql-session';
import { issueField } from '@aoc/errors';

export { prepareSession, grantsProblem, SELECT_ONLY_PRIVILEGES, type ReadOnlyGuard, type SessionOptions } from './mysql-session';

/**
 * A MySQL-protocol endpoint (TiDB, MySQL, MariaDB) read with the package's own account, never the
 * caller's: Clinic's SQL access and the generic package's `mysql`.
 */
export const MySqlStatsEndpoint = z
  .object({
    /** Secret: never in an error, a log or a result. */
    host: z.string().min(1).max(255),
    port: z.number().int().min(1).max(65535),
    user: z.string().min(1).max(80),
    /** Secret: never in an error, a log or a result. */
    password: z.string().max(1024),
    database: z.string().min(1).max(64).optional(),
    ssl: z.object({ ca: z.string().optional(), rejectUnauthorized: z.boolean().optional(), servername: z.string().optional() }).strict().optional(),
    connectTimeoutMs: z.number().int().min(100).max(60_000).optional(),
    /**
     * The operator attests the account can only read (SELECT, PROCESS at most; no FILE, no LOCK
     * TABLES, no writes). Only then does a server whose session cannot be made read-only (TiDB)
     * run anything, and only after its `SHOW GRANTS` confirms it. Never set by a caller.
     */
    attestedSelectOnlyAccount: z.boolean().optional(),
  })
  .strict();
export type MySqlStatsEndpoint = z.infer<typeof MySqlStatsEndpoint>;
/** The same endpoint under the name the Clinic package uses. */
export type MySqlEndpoint = MySqlStatsEndpoint;

/** Every value of the endpoint that must never appear in a result, an error or a log. */
export function mySqlStatsSecrets(endpoint: Pick<MySqlStatsEndpoint, 'host' | 'port' | 'password'>): string[] {
  return [endpoint.password, `${endpoint.host}:${endpoint.port}`, endpoint.host].filter((s) => s.length > 0);
}

export interface ReadOnlySqlLimits {
  maxRows: number;
  /** Approximate size of the row data kept in memory (JSON of the cells). */
  maxBytes: number;
  /** Server-side statement timeout where supported; the client enforces it too. */
  statementTimeoutMs: number;
}

export const DEFAULT_READ_ONLY_SQL_LIMITS: ReadOnlySqlLimits = { maxRows: 1000, maxBytes: 1024 * 1024, statementTimeoutMs: 30_000 };

export type SqlCell = string | number | boolean | null;

/** Which server-side statement timeout the session got. */
export type StatementTimeoutKind = 'max_execution_time' | 'max_statement_time' | 'client_only';

export interface ReadOnlySqlResult {
  statement: 'select' | 'show' | 'explain';
  columns: string[];
  rows: SqlCell[][];
  truncated: boolean;
  truncatedBy: 'rows' | 'bytes' | null;
  /**
   * True unless the server's session cannot be made read-only and the configuration attests a
   * (checked) SELECT-only account; without that attestation such a server is refused
   * (`PROVIDER.TARGET_REJECTED`) and nothing runs.
   */
  readOnlySession: boolean;
  readOnlyGuard: ReadOnlyGuard;
  statementTimeout: StatementTimeoutKind;
  durationMs: number;
}

const TIMEOUT_ERRNOS = new Set([3024, 1969, 1317]); // MySQL/TiDB max_execution_time, MariaDB max_statement_time, interrupted
const AUTH_ERRNOS = new Set([1044, 1045, 1142, 1143, 1227]);

function isQueryError(error: unknown): error is QueryError {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

/** MySQL syntax errors quote the statement back; keep the position, drop the text. */
function safeServerMessage(error: unknown, secrets: readonly string[]): string {
  const raw = error instanceof Error ? error.message : String(error);
  const withoutEcho = raw.replace(/near '[\s\S]*' at line (\d+)/, 'near [statement text omitted] at line $1');
  const code = isQueryError(error) ? error.code : 'ERROR';
  return redactText(`${code}: ${withoutEcho}`, { secrets, maxStringLength: 500 });
}

function toProviderError(error: unknown, secrets: readonly string[], aborted: boolean): ProviderError {
  if (error instanceof ProviderError) return error;
  if (aborted) return new ProviderError('PROVIDER.TIMEOUT', 'SQL query was cancelled by its deadline', { retryable: true });
  const errno = errnoOf(error);
  const code = isQueryError(error) ? error.code : '';
  if ((errno !== null && TIMEOUT_ERRNOS.has(errno)) || code === 'PROTOCOL_SEQUENCE_TIMEOUT') {
    return new ProviderError('PROVIDER.TIMEOUT', safeServerMessage(error, secrets), { retryable: true });
  }
  // A server that accepts the connection but never answers the handshake.
  if (code === 'ETIMEDOUT') return new ProviderError('PROVIDER.TIMEOUT', 'connecting to the SQL server timed out', { retryable: true });
  // System errors carry the address in their message; only the code is kept.
  if (/^E[A-Z]+$/.test(code) && (errno === null || errno < 1000)) return new ProviderError('PROVIDER.UNREACHABLE', `the SQL server could not be reached (${code})`, { retryable: true });
  if (errno !== null && AUTH_ERRNOS.has(errno)) return new ProviderError('PROVIDER.AUTH_FAILED', safeServerMessage(error, secrets));
  if (errno !== null && errno >= 1000) return new ProviderError('PROVIDER.QUERY_REJECTED', safeServerMessage(error, secrets));
  return new ProviderError('PROVIDER.UNREACHABLE', safeServerMessage(error, secrets), { retryable: true });
}

function cellOf(value: unknown): SqlCell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  // Binary and structured cells are not evidence a model can use; keep their shape only.
  if (Buffer.isBuffer(value)) return `[binary ${value.length} bytes]`;
  return '[structured value]';
}

function streamRows(connection: Connection, sql: string, limits: ReadOnlySqlLimits): Promise<Pick<ReadOnlySqlResult, 'columns' | 'rows' | 'truncated' | 'truncatedBy'>> {
  return new Promise((resolve, reject) => {
    const rows: SqlCell[][] = [];
    let columns: string[] = [];
    let bytes = 0;
    let settled = false;
    const finish = (truncatedBy: 'rows' | 'bytes' | null) => {
      if (settled) return;
      settled = true;
      resolve({ columns, rows, truncated: truncatedBy !== null, truncatedBy });
    };
    const query = connection.query({ sql, rowsAsArray: true });
    query.on('fields', (fields: FieldPacket[] | FieldPacket) => {
      columns = (Array.isArray(fields) ? fields : [fields]).map((f) => f.name);
    });
    query.on('result', (row: unknown) => {
      if (settled || !Array.isArray(row)) return;
      if (rows.length >= limits.maxRows) {
        // Stop reading: the connection is discarded, so the rest of the result never arrives.
        connection.pause();
        finish('rows');
        connection.destroy();
        return;
      }
      const cells = row.map(cellOf);
      bytes += Buffer.byteLength(JSON.stringify(cells), 'utf8');
      if (bytes > limits.maxBytes) {
        connection.pause();
        finish('bytes');
        connection.destroy();
        return;
      }
      rows.push(cells);
    });
    query.on('error', (error: QueryError) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
    query.on('end', () => finish(null));
  });
}

/** The endpoint through its schema: a configuration that does not fit is refused before any network use. */
function parseEndpoint(input: MySqlEndpoint): MySqlEndpoint {
  const parsed = MySqlStatsEndpoint.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ProviderError('PROVIDER.INPUT_INVALID', `MySQL endpoint is invalid at ${parsed.error.issues.map((i) => issueField(i)).join(', ')}`);
}

/**
 * Runs one Agent-authored statement read-only. The statement is validated (exactly one
 * SELECT/SHOW/EXPLAIN through the shared MySQL lexer and function allowlist) before any network
 * use; the session is read-only (or the attested account checked, `prepareSession`) with a
 * statement timeout; rows and bytes are capped while streaming. One connection per statement,
 * so a capped or cancelled read simply discards its connection.
 */
export async function runReadOnlySql(
  endpointInput: MySqlEndpoint,
  sql: string,
  options: { signal?: AbortSignal; limits?: Partial<ReadOnlySqlLimits>; field?: string } = {},
): Promise<ReadOnlySqlResult> {
  const endpoint = parseEndpoint(endpointInput);
  const checked = validateReadOnlySql(sql, options.field ?? 'sql');
  const limits: ReadOnlySqlLimits = { ...DEFAULT_READ_ONLY_SQL_LIMITS, ...options.limits };
  const secrets = [endpoint.password, endpoint.host].filter((s) => s.length >= 4);
  if (options.signal?.aborted) throw new ProviderError('PROVIDER.TIMEOUT', 'SQL query was cancelled by its deadline', { retryable: true });
  const started = Date.now();
  // Our own socket: mysql2's destroy() only half-closes, which a busy server ignores until its
  // statement ends; cancelling must release the connection at once.
  const socket: Socket = connectTcp({ host: endpoint.host, port: endpoint.port });
  const connection = createConnection({
    stream: socket,
    host: endpoint.host,
    port: endpoint.port,
    user: endpoint.user,
    password: endpoint.password,
    database: endpoint.database,
    connectTimeout: endpoint.connectTimeoutMs ?? 10_000,
    ssl: endpoint.ssl,
    multipleStatements: false,
    // No LOAD DATA LOCAL: the server must never be able to ask us for a file.
    flags: ['-LOCAL_FILES', '-MULTI_STATEMENTS'],
    timezone: 'Z',
    decimalNumbers: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
  });
  let aborted = false;
  let cancel: (detail: string) => void = () => undefined;
  // A destroyed connection does not fail its pending command, so cancellation settles on its own.
  const cancelled = new Promise<never>((_, reject) => {
    cancel = (detail) => {
      aborted = true;
      connection.destroy();
      socket.destroy();
      reject(new ProviderError('PROVIDER.TIMEOUT', detail, { retryable: true }));
    };
  });
  cancelled.catch(() => undefined);
  const onAbort = () => cancel('SQL query was cancelled by its deadline');
  options.signal?.addEventListener('abort', onAbort);
  // Client-side backstop for servers without a statement timeout; cleared on every path.
  const backstop = setTimeout(() => cancel(`SQL query exceeded ${limits.statementTimeoutMs} ms`), limits.statementTimeoutMs + 2000);
  // A destroyed or failed connection also emits 'error'; the awaited calls report it.
  connection.on('error', () => undefined);
  const work = async () => {
    // Handshake first: a refused login must surface as itself, not as a refused read-only session.
    await connection.promise().connect();
    const session = await prepareSession(connection.promise(), limits, { attestedSelectOnlyAccount: endpoint.attestedSelectOnlyAccount });
    const streamed = await streamRows(connection, checked.sql, limits);
    return { statement: checked.statement, ...streamed, ...session, durationMs: Date.now() - started };
  };
  try {
    return await Promise.race([work(), cancelled]);
  } catch (error) {
    throw toProviderError(error, secrets, aborted);
  } finally {
    clearTimeout(backstop);
    options.signal?.removeEventListener('abort', onAbort);
    connection.destroy();
    socket.destroy();
  }
}
