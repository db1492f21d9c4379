import type { Connection as PromiseConnection, RowDataPacket } from 'mysql2/promise';
import { ProviderError } from '../core/provider-error';
import type { ReadOnlySqlLimits, StatementTimeoutKind } from './mysql-connector';

/**
 * The session every MySQL-protocol statement runs in. Read-only is verified, not assumed; a
 * server whose session cannot be made read-only (TiDB: `SET SESSION TRANSACTION READ ONLY` is
 * refused, or accepted only as a no-op) is refused unless the configuration attests a
 * SELECT-only account — and then the account's grants are checked before anything runs.
 */

/** What keeps a statement from writing: the session itself, or an attested (and checked) SELECT-only account. */
export type ReadOnlyGuard = 'session' | 'attested_account';

export interface SessionState {
  readOnlySession: boolean;
  readOnlyGuard: ReadOnlyGuard;
  statementTimeout: StatementTimeoutKind;
}

export interface SessionOptions {
  /** The configuration attests the account can only read (see libs/providers/README.md for its grants). */
  attestedSelectOnlyAccount?: boolean;
}

/**
 * Privileges an attested account may hold: reads, and PROCESS / the replication monitors for the
 * monitoring reads that need them. Anything else (a write, FILE, LOCK TABLES, EXECUTE, SUPER, a
 * role whose privileges `SHOW GRANTS` does not list) refuses the server.
 */
export const SELECT_ONLY_PRIVILEGES: readonly string[] = ['SELECT', 'USAGE', 'SHOW VIEW', 'SHOW DATABASES', 'PROCESS', 'REPLICATION CLIENT', 'BINLOG MONITOR', 'SLAVE MONITOR', 'REPLICA MONITOR'];

const ALLOWED_PRIVILEGES = new Set(SELECT_ONLY_PRIVILEGES);
const GRANT_LINE = /^GRANT\s+(.+?)\s+ON\s+.+?\s+TO\s+/i;
const ER_UNKNOWN_SYSTEM_VARIABLE = 1193;

export const errnoOf = (error: unknown): number | null => {
  const n = (error as { errno?: unknown } | null)?.errno;
  return typeof n === 'number' ? n : null;
};
/**
 * The server refused the statement (error numbers from 1000), as opposed to a network or client
 * failure. The caller has finished the handshake first, so this is never a wrong password.
 */
const isServerError = (error: unknown): boolean => (errnoOf(error) ?? 0) >= 1000;

/**
 * Why `SHOW GRANTS` lines are more than SELECT-only, or null. Only privilege names are reported:
 * a line may also carry a password hash.
 */
export function grantsProblem(lines: readonly string[]): string | null {
  for (const line of lines) {
    const m = GRANT_LINE.exec(line.trim());
    if (!m) return 'a grant that is not a privilege list (a role or PROXY grant) cannot be verified';
    if (/\bWITH\s+GRANT\s+OPTION\b/i.test(line)) return 'the account may pass its privileges on (WITH GRANT OPTION)';
    const privileges = m[1]
      .replace(/\([^)]*\)/g, '')
      .split(',')
      .map((p) => p.trim().toUpperCase().replace(/\s+/g, ' '));
    const extra = privileges.filter((p) => !ALLOWED_PRIVILEGES.has(p));
    if (extra.length > 0) return `the account holds ${extra.slice(0, 6).join(', ')}`;
  }
  return lines.length === 0 ? 'the server listed no grants for the account' : null;
}

async function readOnlyFlag(session: Pick<PromiseConnection, 'query'>): Promise<unknown> {
  try {
    const [rows] = await session.query<RowDataPacket[]>('SELECT @@session.transaction_read_only AS ro');
    return rows[0]?.['ro'];
  } catch (error) {
    if (errnoOf(error) !== ER_UNKNOWN_SYSTEM_VARIABLE) throw error;
    const [rows] = await session.query<RowDataPacket[]>('SELECT @@session.tx_read_only AS ro');
    return rows[0]?.['ro'];
  }
}

/** Why the session is not read-only, or null when it is. */
async function readOnlyGap(session: Pick<PromiseConnection, 'query'>): Promise<string | null> {
  try {
    await session.query('SET SESSION TRANSACTION READ ONLY');
  } catch (error) {
    if (!isServerError(error)) throw error;
    return `the SQL server refused SET SESSION TRANSACTION READ ONLY (error ${errnoOf(error)})`;
  }
  if (Number(await readOnlyFlag(session)) !== 1) return 'the SQL session did not become read-only';
  const [rows] = await session.query<RowDataPacket[]>('SELECT VERSION() AS v');
  // TiDB reports the flag but enforces nothing (a no-op behind tidb_enable_noop_functions).
  if (/tidb/i.test(String(rows[0]?.['v'] ?? ''))) return 'TiDB accepts SET SESSION TRANSACTION READ ONLY only as a no-op, so its session is not read-only';
  return null;
}

/** The attestation is checked: `SHOW GRANTS` of the session's own account must be SELECT-only. */
async function verifySelectOnlyAccount(session: Pick<PromiseConnection, 'query'>, gap: string): Promise<void> {
  let lines: string[];
  try {
    const [rows] = await session.query<RowDataPacket[]>('SHOW GRANTS');
    lines = rows.map((r) => String(Object.values(r)[0] ?? ''));
  } catch (error) {
    if (!isServerError(error)) throw error;
    throw new ProviderError('PROVIDER.TARGET_REJECTED', `${gap}, and the grants of the attested SELECT-only account could not be read (error ${errnoOf(error)})`);
  }
  const problem = grantsProblem(lines);
  if (problem) throw new ProviderError('PROVIDER.TARGET_REJECTED', `${gap}, and the account attested as SELECT-only is not: ${problem}`);
}

/** sql_mode flags that change how the validator's lexer and the server split strings and identifiers. */
const QUOTING_MODES = new Set(['NO_BACKSLASH_ESCAPES', 'ANSI_QUOTES', 'ANSI']);

async function setStatementTimeout(session: Pick<PromiseConnection, 'query'>, limits: ReadOnlySqlLimits): Promise<StatementTimeoutKind> {
  try {
    await session.query('SET SESSION max_execution_time = ?', [limits.statementTimeoutMs]);
    return 'max_execution_time';
  } catch (error) {
    if (errnoOf(error) !== ER_UNKNOWN_SYSTEM_VARIABLE) throw error;
  }
  try {
    await session.query('SET SESSION max_statement_time = ?', [limits.statementTimeoutMs / 1000]);
    return 'max_statement_time';
  } catch (error) {
    if (errnoOf(error) !== ER_UNKNOWN_SYSTEM_VARIABLE) throw error;
    return 'client_only';
  }
}

/**
 * Puts a fresh, connected session (handshake done) into read-only mode (or checks the attested account) with a statement
 * timeout, a row cap and the quoting rules the validator lexed the statement under. Refusals are
 * `PROVIDER.TARGET_REJECTED` naming why; nothing runs after one.
 */
export async function prepareSession(session: Pick<PromiseConnection, 'query'>, limits: ReadOnlySqlLimits, options: SessionOptions = {}): Promise<SessionState> {
  const gap = await readOnlyGap(session);
  if (gap !== null && options.attestedSelectOnlyAccount !== true) {
    throw new ProviderError('PROVIDER.TARGET_REJECTED', `${gap}; a server whose session cannot be made read-only is refused unless its configuration attests a SELECT-only account (attestedSelectOnlyAccount: true)`);
  }
  if (gap !== null) await verifySelectOnlyAccount(session, gap);
  // With NO_BACKSLASH_ESCAPES the server would end a string where the lexer saw an escaped quote.
  const [modes] = await session.query<RowDataPacket[]>('SELECT @@SESSION.sql_mode AS m');
  const current = String(modes[0]?.['m'] ?? '').split(',').filter((m) => m.length > 0);
  if (current.some((m) => QUOTING_MODES.has(m.toUpperCase()))) {
    await session.query('SET SESSION sql_mode = ?', [current.filter((m) => !QUOTING_MODES.has(m.toUpperCase())).join(',')]);
  }
  const statementTimeout = await setStatementTimeout(session, limits);
  // Server-side row cap for plain SELECTs; the streaming cap covers everything else.
  await session.query('SET SESSION sql_select_limit = ?', [limits.maxRows + 1]);
  await session.query("SET SESSION time_zone = '+00:00'");
  return { readOnlySession: gap === null, readOnlyGuard: gap === null ? 'session' : 'attested_account', statementTimeout };
}
