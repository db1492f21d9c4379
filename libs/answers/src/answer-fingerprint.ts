import { createHash } from 'node:crypto';

/** Lines that describe the run rather than the answer: status footers and run metadata. */
const METADATA_LINE = /^\s*(?:[-*_]{3,}\s*$|<!--.*-->\s*$|_?\s*(?:run(?: id)?|trace(?: id)?|generated(?: at| by)?|status|answer version|fingerprint|auto-oncall)\s*[:=])/i;

/**
 * Normalises one message so that an answer keeps its fingerprint when only formatting, run
 * metadata or a status footer changed: drops metadata lines, collapses whitespace, trims.
 */
export function normaliseMessage(markdown: string): string {
  return markdown
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .filter((line) => !METADATA_LINE.test(line))
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length > 0)
    .join('\n');
}

/** sha256 over the normalised (customer reply, internal handoff) pair. */
export function answerFingerprint(customerReplyMarkdown: string, internalHandoffMarkdown: string): string {
  const body = JSON.stringify({ v: 2, customer: normaliseMessage(customerReplyMarkdown), internal: normaliseMessage(internalHandoffMarkdown) });
  return createHash('sha256').update(body).digest('hex');
}

/** Fingerprint of older single-message answers; kept so stored versions stay readable. */
export function legacySingleMessageFingerprint(markdown: string): string {
  return createHash('sha256').update(normaliseMessage(markdown)).digest('hex');
}
