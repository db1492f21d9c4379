/**
 * Text-level rules shared by the MySQL/TiDB and PostgreSQL lexers: the characters no statement
 * may hold anywhere (not even inside a quoted string), and the refusal both lexers throw.
 */

/** A refusal with the reason shown to the planner; validators turn it into `PROVIDER.QUERY_REJECTED`. */
export class SqlRefusal extends Error {}

export const refuseSql = (why: string): never => {
  throw new SqlRefusal(why);
};

/** `U+200B`-style name of a character, for messages (never the character itself: it is invisible). */
export const codePointName = (ch: string): string => `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Characters that render as nothing or as something else: controls other than tab and line
 * breaks (NUL included), format characters (zero-width spaces and joiners, bidi overrides and
 * isolates, the BOM, soft hyphen), line/paragraph separators, spaces other than U+0020, private
 * use and lone surrogates. A reader (human or model) would not see what the server runs.
 */
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}]|(?! )\p{Zs}/u;

/** The first invisible or control character of the text, named (`U+202E`), or null. */
export function invisibleCharacter(text: string): string | null {
  const m = INVISIBLE.exec(text);
  return m ? codePointName(m[0]) : null;
}

/** Refuses text holding an invisible or control character anywhere. */
export function refuseInvisible(text: string): void {
  const found = invisibleCharacter(text);
  if (found) refuseSql(`invisible or control characters are not allowed (${found})`);
}

/** Whitespace both servers and our lexers agree on: ASCII space, tab and line breaks only. */
export const isSqlSpace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
