import fc from 'fast-check';
import { ProviderError } from '../core/provider-error';
import { slowQueryStatements, topSqlStatement } from '../packages/clinic/clinic-statements.operation';
import { DENIED_MYSQL_FUNCTIONS, DENIED_PG_FUNCTIONS, LEGIT_MYSQL, LEGIT_MYSQL_GENERAL, LEGIT_PG, LEGIT_PROMQL, hostileMySql, hostilePg, hostilePromQl } from '../../test/hostile-queries';
import { MYSQL_READ_FUNCTIONS } from './mysql-read-only-rules';
import { validatePromQl } from './promql';
import { validateReadOnlyMySqlStats } from './read-only-mysql-stats';
import { PG_STATS_FUNCTIONS, validateReadOnlyPgSql } from './read-only-pg-sql';
import { validateReadOnlySql } from './read-only-sql';

/** The refusal of a call; fails the test when the call returns or throws anything else. */
function refusal(call: () => unknown): ProviderError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    return error as ProviderError;
  }
  throw new Error('expected a refusal, the query passed validation');
}

const RUNS = { numRuns: 1500 };

/** Refused with the typed error by a real rule, never by a checker failure. */
function expectRefused(call: () => unknown, field: string): ProviderError {
  const error = refusal(call);
  expect(error.code).toBe('PROVIDER.QUERY_REJECTED');
  expect(error.detail.startsWith(`${field}: `)).toBe(true);
  expect(error.detail).not.toMatch(/could not be checked/);
  return error;
}

describe('hostile SQL for MySQL / TiDB / MariaDB never passes', () => {
  it.each(Object.keys(hostileMySql) as (keyof typeof hostileMySql)[])('property: %s (general path and statistics path)', (family) => {
    fc.assert(
      fc.property(hostileMySql[family], (sql) => {
        expectRefused(() => validateReadOnlySql(sql, 'q.sql'), 'q.sql');
        expectRefused(() => validateReadOnlyMySqlStats(sql, 'q.sql'), 'q.sql');
      }),
      RUNS,
    );
  });

  it.each([
    ['SELECT 1 /*!50000 , SLEEP(10) */', /executable comments are not allowed/],
    ["SELECT 1 /*! INTO OUTFILE '/tmp/x' */", /executable comments are not allowed/],
    ['SELECT * FROM t /*! FOR UPDATE */', /executable comments are not allowed/],
    ["SELECT wait_for_executed_gtid_set('x', 1)", /function wait_for_executed_gtid_set\(\) is not allowed/],
    ['SELECT 1 /*M!100000 , SLEEP(10) */', /executable comments/],
    ['SELECT 1 /*T![clustered_index] , SLEEP(10) */', /executable comments/],
    ['SELECT /*+ MAX_EXECUTION_TIME(0) */ 1', /optimizer hint comments are not allowed/],
    ['SELECT /* plain */ 1', /SQL comments are not allowed/],
    ['SELECT 1 -- x', /SQL comments are not allowed/],
    ['SELECT 1 # x', /SQL comments are not allowed/],
    ['SELECT 1; SELECT 2', /exactly one statement/],
    ["SELECT 'a\\' , SLEEP(1) -- '", /backslashes/],
    ['SELECT @x', /user variables \(@x\) are not allowed/],
    ["SELECT @'x'", /user variables/],
    ["SELECT 1 INTO OUTFILE '/tmp/x'", /SELECT \.\.\. INTO writes data/],
    ['SELECT * FROM t FOR UPDATE', /locking read \(FOR UPDATE\)/],
    ['SELECT * FROM t FOR SHARE', /locking read \(FOR SHARE\)/],
    ['SELECT * FROM t LOCK IN SHARE MODE', /locking read \(LOCK IN SHARE MODE/],
    ["SELECT LOAD_FILE('/etc/passwd')", /LOAD_FILE is not allowed/],
    ['SELECT mysql.sleep(1)', /qualified calls/],
    ['SELECT `sleep`(1)', /function sleep\(\) is not allowed/],
    ['SELECT COALESCE(SLEEP(1), 0)', /function sleep\(\) is not allowed/],
    ['SELECT * FROM (SELECT * FROM (SELECT BENCHMARK(1000000, MD5(1))) a) b', /function benchmark\(\) is not allowed/],
    ['SELECT 1\u200b', /invisible or control characters are not allowed \(U\+200B\)/],
    ['\ufeffSELECT 1', /U\+FEFF/],
    ['SELECT 1 \u202e', /U\+202E/],
    ['SELECT 1\u0000', /U\+0000/],
    ['SELECT \u0455leep(1)', /non-ASCII characters are allowed only inside quoted text \(found U\+0455\)/],
    ['HANDLER t OPEN', /only SELECT, SHOW and EXPLAIN are allowed, found HANDLER/],
    ['SELECT a FROM t PROCEDURE ANALYSE()', /PROCEDURE is not allowed/],
  ])('refuses %p naming what', (sql, why) => {
    expect(expectRefused(() => validateReadOnlySql(sql, 'queries.q1.sql'), 'queries.q1.sql').detail).toMatch(why);
  });

  it('allowlists functions: none of the dangerous ones is on it', () => {
    const allowed = new Set(MYSQL_READ_FUNCTIONS);
    expect(DENIED_MYSQL_FUNCTIONS.filter((f) => allowed.has(f))).toEqual([]);
    for (const f of DENIED_MYSQL_FUNCTIONS) expect(refusal(() => validateReadOnlySql(`SELECT ${f}(1)`)).detail).toMatch(/is not allowed/);
  });

  it('keeps passing what the product sends', () => {
    for (const sql of LEGIT_MYSQL_GENERAL) expect(validateReadOnlySql(sql).sql).toBe(sql.trim().replace(/;$/, ''));
    for (const sql of LEGIT_MYSQL) expect(validateReadOnlyMySqlStats(sql).sql).toBe(sql);
  });

  it("keeps passing Clinic's own diagnostic-table reads", () => {
    const config = { sql: { systemSchema: 'information_schema' } };
    const window = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z', fromMs: Date.parse('2026-11-20T10:00:00Z'), toMs: Date.parse('2026-11-20T11:00:00Z') };
    const slow = slowQueryStatements({ config, window }, 10, 0.3);
    for (const sql of [topSqlStatement({ config, window }, 10), slow.groups, slow.count]) expect(validateReadOnlySql(sql).statement).toBe('select');
  });
});

describe('hostile SQL for PostgreSQL never passes', () => {
  it.each(Object.keys(hostilePg) as (keyof typeof hostilePg)[])('property: %s', (family) => {
    fc.assert(
      fc.property(hostilePg[family], (sql) => {
        expectRefused(() => validateReadOnlyPgSql(sql, 'q.sql'), 'q.sql');
      }),
      RUNS,
    );
  });

  it('allowlists functions: none of the dangerous ones is on it', () => {
    const allowed = new Set(PG_STATS_FUNCTIONS);
    expect(DENIED_PG_FUNCTIONS.filter((f) => allowed.has(f))).toEqual([]);
  });

  it('keeps passing the statistics templates', () => {
    for (const sql of LEGIT_PG) expect(validateReadOnlyPgSql(sql).sql).toBe(sql);
  });
});

describe('hostile PromQL never passes', () => {
  /** The limit each family must hit: a parse error would make the property prove nothing. */
  const WHY: Record<keyof typeof hostilePromQl, RegExp> = {
    hugeRange: /read .+ back; at most 30d/,
    hugeSubqueryRange: /read .+ back; at most 30d/,
    tooManyPoints: /evaluates \d+ points per step/,
    nestedTooDeep: /subqueries may nest at most 2 deep/,
    nestedPointsMultiply: /evaluates \d+ points per step/,
    hugeOffset: /read .+ back; at most 30d/,
    rangePlusOffset: /read .+ back; at most 30d/,
    atTimestamp: /@ modifier with a timestamp is not allowed/,
    comment: /PromQL comments \(#\) are not allowed/,
    subqueryWithoutStep: /needs an explicit resolution/,
    computedDuration: /durations must be literals/,
  };

  it.each(Object.keys(hostilePromQl) as (keyof typeof hostilePromQl)[])('property: %s', (family) => {
    fc.assert(
      fc.property(hostilePromQl[family], (promql) => {
        expect(expectRefused(() => validatePromQl(promql, 'q.promql'), 'q.promql').detail).toMatch(WHY[family]);
      }),
      RUNS,
    );
  });

  it('refuses the issue example [3650d:1s]', () => {
    expect(refusal(() => validatePromQl('max_over_time(up[3650d:1s])', 'q')).detail).toMatch(/subquery \[3650d:1s\] makes the expression read 3650d back; at most 30d/);
  });

  it('keeps passing what the product builds, up to the limits', () => {
    for (const q of LEGIT_PROMQL) expect(validatePromQl(q)).toBe(q);
  });
});
