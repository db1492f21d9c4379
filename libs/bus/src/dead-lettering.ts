import { DeadLetterV1, HEADER_SCHEMA } from '@aoc/contracts';
import type { BusErrorCode } from './bus-errors';
import type { OutgoingMessage, RawMessage } from './transport/transport';

/** A letter keeps the first 64 KiB of the original value, so the DLQ stays small whatever the message limit. */
export const MAX_DLQ_VALUE_BYTES = 64 * 1024;
/** The reason a letter keeps (the log shows less, see redactReason). */
const MAX_REASON_CHARS = 2000;

/** Who dead-letters what, and why. */
export interface DeadLetterCause {
  group: string;
  messageId: string | null;
  runId: string | null;
  errorCode: BusErrorCode;
  reason: string;
  attempts: number;
}

/**
 * The letter for a consumed message and the outbox message that carries it to `<topic>.dlq`, with
 * the original headers (trace context included) plus the dead-letter schema and the error code.
 */
export function deadLetterOf(raw: RawMessage, cause: DeadLetterCause): { letter: DeadLetterV1; message: OutgoingMessage } {
  const text = raw.value.toString('utf8');
  const truncated = Buffer.byteLength(text, 'utf8') > MAX_DLQ_VALUE_BYTES;
  const letter: DeadLetterV1 = {
    originalTopic: raw.topic,
    originalKey: raw.key,
    originalValue: truncated ? raw.value.subarray(0, MAX_DLQ_VALUE_BYTES).toString('utf8') : text,
    originalValueTruncated: truncated,
    originalHeaders: raw.headers,
    messageId: cause.messageId,
    consumerGroup: cause.group,
    errorCode: cause.errorCode,
    reason: cause.reason.slice(0, MAX_REASON_CHARS),
    attempts: cause.attempts,
    deadLetteredAt: new Date().toISOString(),
    runId: cause.runId,
  };
  DeadLetterV1.parse(letter);
  const message = { key: raw.key, value: JSON.stringify(letter), headers: { ...raw.headers, [HEADER_SCHEMA]: 'aoc.dead-letter.v1', 'aoc-error-code': cause.errorCode } };
  return { letter, message };
}
