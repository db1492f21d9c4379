// Incident lab recorder: what leaves the lab. Statement text keeps its shape, never its values.

/** Replaces string and numeric literals of SQL text by `?` (placeholders $n stay). */
export function normaliseSql(sql: string): string {
  return sql
    .replace(/'(?:[^']|'')*'/g, '?')
    .replace(/(?<![\w$.])-?\d+(?:\.\d+)?(?![\w.])/g, '?')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 1000);
}

const STATEMENT_AFTER = /^(.*?\b(?:STATEMENT|statement|execute [^:]*|DETAIL: {2}parameters):\s*)(.*)$/;
const SQL_LINE = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|BEGIN|COMMIT|ALTER|CREATE|DROP|TRUNCATE|VACUUM|SET|CALL|REPLACE|LOCK)\b/i;

/** A log line with the statement text it carries normalised; other text unchanged. */
export function sanitiseLogLine(line: string): string {
  if (/DETAIL: {2}[Pp]arameters:/.test(line)) return line.replace(/(parameters:).*$/i, '$1 <removed>');
  const m = STATEMENT_AFTER.exec(line);
  if (m) return `${m[1]}${normaliseSql(m[2])}`;
  if (SQL_LINE.test(line)) return normaliseSql(line);
  return line.slice(0, 4000);
}

/** InnoDB's deadlock report prints the locked records' bytes (" 0: len 4; hex 80000001; asc ...;;"): row data, never kept. */
export function isRecordDump(line: string): boolean {
  return /^\s*\d+: len \d+; hex /.test(line) || /^\s*\d+: SQL NULL;/.test(line);
}
