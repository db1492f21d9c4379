import type { Connection as PromiseConnection } from 'mysql2/promise';
import { ProviderError } from '../core/provider-error';
import { DEFAULT_READ_ONLY_SQL_LIMITS, MySqlStatsEndpoint, runReadOnlySql } from './mysql-connector';
import { grantsProblem, prepareSession } from './mysql-session';

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

/** A TiDB without noop functions: the read-only statement is refused; SHOW GRANTS answers `grants`. */
const tidbRefusing = (grants: string[]) =>
  fakeSession((sql) => {
    if (sql.startsWith('SET SESSION TRANSACTION')) return serverError(1235, 'function READ ONLY has only noop implementation in tidb now');
    if (sql === 'SHOW GRANTS') return grants.map((g) => ({ 'Grants for aoc@%': g }));
    return [{}];
  });

/** A TiDB with noop functions: everything is accepted and reported, nothing enforced. */
const tidbNoop = () =>
  fakeSession((sql) => {
    if (sql.includes('transaction_read_only')) return [{ ro: 1 }];
    if (sql.includes('VERSION()')) return [{ v: '8.0.11-TiDB-v7.5.1' }];
    if (sql === 'SHOW GRANTS') return [{ g: "GRANT USAGE ON *.* TO 'aoc'@'%'" }, { g: "GRANT SELECT ON information_schema.* TO 'aoc'@'%'" }];
    return [{}];
  });

const refusal = async (p: Promise<unknown>): Promise<ProviderError> => {
  const error = await p.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
};

describe('read-only session setup', () => {
  it('refuses a server that refuses SET SESSION TRANSACTION READ ONLY (TiDB) unless a SELECT-only account is attested', async () => {
    const { session, ran } = tidbRefusing([]);
    const error = await refusal(prepareSession(session, DEFAULT_READ_ONLY_SQL_LIMITS));
    expect(error.code).toBe('PROVIDER.TARGET_REJECTED');
    expect(error.detail).toMatch(/refused SET SESSION TRANSACTION READ ONLY \(error 1235\).*attestedSelectOnlyAccount: true/);
    expect(ran).toHaveLength(1);
  });

  it('refuses TiDB even when it accepts the statement: there it is a no-op', async () => {
    const { session, ran } = tidbNoop();
    const error = await refusal(prepareSession(session, DEFAULT_READ_ONLY_SQL_LIMITS));
    expect(error.code).toBe('PROVIDER.TARGET_REJECTED');
    expect(error.detail).toMatch(/TiDB accepts SET SESSION TRANSACTION READ ONLY only as a no-op/);
    expect(ran.some((s) => s.startsWith('SET SESSION max_execution_time'))).toBe(false);
  });

  it('runs on an attested SELECT-only account after checking its grants, and says so', async () => {
    const { session, ran } = tidbNoop();
    const state = await prepareSession(session, DEFAULT_READ_ONLY_SQL_LIMITS, { attestedSelectOnlyAccount: true });
    expect(state).toMatchObject({ readOnlySession: false, readOnlyGuard: 'attested_account', statementTimeout: 'max_execution_time' });
    expect(ran).toContain('SHOW GRANTS');
    const refusing = tidbRefusing(["GRANT SELECT, PROCESS ON *.* TO 'aoc'@'%'", "GRANT SELECT (`a`, `b`) ON `db`.`t` TO 'aoc'@'%'"]);
    expect(await prepareSession(refusing.session, DEFAULT_READ_ONLY_SQL_LIMITS, { attestedSelectOnlyAccount: true })).toMatchObject({ readOnlySession: false, readOnlyGuard: 'attested_account' });
  });

  it.each([
    [["GRANT SELECT, INSERT ON `db`.* TO 'aoc'@'%'"], /the account holds INSERT/],
    [["GRANT FILE ON *.* TO 'aoc'@'%'"], /the account holds FILE/],
    [["GRANT LOCK TABLES, SELECT ON *.* TO 'aoc'@'%'"], /the account holds LOCK TABLES/],
    [["GRANT ALL PRIVILEGES ON *.* TO 'aoc'@'%'"], /the account holds ALL PRIVILEGES/],
    [["GRANT EXECUTE ON FUNCTION `db`.`f` TO 'aoc'@'%'"], /the account holds EXECUTE/],
    [["GRANT SELECT ON *.* TO 'aoc'@'%' WITH GRANT OPTION"], /WITH GRANT OPTION/],
    [["GRANT `role_admin`@`%` TO 'aoc'@'%'"], /role or PROXY grant\) cannot be verified/],
    [[], /listed no grants/],
  ])('refuses an attested account whose grants say otherwise: %j', async (grants, why) => {
    const error = await refusal(prepareSession(tidbRefusing(grants).session, DEFAULT_READ_ONLY_SQL_LIMITS, { attestedSelectOnlyAccount: true }));
    expect(error.code).toBe('PROVIDER.TARGET_REJECTED');
    expect(error.detail).toMatch(why);
  });

  it('never reports the password hash a grant line may carry', () => {
    const problem = grantsProblem(["GRANT USAGE, SUPER ON *.* TO `aoc`@`%` IDENTIFIED BY PASSWORD '*0123456789ABCDEF'"]);
    expect(problem).toBe('the account holds SUPER');
  });

  it('refuses when the session does not report itself read-only', async () => {
    const { session } = fakeSession((sql) => (sql.includes('transaction_read_only') ? [{ ro: 0 }] : [{}]));
    await expect(prepareSession(session, DEFAULT_READ_ONLY_SQL_LIMITS)).rejects.toMatchObject({ code: 'PROVIDER.TARGET_REJECTED', detail: expect.stringMatching(/^the SQL session did not become read-only; /) });
  });

  it('a read-only session needs no attestation and reads no grants', async () => {
    const { session, ran } = fakeSession((sql) => (sql.includes('transaction_read_only') ? [{ ro: 1 }] : sql.includes('VERSION()') ? [{ v: '10.11.6-MariaDB' }] : [{}]));
    expect(await prepareSession(session, DEFAULT_READ_ONLY_SQL_LIMITS, { attestedSelectOnlyAccount: true })).toMatchObject({ readOnlySession: true, readOnlyGuard: 'session' });
    expect(ran).not.toContain('SHOW GRANTS');
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

describe('MySQL endpoint configuration', () => {
  const base = { host: '127.0.0.1', port: 1, user: 'aoc', password: 'pw' };

  it('takes the attestation flag, and only a boolean', () => {
    expect(MySqlStatsEndpoint.parse({ ...base, attestedSelectOnlyAccount: true }).attestedSelectOnlyAccount).toBe(true);
    expect(MySqlStatsEndpoint.safeParse({ ...base, attestedSelectOnlyAccount: 'yes' }).success).toBe(false);
    expect(MySqlStatsEndpoint.safeParse({ ...base, selectOnly: true }).success).toBe(false);
  });

  it('refuses an endpoint that does not fit before any network use', async () => {
    const error = await refusal(runReadOnlySql({ ...base, port: 0 }, 'SELECT 1'));
    expect(error.code).toBe('PROVIDER.INPUT_INVALID');
    expect(error.detail).toMatch(/MySQL endpoint is invalid at port/);
  });
});
