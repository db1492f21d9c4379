import { createHash, randomUUID } from 'node:crypto';
import type { EnvelopeMeta, PayloadOf, Role, TopicDefinition } from '@aoc/contracts';
import type { PublishOptions } from './bus-api';
import { BusError, describeIssues } from './bus-errors';

/** A message ready for the outbox, before its trace headers. */
export interface EncodedMessage {
  key: string;
  meta: EnvelopeMeta;
  /** The wire form: the envelope with the payload in it. */
  value: string;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Validates a payload and wraps it in its envelope. Refused before anything is written: a payload
 * its schema rejects, and a message over the size limit (the broker would refuse it after commit).
 * `consumed` is the message being handled, if any: publications of a handler are keyed by it, so a
 * redelivery that publishes again is de-duplicated downstream.
 */
export function encodeMessage<T extends TopicDefinition>(
  topic: T,
  payload: PayloadOf<T>,
  options: PublishOptions,
  consumed: EnvelopeMeta | null,
  index: number,
  producer: Role,
  maxMessageBytes: number,
): EncodedMessage {
  const parsed = topic.value.safeParse(payload);
  if (!parsed.success) {
    throw new BusError('BUS.SCHEMA_INVALID', `refusing to publish invalid ${topic.name}: ${describeIssues('payload', parsed.error.issues)}`);
  }
  const value = parsed.data as Record<string, unknown>;
  const key = String(value[topic.keyField]);
  const bodyJson = JSON.stringify(value);
  const idempotencyKey =
    options.idempotencyKey ?? (consumed ? `${consumed.messageId}:${topic.name}:${index}` : `${topic.name}:${key}:${sha256(bodyJson)}`);
  const meta: EnvelopeMeta = {
    messageId: randomUUID(),
    idempotencyKey,
    schema: { topic: topic.name, version: topic.version },
    ...(typeof value['runId'] === 'string' ? { runId: value['runId'] } : {}),
    ...(typeof value['ticketKey'] === 'string' ? { ticketKey: value['ticketKey'] } : {}),
    producedAt: new Date().toISOString(),
    producer,
  };
  const serialized = JSON.stringify({ ...meta, payload: value });
  const bytes = Buffer.byteLength(serialized, 'utf8');
  if (bytes > maxMessageBytes) {
    throw new BusError('BUS.MESSAGE_TOO_LARGE', `refusing to publish ${topic.name}: ${bytes} bytes exceeds ${maxMessageBytes}`, { runId: meta.runId ?? null });
  }
  return { key, meta, value: serialized };
}
