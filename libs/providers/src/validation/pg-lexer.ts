import { codePointName, isSqlSpace, refuseInvisible, refuseSql as refuse } from './sql-text';

/**
 * The lexical pass of the PostgreSQL statistics check: our own tokenizer, the authority on where
 * strings, identifiers and the statement begin and end. It refuses comments, `;`, dollar
 * quoting, backslashes, prefixed literals (E'', U&'', B'', X''), invisible and control
 * characters anywhere, non-ASCII outside quoted text (PostgreSQL reads such bytes as identifier
 * characters, we would not), unbalanced parentheses, writes, `INTO`, `FOR` (locking clauses) and
 * any call of a name outside the caller's function allowlist — so nothing can hide from the parser.
 */

export type PgToken = { kind: 'word' | 'quoted' | 'string' | 'number' | 'punct'; value: string };

/** Words that may stand before `(` without being a function call. */
export const PG_PAREN_KEYWORDS: readonly string[] = [
  'select', 'from', 'where', 'and', 'or', 'not', 'in', 'exists', 'any', 'all', 'some', 'as', 'on', 'using', 'join', 'lateral', 'over', 'filter', 'within',
  'group', 'by', 'order', 'partition', 'having', 'when', 'then', 'else', 'case', 'between', 'like', 'ilike', 'is', 'distinct', 'cast', 'array', 'limit',
  'offset', 'union', 'intersect', 'except', 'numeric', 'decimal', 'varchar', 'char', 'character', 'varying', 'time', 'timestamp', 'interval', 'float',
];

/** Statements that may nest inside a SELECT (data-modifying CTEs); every other one is caught as the first word. */
export const PG_NESTED_WRITES: readonly string[] = ['insert', 'update', 'delete', 'merge'];

const PAREN_KEYWORDS = new Set(PG_PAREN_KEYWORDS);
const NESTED_WRITES = new Set(PG_NESTED_WRITES);
const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;
const QUOTED_IDENT = /^[a-z_][a-z0-9_ ]{0,62}$/;
const LOCKING = new Set(['update', 'share', 'no', 'key']);

function readString(text: string, i: number): { value: string; end: number } {
  if (i > 0 && /[A-Za-z0-9_&]/.test(text[i - 1])) refuse(`prefixed string literals (${text[i - 1]}'...') are not allowed`);
  let j = i + 1;
  let value = '';
  for (;;) {
    if (j >= text.length) refuse('unterminated string literal');
    if (text[j] === '\\') refuse('backslashes in string literals are not allowed');
    if (text[j] === "'") {
      if (text[j + 1] !== "'") return { value, end: j + 1 };
      value += "'";
      j += 2;
      continue;
    }
    value += text[j++];
  }
}

function readQuotedIdent(text: string, i: number): { value: string; end: number } {
  if (i > 0 && text[i - 1] === '&') refuse('Unicode-escaped identifiers (U&"...") are not allowed');
  const end = text.indexOf('"', i + 1);
  if (end < 0) refuse('unterminated quoted identifier');
  const value = text.slice(i + 1, end);
  if (!QUOTED_IDENT.test(value) || text[end + 1] === '"') refuse(`quoted identifier "${value.slice(0, 64)}" must be lower-case letters, digits, _ and spaces`);
  return { value, end: end + 1 };
}

function refuseSpecial(ch: string, next: string): void {
  if ((ch === '-' && next === '-') || (ch === '/' && next === '*')) refuse('SQL comments are not allowed');
  if (ch === '$') refuse('dollar quoting and $n parameters are not allowed');
  if (ch === '\\') refuse('backslashes are not allowed');
  if (ch === ';') refuse('exactly one statement is allowed (found ";" before the end)');
  if (ch.charCodeAt(0) > 0x7e) refuse(`non-ASCII characters are allowed only inside quoted text (found ${codePointName(ch)})`);
}

export function tokenizePg(text: string): PgToken[] {
  refuseInvisible(text);
  const tokens: PgToken[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    const next = text[i + 1] ?? '';
    if (isSqlSpace(ch)) {
      i++;
    } else if (ch === "'") {
      const { value, end } = readString(text, i);
      tokens.push({ kind: 'string', value });
      i = end;
    } else if (ch === '"') {
      const { value, end } = readQuotedIdent(text, i);
      tokens.push({ kind: 'quoted', value });
      i = end;
    } else if (IDENT_START.test(ch)) {
      let j = i + 1;
      while (j < text.length && IDENT_PART.test(text[j])) j++;
      tokens.push({ kind: 'word', value: text.slice(i, j).toLowerCase() });
      i = j;
    } else if (/\d/.test(ch) || (ch === '.' && /\d/.test(next))) {
      const m = /^(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?/i.exec(text.slice(i));
      const len = m ? m[0].length : 1;
      tokens.push({ kind: 'number', value: text.slice(i, i + len) });
      i += len;
    } else {
      refuseSpecial(ch, next);
      tokens.push({ kind: 'punct', value: ch });
      i++;
    }
  }
  return tokens;
}

function checkStart(tokens: readonly PgToken[]): void {
  const first = tokens.find((t) => !(t.kind === 'punct' && t.value === '('));
  if (!first || first.kind !== 'word' || (first.value !== 'select' && first.value !== 'with')) {
    refuse(`only a single SELECT is allowed, found ${first ? (first.kind === 'word' ? first.value.toUpperCase() : `"${first.value}"`) : 'nothing'}`);
  }
}

function checkFor(tokens: readonly PgToken[], i: number): void {
  const after = tokens[i + 1];
  if (after?.kind === 'word' && LOCKING.has(after.value)) {
    const length = after.value === 'no' ? 4 : after.value === 'key' ? 3 : 2; // FOR NO KEY UPDATE, FOR KEY SHARE, FOR UPDATE
    refuse(`locking clause ${tokens.slice(i, i + length).map((w) => w.value.toUpperCase()).join(' ')} is not allowed`);
  }
  // No read needs FOR elsewhere either (FOR READ ONLY, substring(... FOR n) of a refused function).
  refuse('FOR is not allowed');
}

function checkCall(tokens: readonly PgToken[], i: number, functions: ReadonlySet<string>): void {
  const t = tokens[i];
  const after = tokens[i + 1];
  if ((t.kind !== 'word' && t.kind !== 'quoted') || after?.kind !== 'punct' || after.value !== '(') return;
  const dot = tokens[i - 1];
  const qualifier = dot?.kind === 'punct' && dot.value === '.' ? tokens[i - 2] : undefined;
  const shown = qualifier ? `${qualifier.value}.${t.value}` : t.value;
  if (qualifier && qualifier.value !== 'pg_catalog') refuse(`function ${shown}() is not allowed`);
  if (!qualifier && t.kind === 'word' && PAREN_KEYWORDS.has(t.value)) return;
  if (!functions.has(t.value)) refuse(`function ${shown}() is not allowed`);
}

/** Token-level rules of one statement; `functions` is the allowlist of callable names. */
export function checkPgTokens(tokens: readonly PgToken[], functions: ReadonlySet<string>): void {
  checkStart(tokens);
  let depth = 0;
  tokens.forEach((t, i) => {
    if (t.kind === 'punct' && t.value === '(') depth++;
    // The connector wraps the statement in `SELECT * FROM (...)`: it must not close that early.
    if (t.kind === 'punct' && t.value === ')' && --depth < 0) refuse('unbalanced parentheses');
    if (t.kind === 'word' && t.value === 'for') checkFor(tokens, i);
    if (t.kind === 'word' && t.value === 'into') refuse('SELECT ... INTO is not allowed (it creates a table)');
    if (t.kind === 'word' && NESTED_WRITES.has(t.value)) refuse(`${t.value.toUpperCase()} is not allowed: only a single SELECT may run`);
    checkCall(tokens, i, functions);
  });
  if (depth !== 0) refuse('unbalanced parentheses');
}
