import { Parser } from 'node-sql-parser';
import { ProviderError } from '../core/provider-error';
import { checkPgTokens, tokenizePg } from './pg-lexer';
import { MAX_SQL_LENGTH } from './read-only-sql';
import { SqlRefusal, refuseInvisible, refuseSql as refuse } from './sql-text';

/**
 * Read-only SQL for PostgreSQL statistics: exactly one SELECT over an allowlist of statistics
 * views, calling only an allowlist of functions. Two independent checks must both pass:
 *
 * 1. a lexical pass (`pg-lexer.ts`, our own tokenizer, the authority on where strings,
 *    identifiers and statements begin and end) refuses comments, `;`, dollar quoting,
 *    backslashes, prefixed literals (E'', U&''), invisible characters, non-ASCII outside quoted
 *    text, unbalanced parentheses, writes, `INTO`, `FOR` and any call of a name outside the
 *    function allowlist — so nothing can hide from the parser;
 * 2. node-sql-parser (PostgreSQL dialect) gives the tree: one SELECT, every relation
 *    allowlisted (CTE names are resolved in PostgreSQL's own scoping order), functions and
 *    casts allowlisted, and statement text, client addresses and usernames can only reach the
 *    result under their own column name, where the connector turns them into opaque values.
 *
 * What is not covered by the second rule: filtering on those columns (`WHERE query LIKE ...`)
 * is allowed; it returns no text, only which rows match.
 */

/** Statistics views that may be read (unqualified or `pg_catalog.`-qualified). */
export const PG_STATS_RELATIONS: readonly string[] = [
  'pg_stat_activity',
  'pg_stat_statements',
  'pg_stat_replication',
  'pg_stat_wal_receiver',
  'pg_replication_slots',
  'pg_locks',
  'pg_stat_database',
  'pg_stat_database_conflicts',
  'pg_stat_bgwriter',
  'pg_stat_checkpointer',
  'pg_stat_wal',
  'pg_stat_user_tables',
  'pg_stat_progress_vacuum',
  'pg_settings',
  'pg_database',
];

/** pg_stat_statements lives in the schema the extension was created in, normally `public`. */
const EXTENSION_SCHEMAS: Readonly<Record<string, readonly string[]>> = { pg_stat_statements: ['public'] };

/** Functions that may be called (unqualified or `pg_catalog.`-qualified). */
export const PG_STATS_FUNCTIONS: readonly string[] = [
  'pg_database_size',
  'pg_wal_lsn_diff',
  'pg_current_wal_lsn',
  'pg_last_wal_receive_lsn',
  'pg_last_wal_replay_lsn',
  'pg_last_xact_replay_timestamp',
  'pg_blocking_pids',
  'now',
  'current_timestamp',
  'extract',
  'count',
  'sum',
  'max',
  'min',
  'avg',
  'coalesce',
  'nullif',
  'round',
  'greatest',
  'least',
  'left',
  'date_trunc',
  'cardinality',
];

/**
 * Columns whose values never leave raw: statement text (digest), client addresses and
 * connection strings (redacted), role names (opaque reference). They may be selected only
 * bare, under their own name, so the connector recognises them in the result.
 */
export const PG_GUARDED_COLUMNS: readonly string[] = [
  'query',
  'client_addr',
  'client_hostname',
  'client_port',
  'conninfo',
  'sender_host',
  'datacl',
  'usename',
  'rolname',
  'user',
  'current_user',
  'session_user',
];

/** Cast target types: built-in scalars only (a cast to another type can run that type's code). */
const CAST_TYPES = new Set(['int', 'integer', 'int2', 'int4', 'int8', 'smallint', 'bigint', 'numeric', 'decimal', 'real', 'float', 'float4', 'float8', 'double precision', 'text', 'varchar', 'char', 'character', 'character varying', 'bool', 'boolean', 'date', 'time', 'timestamp', 'timestamptz', 'interval', 'oid', 'regclass']);

/** Constructs the parser reports as functions. */
const AST_CONSTRUCTS = new Set(['any', 'all', 'some', 'exists']);

const RELATIONS = new Set(PG_STATS_RELATIONS);
const FUNCTIONS = new Set(PG_STATS_FUNCTIONS);
const GUARDED = new Set(PG_GUARDED_COLUMNS);
const parser = new Parser();

type Node = Record<string, unknown>;

export interface ReadOnlyPgSql {
  /** The statement as it will run (trimmed, without a trailing `;`). */
  sql: string;
  /** Allowlisted relations it reads, lower-case, without schema. */
  relations: string[];
}

const lower = (v: unknown): string => String(v ?? '').toLowerCase();

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Generic depth-first visit; `visit` returns false to skip a node's children. */
function walk(node: unknown, visit: (n: Node) => boolean | void): void {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (isNode(node) && visit(node) !== false) for (const v of Object.values(node)) walk(v, visit);
}

function columnName(ref: Node): string {
  const column = ref['column'];
  if (column === '*') return '*';
  if (typeof column === 'string') return column.toLowerCase();
  if (isNode(column) && isNode(column['expr'])) return lower(column['expr']['value']);
  return '';
}

function functionOf(n: Node): { name: string; schema: string | null } | null {
  if (n['type'] === 'aggr_func') return { name: lower(n['name']), schema: null };
  if (n['type'] !== 'function') return null;
  const name = n['name'];
  if (typeof name === 'string') return { name: name.toLowerCase(), schema: null };
  if (!isNode(name) || !Array.isArray(name['name'])) return { name: '?', schema: null };
  const parts = (name['name'] as Node[]).map((p) => lower(p['value']));
  const schema = isNode(name['schema']) ? lower(name['schema']['value']) : parts.length > 1 ? parts.slice(0, -1).join('.') : null;
  return { name: parts[parts.length - 1] ?? '?', schema };
}

/** A subquery in expression or FROM position: `{ ast: { type: 'select', ... } }`. */
function subqueryOf(n: Node): Node | null {
  return isNode(n['ast']) && typeof n['ast']['type'] === 'string' ? n['ast'] : null;
}

class Checker {
  readonly relations = new Set<string>();

  constructor(
    /** Every relation name, alias and CTE name of the statement: a column ref to one is a whole-row value. */
    private readonly rowNames: Set<string>,
  ) {}

  select(node: Node, visible: ReadonlySet<string>, root: boolean, laterBranch = false): void {
    if (lower(node['type']) !== 'select') refuse(`only SELECT is allowed, found ${lower(node['type']).toUpperCase() || 'an unknown statement'}`);
    const into = node['into'];
    if (isNode(into) && into['position']) refuse('SELECT ... INTO is not allowed (it creates a table)');
    let scope = visible;
    if (Array.isArray(node['with']) && node['with'].length > 0) {
      if (!root) refuse('WITH is allowed only at the top of the statement');
      const names: string[] = [];
      for (const cte of node['with'] as Node[]) {
        const name = isNode(cte['name']) ? lower(cte['name']['value']) : lower(cte['name']);
        if (cte['recursive']) refuse(`WITH RECURSIVE (${name}) is not allowed`);
        if (Array.isArray(cte['columns']) && cte['columns'].length > 0) refuse(`column lists on WITH ${name}(...) are not allowed`);
        const stmt = isNode(cte['stmt']) ? (subqueryOf(cte['stmt']) ?? cte['stmt']) : null;
        if (!stmt || lower(stmt['type']) !== 'select') refuse(`WITH ${name} must be a SELECT, found ${stmt ? lower(stmt['type']).toUpperCase() : 'nothing'}`);
        // A CTE sees the ones before it only: a later name would resolve to a real table.
        this.select(stmt as Node, new Set(names), false);
        names.push(name);
      }
      scope = new Set(names);
    }
    for (const item of Array.isArray(node['from']) ? (node['from'] as Node[]) : []) this.fromItem(item, scope);
    this.selectList(node, laterBranch);
    for (const [key, value] of Object.entries(node)) {
      if (key === 'with' || key === 'from' || key === '_next') continue;
      this.expression(value, scope);
    }
    if (isNode(node['_next'])) this.select(node['_next'], scope, false, true);
  }

  private fromItem(item: Node, scope: ReadonlySet<string>): void {
    if (typeof item['table'] === 'string') {
      const name = item['table'].toLowerCase();
      const schema = item['db'] ? lower(item['db']) : null;
      if (schema === null && scope.has(name)) return this.expression(item['on'], scope);
      const schemas = ['pg_catalog', ...(EXTENSION_SCHEMAS[name] ?? [])];
      if (!RELATIONS.has(name) || (schema !== null && !schemas.includes(schema))) {
        refuse(`relation ${schema ? `${schema}.` : ''}${name} is not allowed (allowed: ${PG_STATS_RELATIONS.join(', ')})`);
      }
      this.relations.add(name);
      return this.expression(item['on'], scope);
    }
    const expr = isNode(item['expr']) ? item['expr'] : null;
    const sub = expr ? subqueryOf(expr) : null;
    if (sub) {
      this.select(sub, scope, false);
      return this.expression(item['on'], scope);
    }
    if (expr && expr['type'] === 'function') return this.expression(item, scope);
    refuse('this kind of FROM item is not allowed');
  }

  /** Guarded columns reach the result only bare and under their own name. */
  private selectList(node: Node, laterBranch: boolean): void {
    const columns = Array.isArray(node['columns']) ? (node['columns'] as Node[]) : [];
    for (const item of columns) {
      const expr = isNode(item['expr']) ? item['expr'] : null;
      if (!expr) continue;
      if (expr['type'] === 'column_ref') {
        const name = columnName(expr);
        if (name === '*' && laterBranch) refuse('* is not allowed after UNION, INTERSECT or EXCEPT (its columns would take other names)');
        if (GUARDED.has(name)) {
          if (laterBranch) refuse(`column ${name} is not allowed after UNION, INTERSECT or EXCEPT (it would take another column's name)`);
          if (item['as'] && lower(item['as']) !== name) refuse(`column ${name} may not be renamed (AS ${lower(item['as'])}): it is returned only as an opaque value`);
        }
        continue;
      }
      scanOutputExpression(expr);
    }
  }

  private expression(value: unknown, scope: ReadonlySet<string>): void {
    walk(value, (n) => {
      const sub = subqueryOf(n);
      if (sub) {
        this.select(sub, scope, false);
        return false;
      }
      if (lower(n['type']) === 'select') {
        this.select(n, scope, false);
        return false;
      }
      const fn = functionOf(n);
      if (fn) {
        const shown = fn.schema ? `${fn.schema}.${fn.name}` : fn.name;
        if (fn.schema !== null && fn.schema !== 'pg_catalog') refuse(`function ${shown}() is not allowed`);
        if (!FUNCTIONS.has(fn.name) && !(fn.schema === null && AST_CONSTRUCTS.has(fn.name))) refuse(`function ${shown}() is not allowed`);
      }
      if (n['type'] === 'cast') {
        for (const target of Array.isArray(n['target']) ? (n['target'] as Node[]) : []) {
          const type = lower(target['dataType']);
          if (!CAST_TYPES.has(type)) refuse(`cast to ${type || 'an unknown type'} is not allowed`);
        }
      }
      if (n['type'] === 'column_ref') {
        const name = columnName(n);
        if (name !== '*' && this.rowNames.has(name)) refuse(`whole-row reference ${name} is not allowed`);
      }
      if (n['type'] === 'var') refuse('variables are not allowed');
      if (n['type'] === 'default' && typeof n['value'] === 'string' && !/^[\p{L}_][\p{L}\p{N}_ ]*$|^DISTINCT FROM "?[\p{L}_][\p{L}\p{N}_.]*"?$/u.test(n['value'])) {
        refuse(`part of the statement could not be checked (${n['value'].slice(0, 40)})`);
      }
      return true;
    });
  }
}

/**
 * A select-list expression that is not a bare column: no guarded column and no `*` anywhere
 * in what it returns (count(...) returns a number, so its argument is free).
 */
function scanOutputExpression(expr: unknown): void {
  walk(expr, (n) => {
    if (n['type'] === 'aggr_func' && lower(n['name']) === 'count') return false;
    const sub = subqueryOf(n) ?? (lower(n['type']) === 'select' ? n : null);
    if (sub) {
      // Only what a nested SELECT returns can carry values out; its filters cannot.
      for (let branch: Node | null = sub; branch; branch = isNode(branch['_next']) ? branch['_next'] : null) scanOutputExpression(branch['columns']);
      return false;
    }
    if (n['type'] === 'column_ref') {
      const name = columnName(n);
      if (name === '*') refuse('* inside an expression is not allowed');
      if (GUARDED.has(name)) refuse(`column ${name} may only be selected as itself (it is returned as an opaque value), not inside an expression`);
    }
    return true;
  });
}

function collectRowNames(ast: unknown): Set<string> {
  const names = new Set<string>();
  walk(ast, (n) => {
    if (Array.isArray(n['with'])) for (const cte of n['with'] as Node[]) names.add(isNode(cte['name']) ? lower(cte['name']['value']) : lower(cte['name']));
    if (Array.isArray(n['from'])) {
      for (const item of n['from'] as Node[]) {
        if (typeof item['table'] === 'string') names.add(item['table'].toLowerCase());
        if (typeof item['as'] === 'string') names.add(item['as'].toLowerCase());
      }
    }
    return true;
  });
  return names;
}

/**
 * Checks one Agent-authored statement for {@link queryPostgresStats}. Throws
 * `PROVIDER.QUERY_REJECTED` naming the refused part; never anything else.
 */
export function validateReadOnlyPgSql(sql: string, field = 'sql'): ReadOnlyPgSql {
  const raw = String(sql);
  const text = raw.trim().replace(/;\s*$/, '').trim();
  try {
    // Before trimming: JavaScript's trim() would silently drop a leading BOM or NBSP.
    refuseInvisible(raw);
    if (text.length === 0) refuse('SQL is empty');
    if (text.length > MAX_SQL_LENGTH) refuse(`SQL is longer than ${MAX_SQL_LENGTH} characters`);
    checkPgTokens(tokenizePg(text), FUNCTIONS);
    let ast: unknown;
    try {
      ast = parser.astify(text, { database: 'PostgreSQL' });
    } catch (error) {
      refuse(`SQL does not parse as a single PostgreSQL SELECT (${(error instanceof Error ? error.message : String(error)).slice(0, 120)})`);
    }
    const statements = (Array.isArray(ast) ? ast : [ast]) as unknown[];
    if (statements.length !== 1 || !isNode(statements[0])) refuse(`exactly one statement is allowed, found ${statements.length}`);
    const statement = statements[0] as Node;
    const checker = new Checker(collectRowNames(statement));
    checker.select(statement, new Set(), true);
    return { sql: text, relations: [...checker.relations].sort() };
  } catch (error) {
    if (error instanceof SqlRefusal) throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: ${error.message}`);
    // A checker bug must still refuse, never let the statement through or escape untyped.
    throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: SQL could not be checked`);
  }
}
