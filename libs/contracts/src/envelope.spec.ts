import { z } from 'zod';
import { sampleDeadLetter, sampleEnvelope, sampleEnvelopeMeta } from '../test/sample-payloads';
import {
  DeadLetterV1,
  EnvelopeMeta,
  HEADER_SCHEMA,
  HEADER_TRACEPARENT,
  HEADER_TRACESTATE,
  MAX_MESSAGE_BYTES,
  WireEnvelope,
  dlqTopicOf,
} from './envelope';
import { TOPIC_REGISTRY, Topics } from './registry';
import { ROLES } from './roles';

const TOPIC = Topics.runPublished.name;

function issuesOf(value: unknown): { paths: string[]; text: string } {
  const result = EnvelopeMeta.safeParse(value);
  if (result.success) return { paths: [], text: '' };
  return { paths: result.error.issues.map((i) => i.path.join('.')), text: z.prettifyError(result.error) };
}

describe('envelope metadata', () => {
  it('accepts a valid envelope, with and without runId/ticketKey', () => {
    expect(EnvelopeMeta.safeParse(sampleEnvelopeMeta(TOPIC)).success).toBe(true);
    const { runId: _r, ticketKey: _t, ...bare } = sampleEnvelopeMeta(TOPIC);
    expect(EnvelopeMeta.safeParse(bare).success).toBe(true);
    expect(WireEnvelope.safeParse(sampleEnvelope(TOPIC)).success).toBe(true);
  });

  it.each(TOPIC_REGISTRY.map((t) => t.name))('builds a consistent sample envelope for %s', (name) => {
    const env = sampleEnvelope(name);
    const topic = TOPIC_REGISTRY.find((t) => t.name === name);
    expect(WireEnvelope.safeParse(env).success).toBe(true);
    expect(env.schema.topic).toBe(name);
    expect(name.endsWith(`.v${env.schema.version}`)).toBe(true);
    expect(topic?.producers).toContain(env.producer);
    expect(Buffer.byteLength(JSON.stringify(env), 'utf8')).toBeLessThan(MAX_MESSAGE_BYTES);
  });

  it('rejects a bad uuid with an error naming messageId', () => {
    for (const bad of ['not-a-uuid', '', '5b1c9a5e7c1f4f7e9c592f7d0c1e8a41', '5b1c9a5e-7c1f-4f7e-9c59-2f7d0c1e8a4Z']) {
      const { paths, text } = issuesOf(sampleEnvelopeMeta(TOPIC, { messageId: bad }));
      expect(paths).toEqual(['messageId']);
      expect(text).toContain('messageId');
    }
  });

  it('rejects an unknown producer with an error naming producer', () => {
    const { paths, text } = issuesOf({ ...sampleEnvelopeMeta(TOPIC), producer: 'external' });
    expect(paths).toEqual(['producer']);
    expect(text).toContain('producer');
  });

  it('accepts every role as producer', () => {
    for (const role of ROLES) expect(EnvelopeMeta.safeParse(sampleEnvelopeMeta(TOPIC, { producer: role })).success).toBe(true);
  });

  it.each([
    ['schema.version', { schema: { topic: TOPIC, version: 0 } }],
    ['schema.version', { schema: { topic: TOPIC, version: 1.5 } }],
    ['schema.version', { schema: { topic: TOPIC, version: '1' } }],
    ['schema.topic', { schema: { topic: '', version: 1 } }],
    ['idempotencyKey', { idempotencyKey: '' }],
    ['idempotencyKey', { idempotencyKey: 'k'.repeat(257) }],
    ['runId', { runId: '../etc/passwd' }],
    ['runId', { runId: ' run-1' }],
    ['ticketKey', { ticketKey: 'SUP 1042' }],
    ['producedAt', { producedAt: '2025-01-01T10:00:00' }],
    ['producedAt', { producedAt: 'yesterday' }],
  ])('rejects a bad %s with an error naming the field', (field, override) => {
    const { paths, text } = issuesOf({ ...sampleEnvelopeMeta(TOPIC), ...override });
    expect(paths).toEqual([field]);
    expect(text).toContain(field);
  });

  it.each(['messageId', 'idempotencyKey', 'schema', 'producedAt', 'producer'])('requires %s', (field) => {
    const meta: Record<string, unknown> = { ...sampleEnvelopeMeta(TOPIC) };
    delete meta[field];
    expect(issuesOf(meta).paths).toEqual([field]);
  });

  it('requires a payload field on the wire (possibly any value)', () => {
    expect(WireEnvelope.safeParse({ ...sampleEnvelopeMeta(TOPIC), payload: { anything: true } }).success).toBe(true);
  });
});

describe('headers, size limit and dead letters', () => {
  it('uses W3C trace context header names and the aoc-schema header', () => {
    expect(HEADER_TRACEPARENT).toBe('traceparent');
    expect(HEADER_TRACESTATE).toBe('tracestate');
    expect(HEADER_SCHEMA).toBe('aoc-schema');
  });

  it('limits messages to 512 KiB', () => {
    expect(MAX_MESSAGE_BYTES).toBe(512 * 1024);
  });

  it('names dead-letter topics <topic>.dlq', () => {
    expect(dlqTopicOf('aoc.run.published.v1')).toBe('aoc.run.published.v1.dlq');
  });

  it('accepts a valid dead letter and rejects one without a reason or with negative attempts', () => {
    const dl = sampleDeadLetter(TOPIC);
    expect(DeadLetterV1.safeParse(dl).success).toBe(true);
    const { reason: _reason, ...noReason } = dl;
    expect(DeadLetterV1.safeParse(noReason).error?.issues.map((i) => i.path.join('.'))).toEqual(['reason']);
    expect(DeadLetterV1.safeParse({ ...dl, attempts: -1 }).error?.issues.map((i) => i.path.join('.'))).toEqual(['attempts']);
    expect(DeadLetterV1.safeParse({ ...dl, originalKey: null, messageId: null, runId: null }).success).toBe(true);
  });
});
