import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { sampleEnvelope } from '../test/sample-payloads';
import { HEADER_SCHEMA, HEADER_TRACEPARENT, HEADER_TRACESTATE, dlqTopicOf } from './envelope';
import { TOPIC_REGISTRY } from './registry';
import { principalName } from './roles';
import { asyncApiDocument } from './topic-reference';

jest.setTimeout(60_000);

type Doc = {
  asyncapi: string;
  info: { version: string };
  channels: Record<string, { address: string; description: string; messages: Record<string, { $ref: string }>; bindings: { kafka: { partitions: number } } }>;
  operations: Record<string, { action: string; channel: { $ref: string } }>;
  components: { messages: Record<string, { name: string; headers: { properties: Record<string, unknown> }; payload: Record<string, unknown> }> };
};

async function errorsOf(doc: unknown): Promise<string[]> {
  const diagnostics = await new Parser().validate(JSON.stringify(doc));
  return diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error).map((d) => `${d.path.join('.')}: ${d.message}`);
}

describe('asyncApiDocument()', () => {
  const doc = asyncApiDocument('1.2.3') as unknown as Doc;

  it('validates with @asyncapi/parser without errors and parses into a document', async () => {
    expect(await errorsOf(doc)).toEqual([]);
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
    expect(diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error)).toEqual([]);
    expect(document).toBeDefined();
    expect(document?.channels().length).toBe(TOPIC_REGISTRY.length);
  });

  it('is an AsyncAPI 3.0 document carrying the given version', () => {
    expect(doc.asyncapi).toBe('3.0.0');
    expect(doc.info.version).toBe('1.2.3');
  });

  it('the validation is not vacuous: a dangling reference or a bad payload type is an error', async () => {
    const broken = JSON.parse(JSON.stringify(doc)) as Doc;
    broken.operations['bogus'] = { action: 'send', channel: { $ref: '#/channels/nope' } };
    expect((await errorsOf(broken)).length).toBeGreaterThan(0);
    const badPayload = JSON.parse(JSON.stringify(doc)) as Doc;
    const first = Object.keys(badPayload.components.messages)[0] as string;
    (badPayload.components.messages[first] as { payload: Record<string, unknown> }).payload['type'] = 'uuid';
    expect((await errorsOf(badPayload)).length).toBeGreaterThan(0);
  });

  it('has one channel per topic, addressed by the topic name, mentioning key and DLQ', () => {
    const channels = Object.values(doc.channels);
    expect(channels.map((c) => c.address).sort()).toEqual(TOPIC_REGISTRY.map((t) => t.name).sort());
    for (const t of TOPIC_REGISTRY) {
      const channel = channels.find((c) => c.address === t.name);
      expect(channel?.description).toContain(dlqTopicOf(t.name));
      expect(channel?.description).toContain(t.keyField);
      expect(channel?.bindings.kafka.partitions).toBe(t.partitions);
    }
  });

  it('has exactly one send operation per producer role and one receive operation per consumer role', () => {
    const actual = Object.values(doc.operations)
      .map((o) => {
        const channelId = o.channel.$ref.replace('#/channels/', '');
        return `${o.action} ${doc.channels[channelId]?.address}`;
      })
      .sort();
    const expected = TOPIC_REGISTRY.flatMap((t) => [...t.producers.map(() => `send ${t.name}`), ...t.consumers.map(() => `receive ${t.name}`)]).sort();
    expect(actual).toEqual(expected);
    for (const t of TOPIC_REGISTRY) {
      for (const role of t.producers) expect(Object.keys(doc.operations).some((id) => id.startsWith(`${principalName(role)}_send_`))).toBe(true);
    }
  });

  it('declares the trace context and schema headers on every message', () => {
    for (const m of Object.values(doc.components.messages)) {
      expect(Object.keys(m.headers.properties).sort()).toEqual([HEADER_SCHEMA, HEADER_TRACEPARENT, HEADER_TRACESTATE].sort());
    }
  });

  it.each(TOPIC_REGISTRY.map((t) => t.name))('message payload of %s accepts a sample envelope and rejects a broken one', (name) => {
    const message = Object.values(doc.components.messages).find((m) => m.name === name);
    expect(message).toBeDefined();
    const ajv = new Ajv2020({ strict: true });
    addFormats(ajv);
    const validate = ajv.compile(message?.payload ?? {});
    expect(validate(sampleEnvelope(name))).toBe(true);
    const { payload: _payload, ...noPayload } = sampleEnvelope(name);
    expect(validate(noPayload)).toBe(false);
    expect(validate({ ...sampleEnvelope(name), messageId: 'nope' })).toBe(false);
    expect(validate({ ...sampleEnvelope(name), payload: {} })).toBe(false);
  });
});
