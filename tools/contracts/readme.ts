// Contract generator: the human-readable topic reference (docs/topics/README.md).
import { HEADER_SCHEMA, MAX_MESSAGE_BYTES, TOPIC_REGISTRY, brokerAclMatrix, dlqTopicOf, payloadSchemaFileName, roleGrants, type TopicDefinition } from '@aoc/contracts';
import { ACL_MATRIX_FILE, ASYNCAPI_FILE, DEAD_LETTER_SCHEMA_FILE, ENVELOPE_SCHEMA_FILE } from './paths';

export type Schema = Record<string, unknown>;

export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ').trim();
}

export function code(text: string): string {
  return `\`${text}\``;
}

export function list(items: readonly string[], empty = '—'): string {
  return items.length > 0 ? items.join(', ') : empty;
}

export function asSchema(value: unknown): Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Schema) : {};
}

export function bounds(s: Schema): string {
  const parts: string[] = [];
  const num = (k: string) => (typeof s[k] === 'number' && Math.abs(s[k] as number) < Number.MAX_SAFE_INTEGER ? (s[k] as number) : undefined);
  if (num('minLength') !== undefined && num('maxLength') !== undefined) parts.push(`${num('minLength')}..${num('maxLength')} chars`);
  else if (num('maxLength') !== undefined) parts.push(`<= ${num('maxLength')} chars`);
  else if (num('minLength') !== undefined) parts.push(`>= ${num('minLength')} chars`);
  if (num('maxItems') !== undefined) parts.push(`<= ${num('maxItems')} items`);
  if (num('minimum') !== undefined) parts.push(`>= ${num('minimum')}`);
  if (num('exclusiveMinimum') !== undefined) parts.push(`> ${num('exclusiveMinimum')}`);
  if (num('maximum') !== undefined) parts.push(`<= ${num('maximum')}`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** One-line type of a JSON Schema fragment, for the field tables. */
export function typeSummary(value: unknown): string {
  const s = asSchema(value);
  if ('const' in s) return JSON.stringify(s['const']);
  if (Array.isArray(s['enum'])) return (s['enum'] as unknown[]).map((v) => JSON.stringify(v)).join(' | ');
  for (const k of ['anyOf', 'oneOf']) {
    if (Array.isArray(s[k])) return (s[k] as unknown[]).map(typeSummary).join(' | ');
  }
  const type = s['type'];
  if (Array.isArray(type)) return type.map((t) => typeSummary({ ...s, type: t })).join(' | ');
  if (type === 'array') return `array of ${typeSummary(s['items'])}${bounds(s)}`;
  if (type === 'object') {
    if (s['properties']) return 'object';
    if (s['additionalProperties']) return `map of ${typeSummary(s['additionalProperties'])}`;
    return 'object';
  }
  if (type === 'string') {
    const pattern = typeof s['pattern'] === 'string' ? (s['pattern'] as string) : undefined;
    const format =
      typeof s['format'] === 'string' ? (s['format'] as string) : pattern && pattern.length <= 48 && !pattern.includes('`') ? `pattern \`${pattern}\`` : pattern ? 'pattern' : undefined;
    return `string${format ? ` (${format})` : ''}${bounds(s)}`;
  }
  if (typeof type === 'string') return `${type}${bounds(s)}`;
  // A schema with no type constraint accepts any JSON value.
  return 'JSON value';
}

/** Object schema inside a property (directly, as array items, or as the non-null branch of a nullable). */
export function nestedObject(value: unknown): { schema: Schema; suffix: string } | null {
  const s = asSchema(value);
  if (s['type'] === 'object' && s['properties']) return { schema: s, suffix: '' };
  if (s['type'] === 'array') {
    const inner = nestedObject(s['items']);
    return inner ? { schema: inner.schema, suffix: `[]${inner.suffix}` } : null;
  }
  if (Array.isArray(s['anyOf'])) {
    const branches = (s['anyOf'] as unknown[]).filter((b) => asSchema(b)['type'] !== 'null');
    if (branches.length === 1) return nestedObject(branches[0]);
  }
  return null;
}

export function fieldRows(schema: Schema, prefix: string, depth: number, rows: string[]): void {
  const props = asSchema(schema['properties']);
  const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
  for (const [name, prop] of Object.entries(props)) {
    const p = asSchema(prop);
    const description = typeof p['description'] === 'string' ? p['description'] : '';
    const field = `${prefix}${name}`;
    rows.push(`| ${code(field)} | ${cell(typeSummary(p))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(description)} |`);
    const nested = nestedObject(p);
    if (nested && depth < 4) fieldRows(nested.schema, `${field}${nested.suffix}.`, depth + 1, rows);
  }
}

/** Field table, nested object fields flattened as `parent.child` and `list[].child`. */
export function fieldTable(schema: Schema): string[] {
  const rows = ['| Field | Type | Required | Description |', '| --- | --- | --- | --- |'];
  fieldRows(schema, '', 0, rows);
  return rows;
}

/** Object schemas that make up a payload: the schema itself, or each variant of a top-level union. */
export function variantsOf(schema: Schema): { label: string | null; schema: Schema }[] {
  const union = Array.isArray(schema['oneOf']) ? schema['oneOf'] : Array.isArray(schema['anyOf']) ? schema['anyOf'] : null;
  if (!union) return [{ label: null, schema }];
  return (union as unknown[]).map((v, i) => {
    const variant = asSchema(v);
    const props = asSchema(variant['properties']);
    const discriminator = Object.entries(props).find(([, p]) => 'const' in asSchema(p));
    const label = discriminator ? `${discriminator[0]} = ${JSON.stringify(asSchema(discriminator[1])['const'])}` : `variant ${i + 1}`;
    return { label, schema: variant };
  });
}

export function isStrict(schema: Schema): boolean {
  return variantsOf(schema).every((v) => v.schema['additionalProperties'] === false);
}

export function anchorOf(topicName: string): string {
  // GitHub heading anchors: lower-case, punctuation other than '-' and '_' dropped, spaces -> '-'.
  return topicName.toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-');
}

export function renderReadme(version: string, schemas: Record<string, Schema>, asyncApi: Record<string, unknown>): string {
  const out: string[] = [];
  const push = (...lines: string[]) => out.push(...lines);
  const grants = roleGrants();
  const matrix = brokerAclMatrix();
  const envelopeSchema = schemas[ENVELOPE_SCHEMA_FILE];
  const deadLetterSchema = schemas[DEAD_LETTER_SCHEMA_FILE];
  if (!envelopeSchema || !deadLetterSchema) throw new Error(`jsonSchemas() must contain ${ENVELOPE_SCHEMA_FILE} and ${DEAD_LETTER_SCHEMA_FILE}`);

  push(
    '<!-- Generated by tools/generate-contracts.ts from libs/contracts. Do not edit by hand: run `npm run contracts:generate`. -->',
    '',
    '# Topic reference',
    '',
    `Versioned Kafka topics of Auto-oncall, contracts version ${code(version)}, generated from ${code('@aoc/contracts')} (libs/contracts).`,
    '',
    `- Machine-readable: [${ASYNCAPI_FILE}](${ASYNCAPI_FILE}) (AsyncAPI 3.0: channels, messages, send/receive operations per role)`,
    '  and one JSON Schema (draft 2020-12) per payload, linked in the table below.',
    `- Broker ACLs are provisioned from the same matrix: [${ACL_MATRIX_FILE}](../../${ACL_MATRIX_FILE}).`,
    '- Writing an external consumer: see [docs/consumers](../consumers/).',
    '',
    '## Topics',
    '',
    '| Topic | Key field | Producers | Consumers | Partitions | Description | Payload schema |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const t of TOPIC_REGISTRY) {
    const file = payloadSchemaFileName(t);
    push(
      `| [${code(t.name)}](#${anchorOf(t.name)}) | ${code(t.keyField)} | ${list(t.producers)} | ${list(t.consumers, '— (external only)')} | ${t.partitions} | ${cell(t.description)} | [${file}](${file}) |`,
    );
  }
  push(
    '',
    'Producers and consumers are roles. Each role is one service, one Kafka principal (`aoc-<role>`) and consumer groups',
    'prefixed `aoc.<role>`; a role may only publish and subscribe to what the matrix below grants it, both in process and on',
    'the broker.',
    '',
    '## Naming and versioning',
    '',
    '- Topic names are `aoc.<base name>.v<version>`; the version is part of the name and equals `schema.version` in the envelope.',
    '- A breaking change means a new topic (`.v2`) next to the old one, never a changed `.v1`.',
    '- The Kafka record key is the value of the payload field named in **Key field**; ordering is guaranteed per key only.',
    `- Strict payloads (\`additionalProperties: false\`) reject unknown fields: ${list(
      TOPIC_REGISTRY.filter((t) => isStrict(schemas[payloadSchemaFileName(t)] ?? {})).map((t) => code(t.name)),
      'none',
    )}. Consumers of the other payloads should ignore fields they do not know.`,
    '- JSON Schema cannot express every rule of the zod schemas (for example `window.from` before `window.to`, or unique',
    '  query ids in a batch); producers validate with the zod schemas, which are authoritative.',
    '',
    '## Envelope',
    '',
    'Every message value is one UTF-8 JSON object: the envelope metadata and the payload side by side.',
    '',
    '```json',
    '{',
    '  "messageId": "5b1c9a5e-7c1f-4f7e-9c59-2f7d0c1e8a41",',
    '  "idempotencyKey": "SUP-1042:run-01:published",',
    '  "schema": { "topic": "aoc.run.published.v1", "version": 1 },',
    '  "runId": "run-01",',
    '  "ticketKey": "SUP-1042",',
    '  "producedAt": "2025-01-01T10:40:00.000Z",',
    '  "producer": "router",',
    '  "payload": { "...": "the topic payload" }',
    '}',
    '```',
    '',
    `Envelope metadata schema: [${ENVELOPE_SCHEMA_FILE}](${ENVELOPE_SCHEMA_FILE}) (plus the required ${code('payload')} field,`,
    `described by the topic's payload schema). A serialised message is at most ${MAX_MESSAGE_BYTES} bytes`,
    `(${MAX_MESSAGE_BYTES / 1024} KiB). Consumers de-duplicate on ${code('messageId')} (delivery is at-least-once).`,
    '',
    ...fieldTable(envelopeSchema),
    `| ${code('payload')} | object | yes | The topic payload, see the payload schema of the topic |`,
    '',
    '### Headers',
    '',
    '| Header | Description |',
    '| --- | --- |',
  );
  for (const [name, h] of Object.entries(messageHeaders(asyncApi))) {
    const description = typeof asSchema(h)['description'] === 'string' ? (asSchema(h)['description'] as string) : '';
    push(`| ${code(name)} | ${cell(description)} |`);
  }
  push(
    '',
    `Trace context follows [W3C Trace Context](https://www.w3.org/TR/trace-context/); one trace spans a run across every service. ${code(HEADER_SCHEMA)} lets a`,
    'consumer route or reject a message before parsing its value.',
    '',
    '## Dead letters',
    '',
    `Every topic ${code('<topic>')} has a dead-letter topic ${code('<topic>.dlq')} (for example ${code(dlqTopicOf(TOPIC_REGISTRY[0]?.name ?? 'aoc.example.v1'))}).`,
    'A consumer that cannot process a message (invalid envelope or payload, unknown schema version, oversize, handler failure',
    `after its retries) writes it to the DLQ of the topic it consumed, with the reason naming the offending field. Schema of`,
    `DLQ values: [${DEAD_LETTER_SCHEMA_FILE}](${DEAD_LETTER_SCHEMA_FILE}).`,
    '',
    '| Dead-letter topic | Partitions | Written by |',
    '| --- | --- | --- |',
  );
  for (const t of TOPIC_REGISTRY) {
    const dlq = dlqTopicOf(t.name);
    const partitions = matrix.topics.find((m) => m.name === dlq)?.partitions ?? 0;
    const writers = grants.filter((g) => g.deadLetter.includes(dlq)).map((g) => g.role);
    push(`| ${code(dlq)} | ${partitions} | ${list(writers)} |`);
  }
  push('', ...fieldTable(deadLetterSchema), '', '## Roles and grants', '');
  push(
    '| Role | Kafka principal | Consumer group prefix | Publishes | Subscribes | Dead letters |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  for (const g of grants) {
    const p = matrix.principals.find((x) => x.role === g.role);
    push(
      `| ${g.role} | ${code(`${matrix.brokerPrincipalPrefix}${p?.username ?? '?'}`)} | ${code(p?.consumerGroupPrefix ?? '?')} | ${list(
        g.publish.map(code),
      )} | ${list(g.subscribe.map(code))} | ${list(g.deadLetter.map(code))} |`,
    );
  }
  push(
    '',
    'On the broker each principal gets WRITE on what it publishes and on its dead-letter topics, READ on what it subscribes',
    'to, and READ on its prefixed consumer groups; everything else is denied.',
    '',
    '## Payloads',
  );
  for (const t of TOPIC_REGISTRY) renderTopic(t, schemas, push);
  return `${out.join('\n')}\n`;
}

export function messageHeaders(asyncApi: Record<string, unknown>): Record<string, unknown> {
  const messages = asSchema(asSchema(asyncApi['components'])['messages']);
  const first = Object.values(messages)[0];
  return asSchema(asSchema(asSchema(first)['headers'])['properties']);
}

export function renderTopic(t: TopicDefinition, schemas: Record<string, Schema>, push: (...lines: string[]) => void): void {
  const file = payloadSchemaFileName(t);
  const schema = schemas[file];
  if (!schema) throw new Error(`jsonSchemas() has no ${file} for topic ${t.name}`);
  push(
    '',
    `### ${t.name}`,
    '',
    t.description,
    '',
    `- Key field: ${code(t.keyField)}`,
    `- Producers: ${list(t.producers)}; consumers: ${list(t.consumers, 'none inside Auto-oncall (external only)')}`,
    `- Partitions: ${t.partitions}; dead letters: ${code(dlqTopicOf(t.name))}`,
    `- Schema: [${file}](${file})${isStrict(schema) ? ' (strict: unknown fields are rejected)' : ''}`,
  );
  for (const v of variantsOf(schema)) {
    push('');
    if (v.label) push(`Variant ${code(v.label)}:`, '');
    push(...fieldTable(v.schema));
  }
}
