import type { Connection as PromiseConnection } from 'mysql2/promise';
import { ProviderError } from '../core/provider-error';
import { DEFAULT_READ_ONLY_SQL_LIMITS, prepareSession } from './mysql-connector';

type Reply = unknown[] | Error;

/** A session that answers each statement by its text; everything it ran is kept. */
function fakeSession(answer: (sql: string, values?: unknown[]) => Reply): { session: Pick<PromiseConnection, 'query'>; ran: string[] } {
  const ran: string[] = [];
  const query = async (sql: string, values?: unknown[]) => {
    ran.push(values ? `${sql} [${values.join(',')}]` : sql);
    const reply = answer(sql, values);
    if (reply instanceof Error) throw reply;
    return [reply, []];
  };
  return { session: { query } as unknown as Pick<PromiseConnection, 'query'>, ran };
}

const serverError = (errno: number, message: string) => Object.assign(new Error(message), { errno, code: 'ER' });

describe('read-only session setup', () => {
  it('fails closed when the server refuses SET SESSION TRANSACTION READ ONLY (TiDB without noop functions)', async () => {
    const { session, ran } = fakeSession((sql) => (sql.startsWith('SET SESSION TRANSACTION') ? serverError(1235, 'not supported') : [{}]));
    const error = await prepareSession(session, DEFAULT_READ_ONLY_SQL_LIMITS).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('PROVIDER.UNREACHABLE');
    expect((error as ProviderError).detail).toMatch(/read-only session/);
    expect(ran).toHaveLength(1);
  });

  it('fails closed when the session does not report itself read-only', async () => {
    const { session } = fakeSession((sql) => (sql.includes('transaction_read_only') ? [{ ro: 0 }] : [{}]));
    await expect(prepareSession(session, DEFAULT_READ_ONLY_SQL_LIMITS)).rejects.toMatchObject({ code: 'PROVIDER.UNREACHABLE', detail: 'the SQL session did not become read-only' });
  });

  it('drops the quoting modes under which the server would split strings differently from the validator', async () => {
    const { session, ran } = fakeSession((sql) => (sql.includes('transaction_read_only') ? [{ ro: 1 }] : sql.includes('@@SESSION.sql_mode') ? [{ m: 'STRICT_TRANS_TABLES,NO_BACKSLASH_ESCAPES,ANSI_QUOTES' }] : [{}]));
    const state = await prepareSession(session, DEFAULT_READ_ONLY_SQL_LIMITS);
    expect(state.readOnlySession).toBe(true);
    expect(ran).toContain('SET SESSION sql_mode = ? [STRICT_TRANS_TABLES]');
  });

  it('leaves a plain sql_mode alone', async () => {
    const { session, ran } = fakeSession((sql) => (sql.includes('transaction_read_only') ? [{ ro: 1 }] : sql.includes('@@SESSION.sql_mode') ? [{ m: 'STRICT_TRANS_TABLES' }] : [{}]));
    await prepareSession(session, DEFAULT_READ_ONLY_SQL_LIMITS);
    expect(ran.some((s) => s.startsWith('SET SESSION sql_mode'))).toBe(false);
  });
});
