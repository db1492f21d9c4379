import { Parser } from 'node-sql-parser';
import { ProviderError } from '../core/provider-error';
import { validateReadOnlySql } from './read-only-sql';
import { SqlRefusal, refuseSql as refuse } from './sql-text';

/**
 * Read-only SQL for MySQL/MariaDB statistics (the generic package's `sql` on a MySQL target):
 * exactly one SELECT over an allowlist of `performance_schema` / `information_schema` tables,
 * calling only an allowlist of functions. Two checks must both pass:
 *
 * 1. `validateReadOnlySql`: the shared MySQL lexer (`mysql-lexer.ts`: every comment, `;`,
 *    backslash, user variable, invisible character, INTO / FOR / LOCK, calls outside the general
 *    function allowlist), then one SELECT with no INTO and no locking read;
 * 2. the tree: every relation schema-qualified and allowlisted, no WITH, no UNION (a later branch
 *    would put a column under another column's name), functions and casts allowlisted, system
 *    variables only `@@GLOBAL.<allowlisted setting>`, and statement text, hosts and users only
 *    as bare select items under their own name — nowhere else, not even in a filter — so the
 *    package recognises them by name and returns a digest reference, `[redacted]` or a user
 *    reference instead.
 */

/** Statistics tables that may be read, `<schema>.<table>`, lower-case. */
export const MYSQL_STATS_RELATIONS: readonly string[] = [
  'performance_schema.events_statements_summary_by_digest',
  'performance_schema.data_lock_waits',
  'performance_schema.data_locks',
  'performance_schema.global_status',
  'performance_schema.global_variables',
  'performance_schema.replication_connection_status',
  'performance_schema.replication_applier_status',
  'performance_schema.replication_applier_status_by_worker',
  'information_schema.innodb_metrics',
  'information_schema.innodb_trx',
  'information_schema.innodb_lock_waits',
  'information_schema.processlist',
  'information_schema.global_status',
  'information_schema.global_variables',
];

/** Functions that may be called (aggregates, arithmetic, time differences). */
export const MYSQL_STATS_FUNCTIONS: readonly string[] = [
  'count', 'sum', 'max', 'min', 'avg', 'round', 'coalesce', 'ifnull', 'nullif', 'greatest', 'least', 'if', 'timestampdiff', 'now', 'unix_timestamp', 'upper', 'lower', 'abs', 'floor', 'ceil',
];

/** Settings readable as `@@GLOBAL.<name>`. */
export const MYSQL_STATS_SETTINGS: readonly string[] = [
  'max_connections', 'max_user_connections', 'innodb_lock_wait_timeout', 'lock_wait_timeout', 'wait_timeout', 'interactive_timeout', 'max_execution_time', 'max_statement_time',
  'long_query_time', 'innodb_buffer_pool_size', 'innodb_log_file_size', 'innodb_redo_log_capacity', 'thread_cache_size', 'table_open_cache', 'read_only', 'super_read_only',
  'innodb_deadlock_detect', 'performance_schema', 'max_allowed_packet', 'tmp_table_size', 'max_heap_table_size', 'innodb_flush_log_at_trx_commit', 'sync_binlog',
];

/** Statement text columns: returned only as a digest reference and the statement's first keyword. */
export const MYSQL_STATEMENT_TEXT_COLUMNS: readonly string[] = ['digest_text', 'query_sample_text', 'sql_text', 'info', 'trx_query', 'requesting_trx_query', 'blocking_trx_query'];
/** Columns returned only as `[redacted]` (addresses, error text that may quote a statement or a host). */
export const MYSQL_REDACTED_COLUMNS: readonly string[] = ['host', 'member_host', 'source_host', 'master_host', 'last_error_message', 'last_io_error', 'last_sql_error', 'trx_mysql_thread_host'];
/** Account columns: returned only as `user:<16 hex>` references. */
export const MYSQL_USER_COLUMNS: readonly string[] = ['user', 'source_user', 'master_user', 'current_user', 'session_user'];

const CAST_TYPES = new Set(['unsigned', 'signed', 'decimal', 'char', 'double', 'float', 'integer', 'int', 'bigint', 'datetime', 'date', 'time']);
const RELATIONS = new Set(MYSQL_STATS_RELATIONS);
const FUNCTIONS = new Set(MYSQL_STATS_FUNCTIONS);
const SETTINGS = new Set(MYSQL_STATS_SETTINGS);
const GUARDED = new Set([...MYSQL_STATEMENT_TEXT_COLUMNS, ...MYSQL_REDACTED_COLUMNS, ...MYSQL_USER_COLUMNS]);
const parser = new Parser();

type Node = Record<string, unknown>;

export interface ReadOnlyMySqlStats {
  sql: string;
  /** Allowlisted relations it reads, `<schema>.<table>`, lower-case. */
  relations: string[];
}

const lower = (v: unknown): string => String(v ?? '').toLowerCase();
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

function walk(node: unknown, visit: (n: Node) => void): void {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (isNode(node)) {
    visit(node);
    for (const v of Object.values(node)) walk(v, visit);
  }
}

function columnName(ref: Node): string {
  const column = ref['column'];
  if (typeof column === 'string') return column.toLowerCase();
  if (isNode(column) && isNode(column['expr'])) return lower(column['expr']['value']);
  return '';
}

function functionName(n: Node): string | null {
  if (n['type'] === 'aggr_func') return lower(n['name']);
  if (n['type'] !== 'function') return null;
  const name = n['name'];
  if (typeof name === 'string') return name.toLowerCase();
  if (isNode(name) && Array.isArray(name['name'])) return (name['name'] as Node[]).map((p) => lower(p['value'])).join('.');
  return '?';
}

function checkTree(statement: Node): string[] {
  const relations = new Set<string>();
  /** The bare select items under their own name: the only places a guarded column may stand. */
  const bare = new Set<Node>();
  walk(statement, (n) => {
    if (Array.isArray(n['with']) && n['with'].length > 0) refuse('WITH is not allowed');
    if (isNode(n['_next']) || (typeof n['set_op'] === 'string' && n['set_op'])) refuse('UNION, INTERSECT and EXCEPT are not allowed');
    if (lower(n['type']) === 'select' && Array.isArray(n['columns'])) {
      for (const item of n['columns'] as Node[]) {
        const expr = isNode(item['expr']) ? item['expr'] : null;
        if (!expr || expr['type'] !== 'column_ref') continue;
        const name = columnName(expr);
        if (!GUARDED.has(name)) continue;
        if (item['as'] && lower(item['as']) !== name) refuse(`column ${name} may not be renamed (AS ${lower(item['as'])}): it is returned only as an opaque value`);
        bare.add(expr);
      }
    }
    if (Array.isArray(n['from'])) {
      for (const item of n['from'] as Node[]) {
        if (typeof item['table'] === 'string') {
          const name = `${lower(item['db'])}.${item['table'].toLowerCase()}`;
          if (!item['db'] || !RELATIONS.has(name)) refuse(`relation ${item['db'] ? name : item['table'].toLowerCase()} is not allowed (allowed, schema-qualified: ${MYSQL_STATS_RELATIONS.join(', ')})`);
          relations.add(name);
        } else if (!(isNode(item['expr']) && isNode(item['expr']['ast']))) refuse('this kind of FROM item is not allowed');
      }
    }
  });
  walk(statement, (n) => {
    const fn = functionName(n);
    if (fn !== null && !FUNCTIONS.has(fn)) refuse(`function ${fn}() is not allowed`);
    if (n['type'] === 'cast') {
      for (const target of Array.isArray(n['target']) ? (n['target'] as Node[]) : []) {
        if (!CAST_TYPES.has(lower(target['dataType']))) refuse(`cast to ${lower(target['dataType']) || 'an unknown type'} is not allowed`);
      }
    }
    if (n['type'] === 'var') {
      const member = Array.isArray(n['members']) ? lower(n['members'][0]) : '';
      if (n['prefix'] !== '@@' || lower(n['name']) !== 'global' || !SETTINGS.has(member)) refuse(`variables are not allowed except @@GLOBAL.<setting> of: ${MYSQL_STATS_SETTINGS.slice(0, 8).join(', ')}, ...`);
    }
    if (n['type'] === 'column_ref' && GUARDED.has(columnName(n)) && !bare.has(n)) {
      refuse(`column ${columnName(n)} may only be selected as itself (it is returned as an opaque value), not inside an expression, a filter or an ordering`);
    }
  });
  return [...relations].sort();
}

/**
 * Checks one statement for the generic package's MySQL statistics. Throws
 * `PROVIDER.QUERY_REJECTED` naming the field and the refused part; never anything else.
 */
export function validateReadOnlyMySqlStats(sql: string, field = 'sql'): ReadOnlyMySqlStats {
  const checked = validateReadOnlySql(String(sql), field);
  try {
    if (checked.statement !== 'select') refuse(`only a single SELECT is allowed, found ${checked.statement.toUpperCase()}`);
    const ast: unknown = parser.astify(checked.sql, { database: 'MySQL' });
    const statements = Array.isArray(ast) ? ast : [ast];
    if (statements.length !== 1 || !isNode(statements[0])) refuse('exactly one statement is allowed');
    return { sql: checked.sql, relations: checkTree(statements[0] as Node) };
  } catch (error) {
    if (error instanceof SqlRefusal) throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: ${error.message}`);
    throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: SQL could not be checked`);
  }
}
