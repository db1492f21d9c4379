/**
 * Rule data of the MySQL/TiDB/MariaDB read-only check (the engine is `mysql-lexer.ts` and
 * `read-only-sql.ts`). Everything here is an allowlist except the refused words, which are the
 * words no read needs, refused even where the parser would have accepted them.
 */

/** First words a statement may start with (after any opening parentheses). */
export const MYSQL_STATEMENT_STARTS: readonly string[] = ['select', 'with', 'show', 'explain', 'describe', 'desc'];

/**
 * Functions any MySQL-protocol read may call, lower-case: aggregates, window functions,
 * arithmetic, strings, dates, JSON reads. Nothing that waits, locks, reads files, writes session
 * state or sequences (SLEEP, BENCHMARK, GET_LOCK, LOAD_FILE, *_POS_WAIT, WAIT_FOR_EXECUTED_GTID_SET,
 * LAST_INSERT_ID, NEXTVAL, ...): a name not listed here is refused, whatever it is.
 */
export const MYSQL_READ_FUNCTIONS: readonly string[] = [
  // aggregates
  'count', 'sum', 'avg', 'min', 'max', 'group_concat', 'std', 'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp',
  'bit_and', 'bit_or', 'bit_xor', 'any_value', 'approx_count_distinct', 'approx_percentile', 'json_arrayagg', 'json_objectagg',
  // window functions
  'row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead', 'first_value', 'last_value', 'nth_value',
  // control flow
  'if', 'ifnull', 'nullif', 'coalesce', 'greatest', 'least', 'isnull',
  // numbers
  'abs', 'ceil', 'ceiling', 'floor', 'round', 'mod', 'pow', 'power', 'sqrt', 'exp', 'ln', 'log', 'log2', 'log10', 'sign',
  // strings
  'concat', 'concat_ws', 'length', 'char_length', 'character_length', 'lower', 'upper', 'lcase', 'ucase', 'left', 'right', 'substring', 'substr',
  'substring_index', 'trim', 'ltrim', 'rtrim', 'replace', 'locate', 'instr', 'lpad', 'rpad', 'reverse', 'repeat', 'format', 'hex', 'strcmp',
  'field', 'find_in_set', 'regexp_like', 'regexp_substr', 'regexp_instr', 'regexp_replace', 'format_bytes', 'format_pico_time',
  // dates and times
  'now', 'current_timestamp', 'current_date', 'current_time', 'curdate', 'curtime', 'utc_timestamp', 'utc_date', 'utc_time', 'localtime',
  'localtimestamp', 'unix_timestamp', 'from_unixtime', 'date', 'time', 'timestamp', 'year', 'month', 'day', 'dayofmonth', 'dayofweek',
  'dayofyear', 'hour', 'minute', 'second', 'microsecond', 'week', 'weekday', 'quarter', 'date_format', 'time_format', 'str_to_date',
  'date_add', 'date_sub', 'adddate', 'subdate', 'addtime', 'subtime', 'datediff', 'timediff', 'timestampdiff', 'timestampadd', 'to_days',
  'to_seconds', 'time_to_sec', 'sec_to_time', 'from_days', 'last_day', 'extract',
  // conversions
  'cast', 'convert',
  // JSON reads
  'json_extract', 'json_unquote', 'json_length', 'json_keys', 'json_contains', 'json_valid', 'json_type', 'json_object', 'json_array',
  // server facts
  'version', 'database',
];

/** Words that may stand before `(` without being a function call. */
export const MYSQL_PAREN_KEYWORDS: readonly string[] = [
  'select', 'from', 'where', 'and', 'or', 'not', 'xor', 'in', 'exists', 'any', 'all', 'some', 'as', 'on', 'using', 'join', 'over', 'by', 'having',
  'when', 'then', 'else', 'case', 'between', 'like', 'rlike', 'regexp', 'is', 'distinct', 'union', 'intersect', 'except', 'interval', 'with',
  'lateral', 'partition', 'index', 'key', 'window', 'values', 'row', 'explain', 'describe', 'desc', 'analyze',
  // cast targets with a length or precision
  'char', 'nchar', 'varchar', 'binary', 'decimal', 'dec', 'numeric', 'float', 'double', 'datetime',
];

/**
 * Words refused anywhere outside quoted text, with the reason shown. They are how a SELECT
 * writes a file, a variable or a lock (INTO, FOR UPDATE, LOCK IN SHARE MODE, PROCEDURE ANALYSE),
 * or how another statement would start; no read needs them.
 */
export const MYSQL_REFUSED_WORDS: Readonly<Record<string, string>> = {
  into: 'SELECT ... INTO writes data (INTO is not allowed)',
  outfile: 'OUTFILE is not allowed (it writes a file on the server)',
  dumpfile: 'DUMPFILE is not allowed (it writes a file on the server)',
  load_file: 'LOAD_FILE is not allowed (it reads a file on the server)',
  load: 'LOAD is not allowed',
  for: 'FOR is not allowed (locking reads FOR UPDATE / FOR SHARE, EXPLAIN FOR CONNECTION)',
  lock: 'locking read (LOCK IN SHARE MODE, LOCK TABLES) is not allowed',
  unlock: 'UNLOCK is not allowed',
  handler: 'HANDLER is not allowed',
  procedure: 'PROCEDURE is not allowed',
  insert: 'INSERT is not allowed: only SELECT, SHOW and EXPLAIN may run',
  update: 'UPDATE is not allowed: only SELECT, SHOW and EXPLAIN may run',
  delete: 'DELETE is not allowed: only SELECT, SHOW and EXPLAIN may run',
  drop: 'DROP is not allowed: only SELECT, SHOW and EXPLAIN may run',
  alter: 'ALTER is not allowed: only SELECT, SHOW and EXPLAIN may run',
  create: 'CREATE is not allowed: only SELECT, SHOW and EXPLAIN may run',
  grant: 'GRANT is not allowed: only SELECT, SHOW and EXPLAIN may run',
  revoke: 'REVOKE is not allowed: only SELECT, SHOW and EXPLAIN may run',
  rename: 'RENAME is not allowed: only SELECT, SHOW and EXPLAIN may run',
  call: 'CALL is not allowed: only SELECT, SHOW and EXPLAIN may run',
  set: 'SET is not allowed: a read may not change session state',
  kill: 'KILL is not allowed',
  shutdown: 'SHUTDOWN is not allowed',
  flush: 'FLUSH is not allowed',
  prepare: 'PREPARE is not allowed',
  execute: 'EXECUTE is not allowed',
  deallocate: 'DEALLOCATE is not allowed',
  commit: 'COMMIT is not allowed',
  rollback: 'ROLLBACK is not allowed',
  savepoint: 'SAVEPOINT is not allowed',
  purge: 'PURGE is not allowed',
  install: 'INSTALL is not allowed',
  uninstall: 'UNINSTALL is not allowed',
};

/** `SHOW CREATE TABLE x` is a read: CREATE is allowed right after SHOW, nowhere else. */
export const MYSQL_SHOW_EXEMPT_WORDS: readonly string[] = ['create'];
