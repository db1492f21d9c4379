import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { sampleDeadLetter, sampleEnvelopeMeta, samplePayloadRecord } from '../test/sample-payloads';
import { Verdict } from './common';
import { TOPIC_REGISTRY, Topics } from './registry';
import { jsonSchemas, payloadSchemaFileName } from './topic-reference';

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
const schemas = jsonSchemas();

function validatorOf(file: string): (value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const schema = schemas[file];
  if (!schema) throw new Error(`no schema ${file}`);
  const validate = ajv.compile(schema);
  return (value) => validate(value) as boolean;
}

describe('jsonSchemas()', () => {
  it('has one file per topic plus the envelope and the dead letter, and nothing else', () => {
    const expected = [...TOPIC_REGISTRY.map(payloadSchemaFileName), 'envelope.v1.schema.json', 'dead-letter.v1.schema.json'];
    expect(Object.keys(schemas).sort()).toEqual(expected.sort());
  });

  it('gives every schema a unique $id and a title', () => {
    const ids = Object.values(schemas).map((s) => s['$id']);
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of Object.values(schemas)) {
      expect(typeof s['$id']).toBe('string');
      expect(typeof s['title']).toBe('string');
    }
  });

  it.each(Object.keys(schemas))('%s is a valid JSON Schema 2020-12 that compiles in ajv strict mode', (file) => {
    const schema = schemas[file] as Record<string, unknown>;
    expect(schema['$schema']).toBe(DRAFT_2020_12);
    const ajv = new Ajv2020({ strict: true });
    addFormats(ajv);
    expect(ajv.validateSchema(schema)).toBe(true);
    expect(ajv.errors ?? null).toBeNull();
    expect(() => ajv.compile(schema)).not.toThrow();
  });

  describe.each(TOPIC_REGISTRY.map((t) => [t.name, t] as const))('payload schema of %s', (_name, topic) => {
    const validate = validatorOf(payloadSchemaFileName(topic));

    it('accepts the valid sample payload', () => {
      expect(validate(samplePayloadRecord(topic.name))).toBe(true);
    });

    it('rejects a payload whose key field has the wrong type', () => {
      expect(validate({ ...samplePayloadRecord(topic.name), [topic.keyField]: 12345 })).toBe(false);
    });

    it('rejects a non-object payload', () => {
      for (const bad of [null, 'x', 1, []]) expect(validate(bad)).toBe(false);
    });

    it('agrees with the zod schema when any single top-level field is removed', () => {
      const fields = Object.keys(samplePayloadRecord(topic.name));
      expect(fields.length).toBeGreaterThan(0);
      for (const field of fields) {
        const payload = samplePayloadRecord(topic.name);
        delete payload[field];
        expect({ field, jsonSchema: validate(payload) }).toEqual({ field, jsonSchema: topic.value.safeParse(payload).success });
      }
    });
  });

  it('envelope schema accepts valid metadata and rejects a bad uuid, an unknown producer and a missing field', () => {
    const validate = validatorOf('envelope.v1.schema.json');
    expect(validate(sampleEnvelopeMeta(Topics.runPublished.name))).toBe(true);
    expect(validate(sampleEnvelopeMeta(Topics.runPublished.name, { messageId: 'not-a-uuid' }))).toBe(false);
    expect(validate({ ...sampleEnvelopeMeta(Topics.runPublished.name), producer: 'external' })).toBe(false);
    const { producedAt: _p, ...missing } = sampleEnvelopeMeta(Topics.runPublished.name);
    expect(validate(missing)).toBe(false);
  });

  it('dead-letter schema accepts a valid dead letter and rejects negative attempts', () => {
    const validate = validatorOf('dead-letter.v1.schema.json');
    expect(validate(sampleDeadLetter(Topics.evidenceRequested.name))).toBe(true);
    expect(validate({ ...sampleDeadLetter(Topics.evidenceRequested.name), attempts: -1 })).toBe(false);
  });

  it('keeps the boundaries in the published schemas: no reason/hypothesis in evidence.requested, no execution in run.published', () => {
    const evidence = validatorOf(payloadSchemaFileName(Topics.evidenceRequested));
    expect(evidence({ ...samplePayloadRecord(Topics.evidenceRequested.name), reason: 'x' })).toBe(false);
    expect(evidence({ ...samplePayloadRecord(Topics.evidenceRequested.name), hypothesis: 'x' })).toBe(false);
    const run = validatorOf(payloadSchemaFileName(Topics.runPublished));
    expect(run({ ...samplePayloadRecord(Topics.runPublished.name), failureCodes: [] })).toBe(false);
    expect(run({ ...samplePayloadRecord(Topics.runPublished.name), evidenceAcquisition: {} })).toBe(false);
    expect(run({ ...samplePayloadRecord(Topics.runPublished.name), answerFingerprint: 'ABC' })).toBe(false);
  });

  it('publishes exactly the five verdicts', () => {
    const schema = schemas[payloadSchemaFileName(Topics.evaluationJudged)] as { properties: { verdict: { enum: string[] } } };
    expect([...schema.properties.verdict.enum].sort()).toEqual([...Verdict.options].sort());
    expect(schema.properties.verdict.enum).toHaveLength(5);
  });

  it('limits a planned batch to 12 queries', () => {
    const validate = validatorOf(payloadSchemaFileName(Topics.evidenceBatchPlanned));
    const q = (i: number) => ({ id: `q${i}`, operation: 'promql_instant', expression: 'up', purpose: 'p' });
    const sample = samplePayloadRecord(Topics.evidenceBatchPlanned.name);
    expect(validate({ ...sample, queries: Array.from({ length: 12 }, (_, i) => q(i)) })).toBe(true);
    expect(validate({ ...sample, queries: Array.from({ length: 13 }, (_, i) => q(i)) })).toBe(false);
    expect(validate({ ...sample, queries: [{ ...q(1), id: '../x' }] })).toBe(false);
  });
});
