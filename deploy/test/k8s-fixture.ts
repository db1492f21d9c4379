// Shared by the deploy/k8s specs (k8s.spec.ts and its k8s-*.spec.ts siblings): the overlays
// rendered with the kustomize subset of tools/k8s, what the code says about each role
// (./role-facts), and the readers the checks use on the rendered objects.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describeConfig } from '@aoc/config';
import { ROLES, type Role } from '@aoc/contracts';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { z } from 'zod';
import { renderKustomization, type K8sObject } from '../../tools/k8s/kustomize';
import { factsOf, type Env, type RoleFacts } from './role-facts';

export const ROOT = path.resolve(__dirname, '..', '..');
const K8S = path.join(ROOT, 'deploy', 'k8s');
export const OVERLAYS = ['dev', 'production'] as const;
export type Overlay = (typeof OVERLAYS)[number];
export const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

// ---------------------------------------------------------------------------------------------
// Reading the rendered objects
// ---------------------------------------------------------------------------------------------

export type Labels = Record<string, string>;
export const matches = (selector: Labels | undefined, labels: Labels | undefined) => Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);

export class Rendered {
  constructor(
    readonly overlay: Overlay,
    readonly objects: K8sObject[],
  ) {}
  all<T>(kind: string): (T & K8sObject)[] {
    return this.objects.filter((o) => o.kind === kind) as (T & K8sObject)[];
  }
  get<T>(kind: string, name: string): T & K8sObject {
    const found = this.all<T>(kind).filter((o) => o.metadata.name === name);
    if (found.length !== 1) throw new Error(`${this.overlay}: ${found.length} ${kind} named ${name}`);
    return found[0];
  }
  maybe<T>(kind: string, name: string): (T & K8sObject) | undefined {
    return this.all<T>(kind).find((o) => o.metadata.name === name);
  }
  get namespace(): string {
    const namespaces = this.all('Namespace');
    if (namespaces.length !== 1) throw new Error(`${this.overlay}: ${namespaces.length} Namespaces`);
    return namespaces[0].metadata.name;
  }
  configValue(name: string, key: string): string | undefined {
    return this.maybe<IConfigMap>('ConfigMap', name)?.data?.[key];
  }
  secretValue(name: string, key: string): string | undefined {
    const secret = this.maybe<ISecret>('Secret', name);
    if (!secret) return undefined;
    if (secret.stringData?.[key] !== undefined) return secret.stringData[key];
    const data = secret.data?.[key];
    return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
  }
}

export interface EnvEntry {
  key: string;
  /** Where the value comes from. */
  source: { configMap: string } | { secret: string; secretKey: string; optional: boolean } | { value: string };
}

/** The container's environment as Kubernetes assembles it (envFrom ConfigMaps, then env), every definition kept. */
export function envEntries(r: Rendered, container: IContainer): EnvEntry[] {
  const out: EnvEntry[] = [];
  for (const from of container.envFrom ?? []) {
    if (!from.configMapRef || from.prefix || from.secretRef) throw new Error(`${container.name}: only envFrom configMapRef without prefix is checked here`);
    const cm = r.get<IConfigMap>('ConfigMap', from.configMapRef.name as string);
    for (const key of Object.keys(cm.data ?? {})) out.push({ key, source: { configMap: cm.metadata.name } });
  }
  for (const e of container.env ?? []) {
    if (e.value !== undefined) out.push({ key: e.name, source: { value: e.value } });
    else if (e.valueFrom?.secretKeyRef) out.push({ key: e.name, source: { secret: e.valueFrom.secretKeyRef.name as string, secretKey: e.valueFrom.secretKeyRef.key, optional: e.valueFrom.secretKeyRef.optional === true } });
    else if (e.valueFrom?.configMapKeyRef) out.push({ key: e.name, source: { configMap: e.valueFrom.configMapKeyRef.name as string } });
    else throw new Error(`${container.name}: env ${e.name} has a source this spec does not read`);
  }
  return out;
}

/**
 * The environment the role gets: ConfigMap values, the overlay's Secret values (dev) or, where an
 * overlay has no Secrets (production), a stand-in for each required secret.
 */
export function envValues(r: Rendered, container: IContainer): Env {
  const env: Env = {};
  const standIn: Env = { DATABASE_URL: 'postgres://aoc@postgres.postgres.svc:5432/aoc', KAFKA_SASL_PASSWORD: 'stand-in' };
  for (const from of container.envFrom ?? []) Object.assign(env, r.get<IConfigMap>('ConfigMap', from.configMapRef?.name as string).data ?? {});
  for (const e of container.env ?? []) {
    let value: string | undefined = e.value;
    const s = e.valueFrom?.secretKeyRef;
    const c = e.valueFrom?.configMapKeyRef;
    if (s) value = r.all('Secret').length > 0 ? r.secretValue(s.name as string, s.key) : s.optional ? undefined : standIn[e.name];
    if (c) value = r.configValue(c.name as string, c.key);
    if (value !== undefined) env[e.name] = value;
  }
  return env;
}

export const podSpecOf = (o: IDeployment | IJob): IPodSpec => o.spec?.template.spec as IPodSpec;
export const podLabelsOf = (o: IDeployment | IJob): Labels => (o.spec?.template.metadata?.labels ?? {}) as Labels;

/** A port by number or by the name of one of the container's ports. */
export function portNumber(container: IContainer, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

export function quantity(value: string | number | undefined): number {
  if (typeof value === 'number') return value;
  const m = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti|k|M|G)?$/.exec(value ?? '');
  if (!m) throw new Error(`not a quantity this spec reads: ${value}`);
  const unit = { m: 1e-3, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, k: 1e3, M: 1e6, G: 1e9 }[m[2] as 'm'] ?? 1;
  return Number(m[1]) * unit;
}

/** The NetworkPolicies that select a pod, by their podSelector (matchLabels; an empty one selects all). */
export function policiesFor(r: Rendered, labels: Labels): INetworkPolicy[] {
  return r.all<INetworkPolicy>('NetworkPolicy').filter((p) => {
    if (p.spec?.podSelector.matchExpressions?.length) throw new Error(`${p.metadata?.name}: matchExpressions are not read here`);
    return matches(p.spec?.podSelector.matchLabels as Labels, labels);
  });
}

export const egressPorts = (policies: INetworkPolicy[]) => new Set(policies.flatMap((p) => (p.spec?.egress ?? []).flatMap((rule) => (rule.ports ?? []).map((port) => `${port.protocol ?? 'TCP'}/${String(port.port)}`))));

// ---------------------------------------------------------------------------------------------
// What the code says
// ---------------------------------------------------------------------------------------------

export const facts = new Map<Role, RoleFacts>();
export const rendered = new Map<Overlay, Rendered>();

/**
 * Role facts of every role and both overlays rendered, in each spec's beforeAll (a spec file
 * runs in its own module registry, so each loads them once).
 */
export function loadCluster(): void {
  beforeAll(async () => {
    for (const role of ROLES) facts.set(role, await factsOf(role));
    for (const overlay of OVERLAYS) rendered.set(overlay, new Rendered(overlay, renderKustomization(path.join(K8S, 'overlays', overlay))));
  }, 120_000);
}

/**
 * Keys that the schemas the role loaded mark secret(). Needs the spec to record them: a
 * jest.mock of @aoc/config whose loadConfig adds its schema to globalThis.aocLoadedSchemas.
 */
export function secretKeys(): Set<string> {
  const out = new Set<string>();
  for (const schema of (globalThis as unknown as { aocLoadedSchemas: Set<z.ZodObject> }).aocLoadedSchemas) {
    const keys = Object.keys(schema.shape);
    const masked = describeConfig(schema, Object.fromEntries(keys.map((k) => [k, 'value'])) as never);
    for (const [key, value] of Object.entries(masked)) if (value === '***') out.add(key);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The nesting every spec shares: overlays/<overlay> (the whole overlay), then <role>
// ---------------------------------------------------------------------------------------------

/** What the per-role checks read of one role in one overlay (read lazily: the objects exist once beforeAll ran). */
export interface RoleScope {
  overlay: Overlay;
  role: Role;
  /** `aoc-<role>`: the Deployment's, Service's, budget's and ScaledObject's name. */
  name: string;
  r(): Rendered;
  f(): RoleFacts;
  deployment(): IDeployment & K8sObject;
  job(): IJob & K8sObject;
  /** The Deployment's only container. */
  container(): IContainer;
  env(): Env;
  /** The role's port: its HTTP API's, else its management port's (the ServiceDefinition defaults). */
  definitionPort(): number;
}

function roleScope(overlay: Overlay, role: Role): RoleScope {
  const name = `aoc-${role}`;
  const r = () => rendered.get(overlay) as Rendered;
  const f = () => facts.get(role) as RoleFacts;
  const deployment = () => r().get<IDeployment>('Deployment', name);
  const container = () => {
    const containers = podSpecOf(deployment()).containers;
    expect(containers).toHaveLength(1);
    return containers[0];
  };
  return {
    overlay,
    role,
    name,
    r,
    f,
    deployment,
    job: () => r().get<IJob>('Job', `${name}-migrate`),
    container,
    env: () => envValues(r(), container()),
    definitionPort: () => (f().definition.http?.defaultPort ?? f().definition.management?.defaultPort) as number,
  };
}

/**
 * `describe.each` over the overlays (`overlays/<overlay>`) and, inside, over every role
 * (`<role>`): the test names the checks have had since they lived in one file.
 */
export function describeOverlays(checks: { overlay?: (overlay: Overlay, r: () => Rendered) => void; role?: (s: RoleScope) => void }): void {
  describe.each(OVERLAYS)('overlays/%s', (overlay) => {
    if (checks.overlay) describe('the whole overlay', () => checks.overlay?.(overlay, () => rendered.get(overlay) as Rendered));
    const perRole = checks.role;
    if (perRole) describe.each([...ROLES])('%s', (role) => perRole(roleScope(overlay, role)));
  });
}
