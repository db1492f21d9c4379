import { FeedbackAction as FeedbackActionSchema } from '@aoc/contracts';
import type { ParsedFeedback } from './feedback.types';

/**
 * The command line: exactly `/ao`, horizontal whitespace, a lower-case action, then a separator
 * (`:`, `：`, `.`, `。`, whitespace or end of line). `[^\S\n]` is whitespace without newlines; it
 * includes the no-break space and the ideographic space that CJK input methods type. The lookahead
 * rejects `/ao accepted`, `/ao acceptable`, `/ao wrong-ish`. Upper-case actions are rejected on
 * purpose: a command that moves the quality score must be written the documented way.
 */
const COMMAND_LINE = /^\/ao[^\S\n]+(accept|revise|wrong|human)(?=$|[^\S\n]|[:：.。])[^\S\n]*[:：.。]?([^\n]*)$/;

/** Invisible characters that survive copy-paste (zero-width space/joiners, word joiner, BOM). */
const LEADING_INVISIBLES = /^[\u200B-\u200D\u2060\uFEFF]+/;

/**
 * Parses the /ao command of a comment body, or null. Only the first line of the trimmed body can be
 * a command (a quoted, fenced or later `/ao` line is someone talking about a command, not giving
 * one). The reason is the rest of that line plus every following line, trimmed, newlines kept.
 */
export function parseFeedbackCommand(body: string): ParsedFeedback | null {
  const text = body.replace(/\r\n?/g, '\n').trim().replace(LEADING_INVISIBLES, '').trim();
  const newline = text.indexOf('\n');
  const firstLine = (newline === -1 ? text : text.slice(0, newline)).trim();
  const match = COMMAND_LINE.exec(firstLine);
  if (match === null) return null;
  const following = newline === -1 ? '' : text.slice(newline + 1);
  return { action: FeedbackActionSchema.parse(match[1]), reason: `${match[2]}\n${following}`.trim() };
}
