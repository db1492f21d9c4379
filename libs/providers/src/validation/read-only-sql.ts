import { Parser } from 'node-sql-parser';
import { ProviderError } from '../core/provider-error';

export const MAX_SQL_LENGTH = 8000;
const parser = new Parser();

/** Functions that wait, lock, read files or otherwise act beyond reading rows. */
const FORBIDDEN_FUNCTIONS = new Set([
  'sleep',
  'benchmark',
  'get_lock',
  'release_lock',
  'release_all_locks',
  'load_file',
  'master_pos_wait',
  'source_pos_wait',
  'master_gtid_wait',
  'wait_for_executed_gtid_set',
  'wait_until_sql_thread_after_gtids',
  'pg_sleep',
  'pg_sleep_for',
  'pg_sleep_until',
  'sys_exec',
  'sys_eval',
]);

/**
 * Executable comments: MySQL `/*! ... *\/` and `/*!50000 ... *\/`, MariaDB `/*M! ... *\/`, TiDB
 * `/*T![feature] ... *\/`. The server runs their content while the parser drops it as a comment,
 * so they are refused wherever they appear (also inside a string literal: failing closed costs
 * nothing a statistics read needs). Optimizer hints (`/*+ ... *\/`) stay allowed, except the ones
 * that change session settings or lift the statement timeout for the statement.
 */
const EXECUTABLE_COMMENT = /\/\*[MT]?!/i;
const HINT = /\/\*\+([\s\S]*?)\*\//g;
const REFUSED_HINTS = /\b(?:set_var|max_execution_time|resource_group)\s*\(/i;

function lexicalProblem(text: string): string | null {
  if (EXECUTABLE_COMMENT.test(text)) return 'executable comments (/*! ... */, /*M! ... */, /*T! ... */) are not allowed';
  for (const m of text.matchAll(HINT)) if (REFUSED_HINTS.test(m[1])) return 'optimizer hints that change session settings (SET_VAR, MAX_EXECUTION_TIME, RESOURCE_GROUP) are not allowed';
  return null;
}

/** SHOW forms the SQL grammar does not cover but that are plainly read-only. */
const SHOW_ALLOWLIST = /^show\s+(?:(?:global|session)\s+)?(?:variables|status)(?:\s+like\s+'[A-Za-z0-9_%]{1,64}')?$|^show\s+(?:full\s+)?processlist$|^show\s+(?:create\s+table|index(?:es)?\s+from|columns\s+from)\s+`?[A-Za-z0-9_.]{1,128}`?$|^show\s+(?:warnings|errors|engines|config)$/i;

function walk(node: unknown, visit: (n: Record<string, unknown>) => void): void {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (node && typeof node === 'object') {
    visit(node as Record<string, unknown>);
    for (const v of Object.values(node as Record<string, unknown>)) walk(v, visit);
  }
}

function functionName(n: Record<string, unknown>): string | null {
  if (n['type'] !== 'function' && n['type'] !== 'aggr_func') return null;
  const name = n['name'];
  if (typeof name === 'string') return name.toLowerCase();
  if (name && typeof name === 'object') {
    const parts = (name as { name?: { value?: unknown }[] }).name;
    if (Array.isArray(parts)) return parts.map((p) => String(p.value ?? '')).join('.').toLowerCase();
  }
  return null;
}

/**
 * Read-only means exactly one SELECT, SHOW or EXPLAIN statement: no second statement, no
 * SELECT ... INTO, no locking read, no waiting or file functions, no executable comment. The
 * reason is always given.
 */
export function validateReadOnlySql(sql: string, field = 'sql'): { statement: 'select' | 'show' | 'explain'; sql: string } {
  const text = sql.trim().replace(/;\s*$/, '');
  if (text.length === 0) throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: SQL is empty`);
  if (text.length > MAX_SQL_LENGTH) throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: SQL is longer than ${MAX_SQL_LENGTH} characters`);
  const lexical = lexicalProblem(text);
  if (lexical) throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: ${lexical}`);
  let ast: unknown;
  try {
    ast = parser.astify(text, { database: 'MySQL' });
  } catch (error) {
    if (SHOW_ALLOWLIST.test(text)) return { statement: 'show', sql: text };
    throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: SQL does not parse as a single read-only statement (${(error instanceof Error ? error.message : String(error)).slice(0, 120)})`);
  }
  const statements = (Array.isArray(ast) ? ast : [ast]) as Record<string, unknown>[];
  if (statements.length !== 1) throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: exactly one statement is allowed, found ${statements.length}`);
  const statement = statements[0];
  const type = String(statement['type'] ?? '').toLowerCase();
  if (type !== 'select' && type !== 'show' && type !== 'explain') {
    throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: only SELECT, SHOW and EXPLAIN are allowed, found ${type.toUpperCase() || 'an unknown statement'}`);
  }
  let problem: string | null = null;
  walk(statement, (n) => {
    if (problem) return;
    const into = n['into'] as { position?: unknown } | undefined;
    if (into && typeof into === 'object' && into.position) problem = 'SELECT ... INTO writes data';
    if (typeof n['locking_read'] === 'string' && n['locking_read']) problem = `locking read (${String(n['locking_read']).toUpperCase()}) is not allowed`;
    const fn = functionName(n);
    if (fn && (FORBIDDEN_FUNCTIONS.has(fn) || FORBIDDEN_FUNCTIONS.has(fn.split('.').pop() ?? ''))) problem = `function ${fn}() is not allowed`;
    if (n['type'] === 'explain' && typeof n['expr'] === 'object' && n['expr'] && String((n['expr'] as { type?: unknown }).type ?? '').toLowerCase() !== 'select') {
      problem = 'EXPLAIN is allowed for SELECT only';
    }
  });
  if (problem) throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: ${problem}`);
  return { statement: type, sql: text };
}
