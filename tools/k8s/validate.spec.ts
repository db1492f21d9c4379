// tools/k8s/validate.ts catches what it should: schema violations (Kubernetes v1.33.0 from
// kubernetes-models, KEDA v2.10.1 CRDs), kafka trigger metadata outside the fields in use, unknown
// fields, and kinds without a schema.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { K8sObject } from './kustomize';
import { SCHEMA_SOURCES, kafkaTriggerErrors, modelModuleOf, schemaErrors, unknownFieldErrors, validateObjects } from './validate';

const ROOT = path.resolve(__dirname, '..', '..');

const deployment = (): K8sObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', namespace: 'ns' },
  spec: {
    selector: { matchLabels: { app: 'd' } },
    template: {
      metadata: { labels: { app: 'd' } },
      spec: { containers: [{ name: 'c', image: 'i:1', ports: [{ containerPort: 8080 }], resources: { limits: { memory: '512Mi', cpu: '1' } } }] },
    },
  },
});

const scaledObject = (metadata: Record<string, string>): K8sObject => ({
  apiVersion: 'keda.sh/v1alpha1',
  kind: 'ScaledObject',
  metadata: { name: 's' },
  spec: { scaleTargetRef: { name: 'd' }, triggers: [{ type: 'kafka', metadata, authenticationRef: { name: 'a' } }] },
});

const KAFKA = { bootstrapServersFromEnv: 'KAFKA_BROKERS', consumerGroup: 'g', topic: 't', lagThreshold: '20', offsetResetPolicy: 'earliest' };

test('the schema packages are the stated versions', () => {
  for (const source of Object.values(SCHEMA_SOURCES)) {
    const manifest = JSON.parse(readFileSync(require.resolve(`${source.package}/package.json`, { paths: [ROOT] }), 'utf8')) as { version: string };
    expect(manifest.version).toBe(source.version);
  }
  const keda = JSON.parse(readFileSync(require.resolve('@kubernetes-models/keda/package.json', { paths: [ROOT] }), 'utf8')) as { 'crd-generate'?: { input?: string[] } };
  expect(JSON.stringify(keda['crd-generate'])).toContain('keda-2.10.1.yaml');
});

test('a valid Deployment and ScaledObject pass', () => {
  expect(validateObjects([deployment(), scaledObject(KAFKA)])).toEqual([]);
}, 60_000);

/** The first container of a Deployment-like object's pod template, as plain JSON. */
function firstContainer(d: K8sObject): Record<string, unknown> {
  const spec = d['spec'] as { template: { spec: { containers: Record<string, unknown>[] } } };
  return spec.template.spec.containers[0];
}

test.each([
  ['a port that is not a number', (d: K8sObject) => (firstContainer(d)['ports'] = [{ containerPort: 'http' }]), /containerPort must be integer/],
  ['a quantity that is no quantity', (d: K8sObject) => (firstContainer(d)['resources'] = { limits: { memory: '1Zi' } }), /memory must match format "quantity"/],
  ['no selector', (d: K8sObject) => delete (d['spec'] as Record<string, unknown>)['selector'], /spec must have required property selector/],
])('schema: %s', (_what, spoil, message) => {
  const d = deployment();
  spoil(d);
  expect(schemaErrors(d).join('\n')).toMatch(message);
});

test('schema: a KEDA trigger without its type', () => {
  const s = scaledObject(KAFKA);
  delete (s['spec'] as { triggers: Record<string, unknown>[] }).triggers[0]['type'];
  expect(schemaErrors(s).join('\n')).toMatch(/triggers\/0 must have required property type/);
});

test.each([
  ['no consumer group', { ...KAFKA, consumerGroup: undefined }, /consumerGroup/],
  ['both bootstrap settings', { ...KAFKA, bootstrapServers: 'k:9092' }, /exactly one of bootstrapServers and bootstrapServersFromEnv/],
  ['a misspelt field', { ...KAFKA, lagTreshold: '5' }, /lagTreshold/],
  ['a threshold that is no number', { ...KAFKA, lagThreshold: 'ten' }, /lagThreshold/],
  ['an unknown reset policy', { ...KAFKA, offsetResetPolicy: 'oldest' }, /offsetResetPolicy/],
])('kafka trigger metadata: %s', (_what, metadata, message) => {
  const clean = Object.fromEntries(Object.entries(metadata).filter(([, v]) => v !== undefined)) as Record<string, string>;
  expect(kafkaTriggerErrors(scaledObject(clean)).join('\n')).toMatch(message);
});

test('unknown fields, which the OpenAPI schemas let through, fail the type check', () => {
  const d = deployment();
  const container = firstContainer(d);
  container['securityContext'] = { readOnlyRootFileSystem: true };
  const s = scaledObject(KAFKA);
  (s['spec'] as Record<string, unknown>)['maxReplicas'] = 3;
  expect(schemaErrors(d)).toEqual([]);
  const errors = unknownFieldErrors([d, s]);
  expect(errors).toHaveLength(2);
  expect(errors[0]).toMatch(/^Deployment ns\/d: .*'"readOnlyRootFileSystem"' does not exist/);
  expect(errors[1]).toMatch(/^ScaledObject s: .*'"maxReplicas"' does not exist/);
}, 60_000);

test('a kind without a schema is an error, not a pass', () => {
  expect(modelModuleOf('example.com/v1', 'Widget')).toBeNull();
  expect(modelModuleOf('apps/v1', 'Deployment')).toBe('kubernetes-models/apps/v1/Deployment');
  expect(modelModuleOf('v1', 'ConfigMap')).toBe('kubernetes-models/v1/ConfigMap');
  expect(validateObjects([{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }])).toEqual(['Widget w: no schema for example.com/v1 Widget', 'Widget w: no schema for example.com/v1 Widget']);
}, 60_000);
