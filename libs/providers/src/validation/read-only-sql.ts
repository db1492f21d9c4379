import { errorMessageOf } from '@aoc/errors';
import { Parser } from 'node-sql-parser';
import { ProviderError } from '../core/provider-error';
import { checkMySqlText } from './mysql-lexer';
import { MYSQL_READ_FUNCTIONS } from './mysql-read-only-rules';
import { SqlRefusal, refuseInvisible, refuseSql } from './sql-text';

export const MAX_SQL_LENGTH = 8000;
const parser = new Parser();
const FUNCTIONS = new Set(MYSQL_READ_FUNCTIONS);

/** SHOW forms the SQL grammar does not cover but that are plainly read-only. */
const SHOW_ALLOWLIST = /^show\s+(?:(?:global|session)\s+)?(?:variables|status)(?:\s+like\s+'[A-Za-z0-9_%]{1,64}')?$|^show\s+(?:full\s+)?processlist$|^show\s+(?:create\s+table|index(?:es)?\s+from|columns\s+from)\s+`?[A-Za-z0-9_.]{1,128}`?$|^show\s+(?:warnings|errors|engines|config)$/i;

type Node = Record<string, unknown>;

function walk(node: unknown, visit: (n: Node) => void): void {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (node && typeof node === 'object') {
    visit(node as Node);
    for (const v of Object.values(node as Node)) walk(v, visit);
  }
}

/** The called name, lower-case; `?` for a shape we do not know (refused: fail closed). */
function functionName(n: Node): string | null {
  if (n['type'] !== 'function' && n['type'] !== 'aggr_func') return null;
  const name = n['name'];
  if (typeof name === 'string') return name.toLowerCase();
  if (name && typeof name === 'object') {
    const parts = (name as { name?: { value?: unknown }[] }).name;
    if (Array.isArray(parts)) return parts.map((p) => String(p.value ?? '')).join('.').toLowerCase();
  }
  return '?';
}

/** The parsed tree agrees with the lexer: no INTO, no locking read, only allowlisted calls, EXPLAIN of a SELECT. */
function treeProblem(statement: Node): string | null {
  let problem: string | null = null;
  walk(statement, (n) => {
    if (problem) return;
    const into = n['into'] as { position?: unknown } | undefined;
    if (into && typeof into === 'object' && into.position) problem = 'SELECT ... INTO writes data';
    else if (typeof n['locking_read'] === 'string' && n['locking_read']) problem = `locking read (${String(n['locking_read']).toUpperCase()}) is not allowed`;
    else if (n['type'] === 'explain' && typeof n['expr'] === 'object' && n['expr'] && String((n['expr'] as { type?: unknown }).type ?? '').toLowerCase() !== 'select') problem = 'EXPLAIN is allowed for SELECT only';
    else {
      const fn = functionName(n);
      if (fn !== null && !FUNCTIONS.has(fn)) problem = `function ${fn}() is not allowed`;
    }
  });
  return problem;
}

function parseOne(text: string): { statement: 'select' | 'show' | 'explain'; sql: string } {
  let ast: unknown;
  try {
    ast = parser.astify(text, { database: 'MySQL' });
  } catch (error) {
    if (SHOW_ALLOWLIST.test(text)) return { statement: 'show', sql: text };
    return refuseSql(`SQL does not parse as a single read-only statement (${errorMessageOf(error).slice(0, 120)})`);
  }
  const statements = (Array.isArray(ast) ? ast : [ast]) as Node[];
  if (statements.length !== 1) refuseSql(`exactly one statement is allowed, found ${statements.length}`);
  const type = String(statements[0]['type'] ?? '').toLowerCase();
  if (type !== 'select' && type !== 'show' && type !== 'explain') refuseSql(`only SELECT, SHOW and EXPLAIN are allowed, found ${type.toUpperCase() || 'an unknown statement'}`);
  const problem = treeProblem(statements[0]);
  if (problem) refuseSql(problem);
  return { statement: type as 'select' | 'show' | 'explain', sql: text };
}

/**
 * Read-only SQL for every MySQL-protocol server (MySQL, MariaDB, TiDB; Clinic's `sql` and the
 * package's own diagnostic reads): exactly one SELECT, SHOW or EXPLAIN. The shared lexer
 * (`mysql-lexer.ts`) refuses comments of every form, `;`, backslashes, user variables,
 * invisible characters, INTO / FOR / LOCK / OUTFILE and the like, and any call outside the
 * function allowlist; then the parsed tree must agree. Throws `PROVIDER.QUERY_REJECTED` naming
 * the field and the refused part.
 */
export function validateReadOnlySql(sql: string, field = 'sql'): { statement: 'select' | 'show' | 'explain'; sql: string } {
  const raw = String(sql);
  const text = raw.trim().replace(/;\s*$/, '').trim();
  try {
    // Before trimming: JavaScript's trim() would silently drop a leading BOM or NBSP.
    refuseInvisible(raw);
    if (text.length === 0) refuseSql('SQL is empty');
    if (text.length > MAX_SQL_LENGTH) refuseSql(`SQL is longer than ${MAX_SQL_LENGTH} characters`);
    checkMySqlText(text);
    return parseOne(text);
  } catch (error) {
    if (error instanceof SqlRefusal) throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: ${error.message}`);
    // A checker bug must still refuse, never let the statement through or escape untyped.
    throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: SQL could not be checked`);
  }
}
