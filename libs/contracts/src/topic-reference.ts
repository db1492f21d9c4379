import { z } from 'zod';
import { DeadLetterV1, EnvelopeMeta, HEADER_SCHEMA, HEADER_TRACEPARENT, HEADER_TRACESTATE, dlqTopicOf } from './envelope';
import { TOPIC_REGISTRY } from './registry';
import { principalName } from './roles';
import type { TopicDefinition } from './topic-definition';

type JsonSchema = Record<string, unknown>;

function toJsonSchema(schema: z.ZodType, id: string, title: string): JsonSchema {
  const generated = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'throw' }) as JsonSchema;
  return { $id: id, title, ...generated };
}

export function payloadSchemaFileName(topic: TopicDefinition): string {
  return `${topic.name}.schema.json`;
}

/** JSON Schema of every payload, of the envelope metadata and of dead letters, keyed by file name. */
export function jsonSchemas(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const t of TOPIC_REGISTRY) {
    out[payloadSchemaFileName(t)] = toJsonSchema(t.value, `urn:aoc:topic:${t.name}`, `${t.baseName} v${t.version} payload`);
  }
  out['envelope.v1.schema.json'] = toJsonSchema(EnvelopeMeta, 'urn:aoc:envelope:v1', 'Envelope metadata v1');
  out['dead-letter.v1.schema.json'] = toJsonSchema(DeadLetterV1, 'urn:aoc:dead-letter:v1', 'Dead letter v1');
  return out;
}

function messageSchema(t: TopicDefinition): JsonSchema {
  const envelope = z.toJSONSchema(EnvelopeMeta, { target: 'draft-2020-12', io: 'input' }) as JsonSchema;
  const payload = z.toJSONSchema(t.value, { target: 'draft-2020-12', io: 'input', unrepresentable: 'throw' }) as JsonSchema;
  const props = (envelope['properties'] ?? {}) as Record<string, unknown>;
  const required = (envelope['required'] ?? []) as string[];
  delete envelope['$schema'];
  delete payload['$schema'];
  return {
    ...envelope,
    properties: { ...props, payload },
    required: [...required, 'payload'],
  };
}

/** AsyncAPI 3 document of every topic: channels, messages and send/receive operations per role. */
export function asyncApiDocument(version: string): Record<string, unknown> {
  const channels: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const headers = {
    type: 'object',
    properties: {
      [HEADER_TRACEPARENT]: { type: 'string', description: 'W3C trace context' },
      [HEADER_TRACESTATE]: { type: 'string', description: 'W3C trace state' },
      [HEADER_SCHEMA]: { type: 'string', description: 'Versioned topic name of the payload' },
    },
  };
  for (const t of TOPIC_REGISTRY) {
    const id = t.name.replace(/[^A-Za-z0-9]/g, '_');
    messages[id] = {
      name: t.name,
      title: `${t.baseName} v${t.version}`,
      summary: t.description,
      contentType: 'application/json',
      headers,
      payload: messageSchema(t),
      bindings: { kafka: { key: { type: 'string', description: `payload.${t.keyField}` } } },
    };
    channels[id] = {
      address: t.name,
      description: `${t.description} Key: ${t.keyField}. Dead letters: ${dlqTopicOf(t.name)}.`,
      messages: { [id]: { $ref: `#/components/messages/${id}` } },
      bindings: { kafka: { partitions: t.partitions, replicas: 1 } },
    };
    for (const role of t.producers) {
      operations[`${principalName(role)}_send_${id}`] = {
        action: 'send',
        channel: { $ref: `#/channels/${id}` },
        summary: `${role} publishes ${t.name}`,
      };
    }
    for (const role of t.consumers) {
      operations[`${principalName(role)}_receive_${id}`] = {
        action: 'receive',
        channel: { $ref: `#/channels/${id}` },
        summary: `${role} consumes ${t.name}`,
      };
    }
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Auto-oncall topics',
      version,
      description: 'Versioned Kafka topics of Auto-oncall. Generated from libs/contracts; do not edit by hand.',
    },
    defaultContentType: 'application/json',
    channels,
    operations,
    components: { messages },
  };
}
