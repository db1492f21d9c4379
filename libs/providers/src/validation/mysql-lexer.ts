import { codePointName, isSqlSpace, refuseInvisible, refuseSql } from './sql-text';
import { MYSQL_PAREN_KEYWORDS, MYSQL_READ_FUNCTIONS, MYSQL_REFUSED_WORDS, MYSQL_SHOW_EXEMPT_WORDS, MYSQL_STATEMENT_STARTS } from './mysql-read-only-rules';

/**
 * The one lexer of every SQL text sent to a MySQL-protocol server (MySQL, MariaDB, TiDB). It
 * runs before any parser and is the authority on where strings, identifiers and the statement
 * end, so the parser and the server cannot read the text differently. It refuses:
 *
 * - comments of every form (`/* *\/`, executable `/*! *\/`, `/*M! *\/`, `/*T! *\/`, optimizer hints
 *   `/*+ *\/`, `-- `, `#`): the server runs what a parser drops;
 * - `;` outside quoted text, backslashes anywhere (escapes are how quoting tricks start),
 *   invisible and control characters anywhere, non-ASCII outside quoted text (homoglyphs);
 * - user variables (`@x`, `@'x'`) and `:=`; system variables (`@@x`) are reads and stay;
 * - a statement not starting with SELECT, WITH, SHOW, EXPLAIN or DESCRIBE, and the words of
 *   {@link MYSQL_REFUSED_WORDS} (INTO, FOR, LOCK, OUTFILE, HANDLER, ...);
 * - a call of any name not in {@link MYSQL_READ_FUNCTIONS}, qualified calls (stored functions)
 *   included.
 */

export type MySqlTokenKind = 'word' | 'quoted' | 'string' | 'number' | 'punct' | 'sysvar';
export interface MySqlToken {
  kind: MySqlTokenKind;
  /** Words lower-case; quoted identifiers and strings unquoted. */
  value: string;
}

const FUNCTIONS = new Set(MYSQL_READ_FUNCTIONS);
const PAREN_KEYWORDS = new Set(MYSQL_PAREN_KEYWORDS);
const STARTS = new Set(MYSQL_STATEMENT_STARTS);
const SHOW_EXEMPT = new Set(MYSQL_SHOW_EXEMPT_WORDS);

const WORD_START = /[A-Za-z_$]/;
const WORD_PART = /[A-Za-z0-9_$]/;
const NUMBER = /^(?:0x[0-9a-f]+|0b[01]+|(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)/i;
/** Executable comments and hints get their own message: they are the known bypasses. */
const EXECUTABLE_COMMENT = /\/\*[MT]?!/i;
const HINT_COMMENT = /\/\*\+/;

/** The text of a quoted run starting at `start` (the quote), doubled quotes unescaped; its end index. */
function readQuoted(text: string, start: number): { value: string; end: number } {
  const quote = text[start];
  let value = '';
  let i = start + 1;
  for (;;) {
    if (i >= text.length) refuseSql('unterminated quoted text');
    const ch = text[i];
    if (ch === quote && text[i + 1] === quote) {
      value += quote;
      i += 2;
    } else if (ch === quote) {
      return { value, end: i + 1 };
    } else {
      value += ch;
      i++;
    }
  }
}

function refuseCommentAt(text: string, i: number): void {
  const ch = text[i];
  const next = text[i + 1] ?? '';
  if (ch === '#' || (ch === '-' && next === '-')) refuseSql('SQL comments are not allowed (-- and #)');
  if (ch === '/' && next === '*') refuseSql('SQL comments are not allowed (/* ... */)');
}

/** Splits the text into tokens, refusing what the server could read differently. */
export function tokenizeMySql(text: string): MySqlToken[] {
  refuseInvisible(text);
  if (EXECUTABLE_COMMENT.test(text)) refuseSql('executable comments are not allowed (/*! ... */, /*M! ... */, /*T! ... */): the server runs them');
  if (HINT_COMMENT.test(text)) refuseSql('optimizer hint comments are not allowed (/*+ ... */)');
  if (text.includes('\\')) refuseSql('backslashes are not allowed');
  const tokens: MySqlToken[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (isSqlSpace(ch)) {
      i++;
      continue;
    }
    refuseCommentAt(text, i);
    if (ch === "'" || ch === '"' || ch === '`') {
      const { value, end } = readQuoted(text, i);
      tokens.push({ kind: ch === '`' ? 'quoted' : 'string', value });
      i = end;
    } else if (ch === ';') {
      refuseSql('exactly one statement is allowed (found ";" before the end)');
    } else if (ch === '@') {
      i = readVariable(text, i, tokens);
    } else if (ch === ':' && text[i + 1] === '=') {
      refuseSql('assignments (:=) are not allowed');
    } else if (/\d/.test(ch) || (ch === '.' && /\d/.test(text[i + 1] ?? ''))) {
      const len = NUMBER.exec(text.slice(i))?.[0].length ?? 1;
      tokens.push({ kind: 'number', value: text.slice(i, i + len) });
      i += len;
    } else if (WORD_START.test(ch)) {
      let j = i + 1;
      while (j < text.length && WORD_PART.test(text[j])) j++;
      tokens.push({ kind: 'word', value: text.slice(i, j).toLowerCase() });
      i = j;
    } else if (ch.charCodeAt(0) > 0x7e) {
      refuseSql(`non-ASCII characters are allowed only inside quoted text (found ${codePointName(ch)})`);
    } else {
      tokens.push({ kind: 'punct', value: ch });
      i++;
    }
  }
  return tokens;
}

/** `@@[scope.]name` stays (a read of a setting); `@name` is a user variable and is refused. */
function readVariable(text: string, start: number, tokens: MySqlToken[]): number {
  if (text[start + 1] !== '@') refuseSql(`user variables (${text.slice(start, start + 24).split(/[\s,)]/)[0]}) are not allowed`);
  let j = start + 2;
  while (j < text.length && (WORD_PART.test(text[j]) || text[j] === '.')) j++;
  if (j === start + 2) refuseSql('a system variable needs a name (@@name)');
  tokens.push({ kind: 'sysvar', value: text.slice(start + 2, j).toLowerCase() });
  return j;
}

const isPunct = (t: MySqlToken | undefined, value: string): boolean => t?.kind === 'punct' && t.value === value;

function checkStart(tokens: readonly MySqlToken[]): string {
  const first = tokens.find((t) => !isPunct(t, '('));
  const word = first?.kind === 'word' ? first.value : null;
  if (word === null || !STARTS.has(word)) {
    const found = first ? (first.kind === 'word' ? first.value.toUpperCase() : `"${first.value}"`) : 'nothing';
    refuseSql(`only SELECT, SHOW and EXPLAIN are allowed, found ${found}`);
  }
  return word as string;
}

function checkWord(tokens: readonly MySqlToken[], i: number, show: boolean): void {
  const t = tokens[i];
  const why = MYSQL_REFUSED_WORDS[t.value];
  if (why === undefined || (show && SHOW_EXEMPT.has(t.value))) return;
  const after = tokens[i + 1];
  if (t.value === 'for' && after?.kind === 'word' && (after.value === 'update' || after.value === 'share')) refuseSql(`locking read (FOR ${after.value.toUpperCase()}) is not allowed`);
  refuseSql(why);
}

function checkCall(tokens: readonly MySqlToken[], i: number): void {
  const t = tokens[i];
  if (!isPunct(tokens[i + 1], '(') || (t.kind !== 'word' && t.kind !== 'quoted')) return;
  if (isPunct(tokens[i - 1], '.')) refuseSql(`function ${tokens[i - 2]?.value ?? '?'}.${t.value}() is not allowed (qualified calls run stored functions)`);
  const name = t.value.toLowerCase();
  if (t.kind === 'word' && PAREN_KEYWORDS.has(name)) return;
  if (!FUNCTIONS.has(name)) refuseSql(`function ${name}() is not allowed`);
}

/**
 * Lexes and checks one MySQL/TiDB statement (trailing `;` already removed). Returns its tokens
 * and first word; throws {@link SqlRefusal} naming the refused part.
 */
export function checkMySqlText(text: string): { tokens: MySqlToken[]; first: string } {
  const tokens = tokenizeMySql(text);
  const first = checkStart(tokens);
  const show = first === 'show';
  let depth = 0;
  tokens.forEach((t, i) => {
    if (isPunct(t, '(')) depth++;
    if (isPunct(t, ')') && --depth < 0) refuseSql('unbalanced parentheses');
    if (t.kind === 'word') checkWord(tokens, i, show);
    checkCall(tokens, i);
  });
  if (depth !== 0) refuseSql('unbalanced parentheses');
  return { tokens, first };
}
