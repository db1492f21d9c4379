/**
 * Checks rendered objects against published schemas:
 * - Kubernetes objects against the OpenAPI schemas of Kubernetes v1.33.0, as compiled validators
 *   in the npm package kubernetes-models@4.5.1 (MIT; its changelog: "Update schema version to
 *   v1.33.0");
 * - KEDA ScaledObject and TriggerAuthentication against the CRD schemas of KEDA v2.10.1, from
 *   @kubernetes-models/keda@0.4.2 (MIT; generated from keda-2.10.1.yaml, see its package.json);
 * - the metadata of a KEDA `kafka` trigger, which the CRD types as any string map, against
 *   KAFKA_TRIGGER_METADATA: a zod schema of the fields deploy/k8s uses, written here from KEDA's
 *   Kafka scaler (pkg/scalers/kafka_scaler.go), not a published schema;
 * - unknown fields: the OpenAPI schemas allow any property, so a misspelt field would pass them.
 *   The same packages' TypeScript declarations list every field: each object is type-checked as an
 *   object literal of its kind, which fails on a property the type does not have.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as ts from 'typescript';
import { z } from 'zod';
import type { K8sObject } from './kustomize';

export const SCHEMA_SOURCES = {
  kubernetes: { package: 'kubernetes-models', version: '4.5.1', schemaVersion: 'Kubernetes v1.33.0' },
  keda: { package: '@kubernetes-models/keda', version: '0.4.2', schemaVersion: 'KEDA v2.10.1 CRDs' },
} as const;

const ROOT = path.resolve(__dirname, '..', '..');
/** Loads the model packages from the repository's node_modules. */
const load = createRequire(path.join(ROOT, 'package.json'));

/** The module of the model of an apiVersion and kind, or null when neither package has it. */
export function modelModuleOf(apiVersion: string, kind: string): string | null {
  if (!/^[A-Za-z0-9]+$/.test(kind)) return null;
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash >= 0 ? [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)] : ['', apiVersion];
  if (!/^[a-z0-9]+$/.test(version)) return null;
  if (group === 'keda.sh') return `@kubernetes-models/keda/keda.sh/${version}/${kind}`;
  if (group.includes('.') && !group.endsWith('.k8s.io')) return null;
  const module = group === '' ? `kubernetes-models/${version}/${kind}` : `kubernetes-models/${group}/${version}/${kind}`;
  try {
    load.resolve(module);
    return module;
  } catch {
    return null;
  }
}

interface Model {
  validate(): void;
}
type ModelClass = new (data: unknown) => Model;

const describe = (o: K8sObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/** Errors of the object against its kind's schema (kubernetes-models / KEDA CRD). */
export function schemaErrors(object: K8sObject): string[] {
  const module = modelModuleOf(object.apiVersion, object.kind);
  if (module === null) return [`${describe(object)}: no schema for ${object.apiVersion} ${object.kind}`];
  const exported = load(module) as Record<string, ModelClass>;
  const Model = exported[object.kind];
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    const errors = (error as { errors?: { instancePath: string; message?: string }[] }).errors;
    if (!errors) throw error;
    return errors.map((e) => `${describe(object)}: ${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  }
}

const numeric = z.string().regex(/^\d+$/, 'a whole number, as a string');
const bool = z.enum(['true', 'false']);

/** The fields of a KEDA kafka trigger's metadata that deploy/k8s uses (not a published schema). */
export const KAFKA_TRIGGER_METADATA = z
  .object({
    bootstrapServers: z.string().min(1).optional(),
    bootstrapServersFromEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/).optional(),
    consumerGroup: z.string().min(1),
    topic: z.string().min(1),
    lagThreshold: numeric,
    activationLagThreshold: numeric.optional(),
    offsetResetPolicy: z.enum(['earliest', 'latest']),
    allowIdleConsumers: bool.optional(),
    scaleToZeroOnInvalidOffset: bool.optional(),
    version: z.string().regex(/^\d+\.\d+\.\d+$/).optional(),
  })
  .strict()
  .refine((m) => (m.bootstrapServers === undefined) !== (m.bootstrapServersFromEnv === undefined), { message: 'give exactly one of bootstrapServers and bootstrapServersFromEnv' });

/** The TriggerAuthentication parameters of the Kafka scaler, and the values `sasl` and `tls` take. */
export const KAFKA_AUTH_PARAMETERS = new Set(['sasl', 'username', 'password', 'tls', 'ca', 'cert', 'key']);

/** Errors of a ScaledObject's kafka triggers' metadata. */
export function kafkaTriggerErrors(object: K8sObject): string[] {
  if (object.kind !== 'ScaledObject') return [];
  const triggers = ((object['spec'] as { triggers?: { type?: string; metadata?: unknown }[] } | undefined)?.triggers ?? []).filter((t) => t.type === 'kafka');
  return triggers.flatMap((t, i) => {
    const parsed = KAFKA_TRIGGER_METADATA.safeParse(t.metadata);
    return parsed.success ? [] : parsed.error.issues.map((issue) => `${describe(object)}: kafka trigger ${i} metadata ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  });
}

/** Properties no field of the kind declares (and other type errors), by object, from the models' TypeScript declarations. */
export function unknownFieldErrors(objects: readonly K8sObject[]): string[] {
  const file = path.join(ROOT, '__rendered_k8s_objects__.ts');
  const lines: string[] = [];
  const owners: (K8sObject | null)[] = [];
  const errors: string[] = [];
  objects.forEach((o, i) => {
    const module = modelModuleOf(o.apiVersion, o.kind);
    if (module === null) {
      errors.push(`${describe(o)}: no schema for ${o.apiVersion} ${o.kind}`);
      return;
    }
    lines.push(`import type { I${o.kind} as T${i} } from ${JSON.stringify(module)};`);
    owners.push(null);
    lines.push(`export const o${i}: T${i} = ${JSON.stringify(o)};`);
    owners.push(o);
  });
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ['lib.es2022.d.ts'],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, languageVersion, ...rest) => (path.resolve(name) === file ? ts.createSourceFile(name, source, languageVersion, true) : getSourceFile(name, languageVersion, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => path.resolve(name) === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  const sourceFile = program.getSourceFile(file) as ts.SourceFile;
  for (const d of [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)]) {
    const line = d.start === undefined ? -1 : sourceFile.getLineAndCharacterOfPosition(d.start).line;
    const owner = owners[line] ?? null;
    const where = owner ? describe(owner) : `line ${line + 1}`;
    // An inline type (a custom resource's) can run to thousands of characters: the start names the field.
    const text = ts.flattenDiagnosticMessageText(d.messageText, ' ').slice(0, 400);
    const at = d.start !== undefined && d.length !== undefined ? source.slice(d.start, d.start + d.length) : '';
    errors.push(`${where}: ${text}${at ? ` (at ${at.slice(0, 60)})` : ''}`);
  }
  return errors;
}

/** Every error of the rendered objects: schemas, kafka trigger metadata, unknown fields. */
export function validateObjects(objects: readonly K8sObject[]): string[] {
  return [...objects.flatMap((o) => [...schemaErrors(o), ...kafkaTriggerErrors(o)]), ...unknownFieldErrors(objects)];
}
