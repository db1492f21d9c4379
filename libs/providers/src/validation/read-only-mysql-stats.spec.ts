import fc from 'fast-check';
import { ProviderError } from '../core/provider-error';
import { validateReadOnlyMySqlStats } from './read-only-mysql-stats';

const refused = (sql: string): string => {
  try {
    validateReadOnlyMySqlStats(sql, 'queries.q1.sql');
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('PROVIDER.QUERY_REJECTED');
    expect((error as ProviderError).detail).toMatch(/^queries\.q1\.sql: /);
    return (error as ProviderError).detail;
  }
  throw new Error(`expected a refusal of ${sql}`);
};

describe('read-only MySQL statistics SQL', () => {
  it.each([
    [
      'SELECT DIGEST, DIGEST_TEXT, COUNT_STAR AS calls, SUM_TIMER_WAIT / 1000000000 AS total_ms FROM performance_schema.events_statements_summary_by_digest ORDER BY SUM_TIMER_WAIT DESC LIMIT 10',
      ['performance_schema.events_statements_summary_by_digest'],
    ],
    ["SELECT COUNT(*) AS n, MAX(TIMESTAMPDIFF(SECOND, trx_started, NOW())) AS oldest FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'", ['information_schema.innodb_trx']],
    ['SELECT COMMAND AS command, STATE AS state, COUNT(*) AS sessions FROM information_schema.PROCESSLIST GROUP BY COMMAND, STATE', ['information_schema.processlist']],
    ['SELECT @@GLOBAL.max_connections AS max_connections, @@global.innodb_lock_wait_timeout AS innodb_lock_wait_timeout', []],
    ['SELECT INFO, HOST, USER FROM information_schema.PROCESSLIST', ['information_schema.processlist']],
    ['SELECT * FROM performance_schema.data_lock_waits', ['performance_schema.data_lock_waits']],
    ['SELECT x.n FROM (SELECT COUNT(*) AS n FROM information_schema.innodb_trx) x', ['information_schema.innodb_trx']],
  ])('accepts %s', (sql, relations) => {
    expect(validateReadOnlyMySqlStats(sql).relations).toEqual(relations);
  });

  it.each([
    ['SELECT 1 /*!50000 , SLEEP(10) */', /executable comments/],
    ["SELECT 1 /*! INTO OUTFILE '/tmp/x' */", /executable comments/],
    ['SELECT * FROM performance_schema.data_locks /*! FOR UPDATE */', /executable comments/],
    ['SELECT /*+ BKA(t) */ COUNT(*) FROM information_schema.innodb_trx', /comments are not allowed/],
    ['SELECT COUNT(*) FROM information_schema.innodb_trx -- x', /comments are not allowed/],
    ['SELECT COUNT(*) FROM information_schema.innodb_trx # x', /comments are not allowed/],
    ["SELECT 'a\\' , SLEEP(1) -- ' AS x", /backslashes|sleep/],
    ['SELECT * FROM mysql.user', /relation mysql\.user is not allowed/],
    ['SELECT * FROM orders', /relation orders is not allowed/],
    ['SELECT * FROM information_schema.tables', /relation information_schema\.tables is not allowed/],
    ["SELECT COALESCE(DIGEST_TEXT, 'x') AS t FROM performance_schema.events_statements_summary_by_digest", /digest_text may only be selected as itself/],
    ['SELECT DIGEST_TEXT AS t FROM performance_schema.events_statements_summary_by_digest', /may not be renamed/],
    ["SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE '%password%'", /info may only be selected as itself/],
    ['SELECT COUNT(*) AS n FROM information_schema.processlist UNION SELECT INFO FROM information_schema.processlist', /UNION/],
    ['WITH x AS (SELECT 1 AS a) SELECT a FROM x', /WITH|relation/],
    ['SELECT @@GLOBAL.secure_file_priv AS x', /variables are not allowed/],
    ['SELECT @a := 1', /variables|not allowed|parse/],
    ["SELECT wait_for_executed_gtid_set('x', 10)", /function .* is not allowed/],
    ["SELECT CONVERT(x USING utf8) FROM information_schema.innodb_trx", /not allowed|parse/],
    ['SELECT COUNT(*) FROM information_schema.innodb_trx; SELECT 1', /exactly one statement/],
    ['SHOW PROCESSLIST', /only a single SELECT/],
    ['SELECT * FROM information_schema.innodb_trx FOR UPDATE', /locking read/],
  ])('refuses %p', (sql, why) => expect(refused(sql)).toMatch(why));

  it('never crashes: accepted or a QUERY_REJECTED naming the field', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 200 }), fc.string({ maxLength: 120 }).map((s) => `SELECT ${s} FROM information_schema.innodb_trx`)), (s) => {
        try {
          validateReadOnlyMySqlStats(s, 'f');
        } catch (e) {
          expect(e).toBeInstanceOf(ProviderError);
          expect((e as ProviderError).code).toBe('PROVIDER.QUERY_REJECTED');
          expect((e as ProviderError).detail).toMatch(/^f: /);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
