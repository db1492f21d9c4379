import { z } from 'zod';
import { SAMPLE_PAYLOADS, samplePayload, samplePayloadRecord } from '../test/sample-payloads';
import { ROLES, type Role } from './roles';
import { TOPIC_REGISTRY, Topics, findTopic, knownVersionsOf } from './registry';
import { TOPIC_PREFIX } from './topic-definition';
import { jsonSchemas, payloadSchemaFileName } from './topic-reference';
import { dlqTopicOf } from './envelope';

/** The topic table of DESIGN.md section 3 ("external" consumers are not roles and are left out). */
const DESIGN_TOPICS: { baseName: string; producers: Role[]; consumers: Role[]; version?: number }[] = [
  // DESIGN.md lists the optimizer as a producer (its replays). It replays frozen cases through its own
  // in-process chain instead, so a replay never reaches the production router, judge or reports;
  // the grant went with the use (grants equal use, tools/launcher/src/grants-equal-use.spec.ts).
  { baseName: 'ticket.analysis-requested', producers: ['router'], consumers: ['router', 'judge'] },
  { baseName: 'scenario.selected', producers: ['router'], consumers: ['router'] },
  { baseName: 'evidence.requested', producers: ['router'], consumers: ['evidence'] },
  { baseName: 'evidence.batch-planned', producers: ['evidence'], consumers: ['provider-executor'] },
  { baseName: 'evidence.batch-materialized', producers: ['provider-executor'], consumers: ['router'] },
  { baseName: 'diagnosis.handoff-consumed', producers: ['router'], consumers: ['router'] },
  { baseName: 'run.published', producers: ['router'], consumers: ['judge', 'reporter', 'optimizer'] },
  { baseName: 'run.execution-recorded', producers: ['router'], consumers: ['reporter', 'optimizer'] },
  { baseName: 'ticket.timeline-updated', producers: ['router'], consumers: ['judge', 'reporter', 'optimizer'] },
  { baseName: 'evaluation.judged', producers: ['judge'], consumers: ['reporter', 'optimizer'] },
  // v2: versioned-data edits with gate rows and refs; v1 was declared, never produced, and retired.
  { baseName: 'optimizer.candidate-enqueued', producers: ['optimizer'], consumers: [], version: 2 },
  // Generality (issue 9): provider inventories for target resolution, and the discovery bootstrap.
  { baseName: 'provider.inventory-listed', producers: ['provider-executor'], consumers: ['router'] },
  { baseName: 'evidence.catalog-requested', producers: ['evidence'], consumers: ['provider-executor'] },
  { baseName: 'evidence.catalog-listed', producers: ['provider-executor'], consumers: ['evidence'] },
];

/** `aoc.` + dot-separated lower-case segments + `.v<N>`. */
const VERSIONED_NAME = /^aoc\.[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+\.v[1-9][0-9]*$/;
/** Kafka's own rule for topic names. */
const KAFKA_TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

const sorted = <T>(xs: readonly T[]): T[] => [...xs].sort();

describe('topic registry', () => {
  it('uses the aoc. prefix', () => {
    expect(TOPIC_PREFIX).toBe('aoc.');
  });

  describe.each(DESIGN_TOPICS)('DESIGN topic $baseName', ({ baseName, producers, consumers, version = 1 }) => {
    const name = `aoc.${baseName}.v${version}`;

    it(`is registered as ${name}`, () => {
      const topic = findTopic(name);
      expect(topic).toBeDefined();
      expect(topic?.name).toBe(name);
      expect(topic?.baseName).toBe(baseName);
      expect(topic?.version).toBe(version);
      expect(topic?.name).toMatch(VERSIONED_NAME);
    });

    it('has the producers and consumers of the design table', () => {
      const topic = findTopic(name);
      expect(sorted(topic?.producers ?? [])).toEqual(sorted(producers));
      expect(sorted(topic?.consumers ?? [])).toEqual(sorted(consumers));
    });
  });

  it('registers no topic outside the design table', () => {
    const known = new Set(DESIGN_TOPICS.map((t) => t.baseName));
    expect(TOPIC_REGISTRY.map((t) => t.baseName).filter((b) => !known.has(b))).toEqual([]);
  });

  it('is exactly the Topics handles, in order', () => {
    expect(TOPIC_REGISTRY).toEqual(Object.values(Topics));
  });

  describe.each(TOPIC_REGISTRY.map((t) => [t.name, t] as const))('%s', (_name, topic) => {
    it('has a versioned, prefixed name that matches baseName and version', () => {
      expect(topic.name).toMatch(VERSIONED_NAME);
      expect(topic.name).toBe(`${TOPIC_PREFIX}${topic.baseName}.v${topic.version}`);
      expect(Number.isInteger(topic.version) && topic.version >= 1).toBe(true);
    });

    it('is a legal Kafka topic name, and so is its dead-letter topic', () => {
      expect(topic.name).toMatch(KAFKA_TOPIC_NAME);
      expect(dlqTopicOf(topic.name)).toMatch(KAFKA_TOPIC_NAME);
    });

    it('has a description, at least one producer, only known roles and positive partitions', () => {
      expect(topic.description.trim().length).toBeGreaterThan(10);
      expect(topic.producers.length).toBeGreaterThan(0);
      for (const role of [...topic.producers, ...topic.consumers]) expect(ROLES).toContain(role);
      expect(new Set(topic.producers).size).toBe(topic.producers.length);
      expect(new Set(topic.consumers).size).toBe(topic.consumers.length);
      expect(Number.isInteger(topic.partitions) && topic.partitions >= 1).toBe(true);
    });

    it('has a valid sample payload (test factory)', () => {
      expect(SAMPLE_PAYLOADS).toHaveProperty([topic.name]);
      const parsed = topic.value.safeParse(samplePayload(topic.name));
      expect(parsed.success ? 'ok' : z.prettifyError(parsed.error)).toBe('ok');
    });

    it('takes its key from a required field of the value, and the key schema accepts it', () => {
      const payload = samplePayloadRecord(topic.name);
      expect(payload).toHaveProperty([topic.keyField]);
      expect(topic.key.safeParse(payload[topic.keyField]).success).toBe(true);

      // The key field is required by the value schema (zod) ...
      delete payload[topic.keyField];
      const parsed = topic.value.safeParse(payload);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.some((i) => i.path[0] === topic.keyField)).toBe(true);

      // ... and by the published JSON Schema (every variant of a union).
      const schema = jsonSchemas()[payloadSchemaFileName(topic)] as Record<string, unknown>;
      const variants = (schema['oneOf'] ?? schema['anyOf'] ?? [schema]) as Record<string, unknown>[];
      for (const v of variants) {
        expect(v['properties']).toHaveProperty([topic.keyField]);
        expect(v['required']).toContain(topic.keyField);
      }
    });

    it('rejects an empty key', () => {
      expect(topic.key.safeParse('').success).toBe(false);
    });
  });

  it('has unique names, unique (baseName, version) pairs and no names that collide in Kafka metrics', () => {
    const names = TOPIC_REGISTRY.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    const pairs = TOPIC_REGISTRY.map((t) => `${t.baseName}@${t.version}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    // Kafka warns that '.' and '_' collide in metric names.
    const all = names.flatMap((n) => [n, dlqTopicOf(n)]).map((n) => n.replace(/\./g, '_'));
    expect(new Set(all).size).toBe(all.length);
  });

  it('finds topics by name and lists known versions', () => {
    expect(findTopic(Topics.runPublished.name)).toBe(Topics.runPublished);
    expect(findTopic('aoc.run.published.v9')).toBeUndefined();
    expect(findTopic('run.published')).toBeUndefined();
    expect(knownVersionsOf('run.published')).toEqual([1]);
    expect(knownVersionsOf('no.such-topic')).toEqual([]);
  });
});
