import { WireEnvelope, type EnvelopeMeta } from '@aoc/contracts';
import type { z } from 'zod';
import type { ContractsView, Registration } from './bus-api';
import { describeIssues, type BusErrorCode } from './bus-errors';
import { jsonErrorWithoutInput } from './dead-letters';
import type { RawMessage } from './transport/transport';

/*
 * The checks a consumed message passes before a handler sees it, in the order the bus runs them:
 * size, JSON, envelope, then (once the inbox id is known) handler, schema version and payload. A
 * message that fails one is dead-lettered with the code and reason returned here.
 */

export type Envelope = z.infer<typeof WireEnvelope>;

/** Why a consumed message never reaches a handler. */
export interface Refusal {
  code: BusErrorCode;
  reason: string;
}

export const isRefusal = <T extends object>(result: T | Refusal): result is Refusal => 'code' in result && 'reason' in result;

/** The inbox id of a message that has no readable message id: where it lies in the log. */
export const rawInboxId = (raw: RawMessage): string => `raw:${raw.topic}:${raw.partition}:${raw.offset}`;

/** The envelope without its payload: what a handler sees as `ctx.envelope`. */
export function metaOf(envelope: Envelope): EnvelopeMeta {
  const { payload: _payload, ...meta } = envelope;
  return meta;
}

/** Size limit, JSON and envelope: what can be checked before the message is known by its id. */
export function readEnvelope(raw: RawMessage, maxMessageBytes: number): Envelope | Refusal {
  if (raw.value.length > maxMessageBytes) {
    return { code: 'BUS.MESSAGE_TOO_LARGE', reason: `message of ${raw.value.length} bytes exceeds the ${maxMessageBytes} byte limit` };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw.value.toString('utf8'));
  } catch (error) {
    // Never the parser's message as is: it quotes the start of the value (ticket text, say).
    return { code: 'BUS.MALFORMED_JSON', reason: `value is not valid JSON: ${jsonErrorWithoutInput(error)}` };
  }
  const wire = WireEnvelope.safeParse(json);
  if (!wire.success) return { code: 'BUS.ENVELOPE_INVALID', reason: describeIssues('envelope', wire.error.issues) };
  return wire.data;
}

/** The group's handler for the topic, and the payload validated against the schema the envelope names. */
export function readPayload(
  group: string,
  handlers: Map<string, Registration>,
  raw: RawMessage,
  envelope: Envelope,
  contracts: ContractsView,
): { registration: Registration; payload: unknown } | Refusal {
  const registration = handlers.get(raw.topic);
  if (!registration) return { code: 'BUS.NO_HANDLER', reason: `no handler for ${raw.topic} in group ${group}` };
  const topic = registration.topic;
  if (envelope.schema.version !== topic.version || envelope.schema.topic !== topic.name) {
    // `aoc.x.v2` on the `aoc.x.v1` topic is an unknown version; another base name is a mismatch.
    const baseOf = (name: string) => name.replace(/\.v\d+$/, '');
    if (baseOf(envelope.schema.topic) === baseOf(topic.name)) {
      return {
        code: 'BUS.UNKNOWN_SCHEMA_VERSION',
        reason: `schema ${envelope.schema.topic} version ${envelope.schema.version} is not understood by this consumer of ${topic.name} (known versions: ${contracts.knownVersionsOf(topic.baseName).join(', ')})`,
      };
    }
    return { code: 'BUS.SCHEMA_MISMATCH', reason: `envelope names schema ${envelope.schema.topic} but arrived on ${topic.name}` };
  }
  const payload = topic.value.safeParse(envelope.payload);
  if (!payload.success) return { code: 'BUS.SCHEMA_INVALID', reason: describeIssues('payload', payload.error.issues) };
  return { registration, payload: payload.data };
}
