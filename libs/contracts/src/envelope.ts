import { z } from 'zod';
import { IsoDateTime, RunId, TicketKey } from './common';
import { ROLES } from './roles';

/** Kafka header names. Trace context follows W3C Trace Context. */
export const HEADER_TRACEPARENT = 'traceparent';
export const HEADER_TRACESTATE = 'tracestate';
export const HEADER_SCHEMA = 'aoc-schema';

/** Largest serialised envelope a producer may send or a consumer will accept. */
export const MAX_MESSAGE_BYTES = 512 * 1024;

export const SchemaRef = z.object({
  topic: z.string().min(1).describe('Versioned topic name, e.g. aoc.run.published.v1'),
  version: z.number().int().positive().describe('Schema version; equals the topic name suffix'),
});
export type SchemaRef = z.infer<typeof SchemaRef>;

/**
 * Metadata of every message. The payload travels beside it in the same JSON object so that a
 * consumer can reject a message by its metadata before it looks at the payload.
 */
export const EnvelopeMeta = z.object({
  messageId: z.uuid().describe('Unique id of this message; consumers de-duplicate on it'),
  idempotencyKey: z.string().min(1).max(256).describe('Stable key of the business fact; same fact, same key'),
  schema: SchemaRef,
  runId: RunId.optional(),
  ticketKey: TicketKey.optional(),
  producedAt: IsoDateTime,
  producer: z.enum(ROLES).describe('Role that produced the message'),
});
export type EnvelopeMeta = z.infer<typeof EnvelopeMeta>;

/** Wire shape: metadata plus an unparsed payload; the payload is parsed against the topic schema. */
export const WireEnvelope = EnvelopeMeta.extend({ payload: z.unknown() });
export type WireEnvelope = z.infer<typeof WireEnvelope>;

export interface Envelope<P> extends EnvelopeMeta {
  payload: P;
}

/** What goes to `<topic>.dlq`: the original bytes (as text) and why they were refused. */
export const DeadLetterV1 = z.object({
  originalTopic: z.string(),
  originalKey: z.string().nullable(),
  originalValue: z.string().describe('Original message value, UTF-8, truncated to 64 KiB'),
  originalValueTruncated: z.boolean(),
  originalHeaders: z.record(z.string(), z.string()),
  messageId: z.string().nullable().describe('Envelope message id when it could be read'),
  consumerGroup: z.string(),
  errorCode: z.string().describe('Module error code, e.g. BUS.SCHEMA_INVALID'),
  reason: z.string().describe('Human-readable reason naming the offending field'),
  attempts: z.number().int().nonnegative(),
  deadLetteredAt: IsoDateTime,
  runId: z.string().nullable(),
});
export type DeadLetterV1 = z.infer<typeof DeadLetterV1>;

export function dlqTopicOf(topic: string): string {
  return `${topic}.dlq`;
}
