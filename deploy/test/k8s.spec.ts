// deploy/k8s checked against the code and the schemas. Each overlay is rendered with the kustomize
// subset of tools/k8s (no kustomize binary needed; tools/k8s/kustomize.spec.ts compares it with
// kubectl kustomize where kubectl is installed), then:
// - every object is valid against the Kubernetes v1.33.0 and KEDA v2.10.1 schemas, without an
//   unknown field (tools/k8s/validate.ts);
// - one Deployment, PodDisruptionBudget, ScaledObject, TriggerAuthentication, NetworkPolicy and
//   migration Job per role of libs/contracts ROLES, and a Service for each role with an HTTP API;
// - container, probe, Service and scrape ports are the role's ServiceDefinition port, and the role
//   listens there with the environment given;
// - the environment is exactly the keys the role reads at boot (deploy/test/role-facts.ts, the
//   logic of images.spec.ts), each from a ConfigMap or, for a key a schema marks secret(), a Secret;
//   the role accepts the values;
// - the Kafka principal is the role's in the ACL matrix, and KEDA uses the same credentials; the
//   KEDA triggers are the topics the role consumes in the matrix, on its consumer group;
// - the pods' security context, resources, writable volumes, disruption budgets and network
//   policies are what docs/operations.md (Kubernetes) says;
// - the migrate-only entry point of the Jobs migrates a role from a production build and exits.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describeConfig } from '@aoc/config';
import { ROLES, TOPIC_REGISTRY, brokerAclMatrix, consumerGroupPrefix, grantOf, type Role } from '@aoc/contracts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import type { ITriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { buildRole } from '../../tools/build/build-services';
import { renderKustomization, splitImage, type K8sObject } from '../../tools/k8s/kustomize';
import { KAFKA_AUTH_PARAMETERS, validateObjects } from '../../tools/k8s/validate';
import { rolePassword } from '../local/kafka-matrix';
import { HOST_SCHEMAS, factsOf, parseAtBoot, type Env, type RoleFacts } from './role-facts';

// Every schema a role hands to loadConfig while it parses its configuration is recorded: the keys
// those schemas mark secret() must come from Secrets.
jest.mock('@aoc/config', () => {
  const actual = jest.requireActual<typeof import('@aoc/config')>('@aoc/config');
  const store = globalThis as unknown as { aocLoadedSchemas?: Set<unknown> };
  store.aocLoadedSchemas ??= new Set();
  const seen = store.aocLoadedSchemas;
  return {
    ...actual,
    loadConfig: (...args: Parameters<typeof actual.loadConfig>) => {
      seen.add(args[1]);
      return actual.loadConfig(...args);
    },
  };
});

const ROOT = path.resolve(__dirname, '..', '..');
const K8S = path.join(ROOT, 'deploy', 'k8s');
const OVERLAYS = ['dev', 'production'] as const;
type Overlay = (typeof OVERLAYS)[number];
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Where a role writes to its filesystem, the only writable mounts its pod may have. */
const WRITABLE: Partial<Record<Role, string[]>> = {
  // The Wetech dashboard package launches Chromium through Playwright, which creates its profile and
  // artifact folders under os.tmpdir(). Every other role writes nothing (docs/operations.md).
  'provider-executor': ['/tmp'],
};
/** What a role needs in a cluster whatever its code defaults to (a laptop's). */
const CLUSTER_SETTINGS: Env = { AOC_TRANSPORT: 'kafka', AOC_BIND_HOST: '0.0.0.0' };
/** Secrets a role cannot run without in a cluster: referenced without `optional`. */
const CLUSTER_SECRETS = ['DATABASE_URL', 'KAFKA_SASL_PASSWORD'];
/** Test-only settings (a stall for chaos tests, ...): never set in a cluster. */
const TEST_ONLY = /^AOC_TEST_/;
/** Names that are secret whatever their schema says. */
const SECRET_NAME = /PASSWORD|SECRET|TOKEN|API_KEY/;
/** The namespace label allowed to scrape /metrics (and to receive OTLP traces). */
const MONITORING = { 'auto-oncall/monitoring': 'true' };
const MIGRATE_SCRIPT = 'deploy/k8s/base/migrate/migrate-role.js';

// ---------------------------------------------------------------------------------------------
// Reading the rendered objects
// ---------------------------------------------------------------------------------------------

type Labels = Record<string, string>;
const matches = (selector: Labels | undefined, labels: Labels | undefined) => Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);

class Rendered {
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

interface EnvEntry {
  key: string;
  /** Where the value comes from. */
  source: { configMap: string } | { secret: string; secretKey: string; optional: boolean } | { value: string };
}

/** The container's environment as Kubernetes assembles it (envFrom ConfigMaps, then env), every definition kept. */
function envEntries(r: Rendered, container: IContainer): EnvEntry[] {
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
function envValues(r: Rendered, container: IContainer): Env {
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

const podSpecOf = (o: IDeployment | IJob): IPodSpec => o.spec?.template.spec as IPodSpec;
const podLabelsOf = (o: IDeployment | IJob): Labels => (o.spec?.template.metadata?.labels ?? {}) as Labels;

/** A port by number or by the name of one of the container's ports. */
function portNumber(container: IContainer, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

function quantity(value: string | number | undefined): number {
  if (typeof value === 'number') return value;
  const m = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti|k|M|G)?$/.exec(value ?? '');
  if (!m) throw new Error(`not a quantity this spec reads: ${value}`);
  const unit = { m: 1e-3, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, k: 1e3, M: 1e6, G: 1e9 }[m[2] as 'm'] ?? 1;
  return Number(m[1]) * unit;
}

/** The NetworkPolicies that select a pod, by their podSelector (matchLabels; an empty one selects all). */
function policiesFor(r: Rendered, labels: Labels): INetworkPolicy[] {
  return r.all<INetworkPolicy>('NetworkPolicy').filter((p) => {
    if (p.spec?.podSelector.matchExpressions?.length) throw new Error(`${p.metadata?.name}: matchExpressions are not read here`);
    return matches(p.spec?.podSelector.matchLabels as Labels, labels);
  });
}

const egressPorts = (policies: INetworkPolicy[]) => new Set(policies.flatMap((p) => (p.spec?.egress ?? []).flatMap((rule) => (rule.ports ?? []).map((port) => `${port.protocol ?? 'TCP'}/${String(port.port)}`))));

// ---------------------------------------------------------------------------------------------
// What the code says
// ---------------------------------------------------------------------------------------------

const matrix = brokerAclMatrix();
const facts = new Map<Role, RoleFacts>();
const rendered = new Map<Overlay, Rendered>();

/** Keys that the schemas the role loaded mark secret(). */
function secretKeys(): Set<string> {
  const out = new Set<string>();
  for (const schema of (globalThis as unknown as { aocLoadedSchemas: Set<z.ZodObject> }).aocLoadedSchemas) {
    const keys = Object.keys(schema.shape);
    const masked = describeConfig(schema, Object.fromEntries(keys.map((k) => [k, 'value'])) as never);
    for (const [key, value] of Object.entries(masked)) if (value === '***') out.add(key);
  }
  return out;
}

beforeAll(async () => {
  for (const role of ROLES) facts.set(role, await factsOf(role));
  for (const overlay of OVERLAYS) rendered.set(overlay, new Rendered(overlay, renderKustomization(path.join(K8S, 'overlays', overlay))));
}, 120_000);

describe('what the checks rely on', () => {
  test('runServiceProcess parses exactly the schemas the role facts know', () => {
    const parsed = [...read('libs/service-host/src/run-service-process.ts').matchAll(/loadConfig\([^,]+,\s*(\w+)/g)].map((m) => m[1]);
    expect(parsed.sort()).toEqual(Object.keys(HOST_SCHEMAS).sort());
  });

  test('loadConfig was seen with the schemas that mark DATABASE_URL and KAFKA_SASL_PASSWORD secret', () => {
    expect([...secretKeys()]).toEqual(expect.arrayContaining(['DATABASE_URL', 'KAFKA_SASL_PASSWORD', 'AOC_OIDC_CLIENT_SECRET']));
  });

  test('services subscribe without a group suffix: each role consumes as the group consumerGroupPrefix(role)', () => {
    const walk = (dir: string): string[] => readdirSync(dir).flatMap((e) => (statSync(path.join(dir, e)).isDirectory() ? walk(path.join(dir, e)) : [path.join(dir, e)]));
    const sources = ROLES.flatMap((role) => walk(path.join(ROOT, 'services', role, 'src')).filter((f) => f.endsWith('.ts') && !/\.(integration-)?spec\.ts$/.test(f)));
    expect(sources.filter((f) => readFileSync(f, 'utf8').includes('groupSuffix')).map((f) => path.relative(ROOT, f))).toEqual([]);
    expect(read('libs/bus/src/bus.ts')).toMatch(/options\.groupSuffix \? `\$\{consumerGroupPrefix\(this\.role\)\}\.\$\{options\.groupSuffix\}` : consumerGroupPrefix\(this\.role\)/);
  });

  test('the Kafka transport signs in with SASL/PLAIN without TLS (what the KEDA credentials say)', () => {
    const transport = read('libs/bus/src/transport/kafka/kafka-transport.ts');
    expect(transport).toMatch(/mechanism: 'plain'/);
    expect(transport).toMatch(/ssl: false/);
  });
});

describe.each(OVERLAYS)('overlays/%s', (overlay) => {
  const r = () => rendered.get(overlay) as Rendered;

  describe('the whole overlay', () => {
    test('every object is valid against the Kubernetes v1.33.0 and KEDA v2.10.1 schemas, with no unknown field', () => {
      expect(validateObjects(r().objects)).toEqual([]);
    }, 60_000);

    test('one Namespace under the restricted Pod Security profile, holding every namespaced object', () => {
      const ns = r().namespace;
      expect(r().get('Namespace', ns).metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
      expect(r().objects.filter((o) => o.kind !== 'Namespace' && o.metadata.namespace !== ns)).toEqual([]);
    });

    test('one Deployment, PodDisruptionBudget, ScaledObject and migration Job per role, and nothing more', () => {
      const names = (kind: string) => r().all(kind).map((o) => o.metadata.name).sort();
      const expected = ROLES.map((role) => `aoc-${role}`).sort();
      expect(names('Deployment')).toEqual(expected);
      expect(names('PodDisruptionBudget')).toEqual(expected);
      expect(names('ScaledObject')).toEqual(expected);
      expect(names('TriggerAuthentication')).toEqual(expected.map((n) => `${n}-kafka`));
      expect(names('Job')).toEqual(expected.map((n) => `${n}-migrate`));
      expect(names('Service')).toEqual(ROLES.filter((role) => facts.get(role)?.definition.http).map((role) => `aoc-${role}`).sort());
    });

    test('nothing is let in or out by default', () => {
      const denyAll = r().all<INetworkPolicy>('NetworkPolicy').filter((p) => Object.keys(p.spec?.podSelector ?? {}).length === 0 || Object.keys(p.spec?.podSelector.matchLabels ?? {}).length === 0);
      expect(denyAll).toHaveLength(1);
      expect(denyAll[0].spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    });

    test('DNS egress reaches only the cluster DNS, on port 53', () => {
      const dns = r()
        .all<INetworkPolicy>('NetworkPolicy')
        .flatMap((p) => p.spec?.egress ?? [])
        .filter((rule) => (rule.ports ?? []).some((port) => port.port === 53));
      expect(dns).toHaveLength(1);
      expect(dns[0].to).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }]);
      expect(dns[0].ports).toEqual([
        { port: 53, protocol: 'UDP' },
        { port: 53, protocol: 'TCP' },
      ]);
    });

    test('no egress rule without ports, and no address block that reaches link-local (cloud metadata) addresses', () => {
      for (const p of r().all<INetworkPolicy>('NetworkPolicy')) {
        for (const rule of p.spec?.egress ?? []) {
          expect((rule.ports ?? []).length).toBeGreaterThan(0);
          for (const peer of rule.to ?? []) if (peer.ipBlock?.cidr === '0.0.0.0/0') expect(peer.ipBlock.except).toContain('169.254.0.0/16');
        }
      }
    });

    test('the first apply step (component!=role) holds the migration Jobs and all they use, and no role', () => {
      const first = new Rendered(overlay, r().objects.filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] !== 'role'));
      expect(first.objects.filter((o) => ['Deployment', 'Service', 'ScaledObject', 'TriggerAuthentication'].includes(o.kind))).toEqual([]);
      expect(first.namespace).toBe(r().namespace);
      const jobs = first.all<IJob>('Job');
      expect(jobs).toHaveLength(ROLES.length);
      for (const job of jobs) {
        const pod = podSpecOf(job);
        expect(pod.serviceAccountName).toBeUndefined();
        for (const v of pod.volumes ?? []) expect(first.maybe('ConfigMap', v.configMap?.name as string)).toBeDefined();
        for (const c of pod.containers) {
          for (const e of c.env ?? []) {
            const ref = e.valueFrom?.configMapKeyRef;
            if (ref && !ref.optional) expect(first.configValue(ref.name as string, ref.key)).toBeDefined();
          }
        }
        const ports = egressPorts(policiesFor(first, podLabelsOf(job)));
        expect([...ports]).toEqual(expect.arrayContaining(['UDP/53', 'TCP/5432']));
      }
    });

    test(overlay === 'production' ? 'no Secret: production creates its own' : 'dev-only Secrets with the local defaults', () => {
      if (overlay === 'production') expect(r().all('Secret')).toEqual([]);
      else expect(r().all('Secret').map((s) => s.metadata.name).sort()).toEqual(ROLES.flatMap((role) => [`aoc-${role}`, `aoc-${role}-kafka`]).sort());
    });
  });

  describe.each([...ROLES])('%s', (role) => {
    const name = `aoc-${role}`;
    const f = () => facts.get(role) as RoleFacts;
    const deployment = () => r().get<IDeployment>('Deployment', name);
    const job = () => r().get<IJob>('Job', `${name}-migrate`);
    const container = () => {
      const containers = podSpecOf(deployment()).containers;
      expect(containers).toHaveLength(1);
      return containers[0];
    };
    const env = () => envValues(r(), container());
    /** The role's port: its HTTP API's, else its management port's (the ServiceDefinition defaults). */
    const definitionPort = () => (f().definition.http?.defaultPort ?? f().definition.management?.defaultPort) as number;

    describe('ports and probes', () => {
      test('one container port, the ServiceDefinition port, where the role listens with this environment', () => {
        expect(container().ports?.map((p) => p.containerPort)).toEqual([definitionPort()]);
        const host = parseAtBoot(role, f().definition, env());
        const listens = f().definition.http ? ((host['PORT'] as number | undefined) ?? f().definition.http?.defaultPort) : ((host['MANAGEMENT_PORT'] as number | undefined) ?? f().definition.management?.defaultPort);
        expect(listens).toBe(definitionPort());
      });

      test('startup and liveness probe /healthz, readiness /readyz, on that port', () => {
        const c = container();
        for (const [probe, pathName] of [
          [c.startupProbe, '/healthz'],
          [c.livenessProbe, '/healthz'],
          [c.readinessProbe, '/readyz'],
        ] as const) {
          expect(probe?.httpGet?.path).toBe(pathName);
          expect(portNumber(c, probe?.httpGet?.port)).toBe(definitionPort());
        }
      });

      test('Prometheus scrape annotations name /metrics on that port', () => {
        expect(deployment().spec?.template.metadata?.annotations).toEqual(expect.objectContaining({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(definitionPort()), 'prometheus.io/path': '/metrics' }));
      });

      test(`${['router', 'reporter', 'optimizer'].includes(role) ? 'a Service for its HTTP API' : 'no Service (no HTTP API)'}`, () => {
        const services = r().all<IService>('Service').filter((s) => Object.keys(s.spec?.selector ?? {}).length > 0 && matches(s.spec?.selector as Labels, podLabelsOf(deployment())));
        if (!f().definition.http) {
          expect(services).toEqual([]);
          return;
        }
        expect(services.map((s) => s.metadata.name)).toEqual([name]);
        const [port] = services[0].spec?.ports ?? [];
        expect(services[0].spec?.ports).toHaveLength(1);
        expect(portNumber(container(), port.targetPort)).toBe(definitionPort());
        expect(matches(services[0].spec?.selector as Labels, podLabelsOf(job()))).toBe(false);
        // Callers reach it by the Service's names: the edge's Host check must accept them.
        const ns = r().namespace;
        const allowed = parseAtBoot(role, f().definition, env())['AOC_HTTP_ALLOWED_HOSTS'] as string[];
        for (const host of [name, `${name}.${ns}`, `${name}.${ns}.svc`, `${name}.${ns}.svc.cluster.local`]) expect(allowed).toContain(`${host}:${port.port}`);
      });
    });

    describe('configuration', () => {
      test('every key the role parses is given (ConfigMap or Secret), and no other; test-only keys never', () => {
        const keys = envEntries(r(), container()).map((e) => e.key);
        expect(keys.filter((k) => !f().knownKeys.has(k) || TEST_ONLY.test(k))).toEqual([]);
        expect([...f().knownKeys].filter((k) => !keys.includes(k) && !TEST_ONLY.test(k)).sort()).toEqual([]);
      });

      test('each key is defined once', () => {
        const keys = envEntries(r(), container()).map((e) => e.key);
        expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
      });

      test('secret keys come from the role’s own Secrets, every other key from a ConfigMap', () => {
        const secrets = secretKeys();
        for (const entry of envEntries(r(), container())) {
          const secret = secrets.has(entry.key) || SECRET_NAME.test(entry.key);
          if (secret) {
            expect({ key: entry.key, source: 'secret' in entry.source ? 'Secret' : 'not a Secret' }).toEqual({ key: entry.key, source: 'Secret' });
            if ('secret' in entry.source) expect([name, `${name}-kafka`]).toContain(entry.source.secret);
          } else {
            expect({ key: entry.key, source: 'configMap' in entry.source ? 'ConfigMap' : 'not a ConfigMap' }).toEqual({ key: entry.key, source: 'ConfigMap' });
          }
        }
      });

      test('the keys the role requires, and those a cluster needs, are set', () => {
        const e = env();
        expect([...f().requiredKeys].filter((k) => !e[k])).toEqual([]);
        for (const [key, value] of Object.entries(CLUSTER_SETTINGS)) expect({ key, value: e[key] }).toEqual({ key, value });
        expect(e['KAFKA_BROKERS']).toBeTruthy();
        const refs = envEntries(r(), container()).filter((entry) => 'secret' in entry.source && !entry.source.optional);
        expect(refs.map((entry) => entry.key).sort()).toEqual([...CLUSTER_SECRETS].sort());
        if (overlay === 'dev') for (const key of CLUSTER_SECRETS) expect(e[key]).toBeTruthy();
      });

      test('the role accepts the values', () => {
        expect(() => parseAtBoot(role, f().definition, env())).not.toThrow();
      });

      test('the role has longer than its shutdown bound to stop', () => {
        const host = parseAtBoot(role, f().definition, env());
        expect((podSpecOf(deployment()).terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(host['AOC_SHUTDOWN_TIMEOUT_MS'] as number);
      });
    });

    describe('Kafka and KEDA', () => {
      const principal = () => matrix.principals.find((p) => p.role === role);
      const passwordRef = () => envEntries(r(), container()).find((e) => e.key === 'KAFKA_SASL_PASSWORD')?.source as { secret: string; secretKey: string };
      const scaled = () => r().get<IScaledObject>('ScaledObject', name);

      test('signs in as its principal of the ACL matrix', () => {
        expect(principal()).toBeDefined();
        expect(env()['KAFKA_SASL_USERNAME']).toBe(principal()?.username);
        expect(passwordRef()).toEqual(expect.objectContaining({ secret: `${name}-kafka` }));
      });

      test('KEDA reads the lag with the same credentials, SASL/PLAIN', () => {
        const refs = r().get<ITriggerAuthentication>('TriggerAuthentication', `${name}-kafka`).spec.secretTargetRef ?? [];
        expect(refs.every((ref) => KAFKA_AUTH_PARAMETERS.has(ref.parameter))).toBe(true);
        const byParameter = Object.fromEntries(refs.map((ref) => [ref.parameter, ref]));
        expect(Object.keys(byParameter).sort()).toEqual(['password', 'sasl', 'username']);
        expect(byParameter['password']).toEqual({ parameter: 'password', name: passwordRef().secret, key: passwordRef().secretKey });
        for (const ref of refs) expect(ref.name).toBe(passwordRef().secret);
        if (overlay === 'dev') {
          const secret = (key: string) => r().secretValue(byParameter[key].name, byParameter[key].key);
          expect(secret('sasl')).toBe('plaintext');
          expect(secret('username')).toBe(principal()?.username);
          expect(secret('password')).toBe(rolePassword(role, {}));
        }
      });

      test('scales this Deployment, which leaves its replica count to KEDA', () => {
        expect(scaled().spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name });
        expect(deployment().spec?.replicas).toBeUndefined();
      });

      test('one kafka trigger per topic the role consumes in the matrix, on its consumer group', () => {
        const triggers = scaled().spec.triggers;
        expect(triggers.every((t) => t.type === 'kafka')).toBe(true);
        const topics = triggers.map((t) => t.metadata['topic']);
        expect([...topics].sort()).toEqual([...grantOf(role).subscribe].sort());
        expect(new Set(topics).size).toBe(topics.length);
        for (const t of triggers) {
          expect(t.metadata['consumerGroup']).toBe(consumerGroupPrefix(role));
          expect(t.metadata['consumerGroup']).toBe(principal()?.consumerGroupPrefix);
          expect(t.authenticationRef).toEqual({ name: `${name}-kafka` });
        }
      });

      test('lag counts from where the role starts a partition without offsets (AOC_KAFKA_START_FROM)', () => {
        const startFrom = parseAtBoot(role, f().definition, env())['AOC_KAFKA_START_FROM'];
        expect(['earliest', 'latest']).toContain(startFrom);
        for (const t of scaled().spec.triggers) expect(t.metadata['offsetResetPolicy']).toBe(startFrom);
      });

      test('the brokers are the role’s own KAFKA_BROKERS', () => {
        for (const t of scaled().spec.triggers) {
          const fromEnv = t.metadata['bootstrapServersFromEnv'];
          const servers = fromEnv !== undefined ? env()[fromEnv] : t.metadata['bootstrapServers'];
          if (fromEnv !== undefined) expect(f().knownKeys.has(fromEnv)).toBe(true);
          expect(servers).toBe(env()['KAFKA_BROKERS']);
        }
      });

      test('at least one replica, at most the partitions of its busiest topic', () => {
        const partitions = Math.max(...grantOf(role).subscribe.map((t) => TOPIC_REGISTRY.find((d) => d.name === t)?.partitions ?? 0));
        const { minReplicaCount = 0, maxReplicaCount = 100 } = scaled().spec;
        expect(minReplicaCount).toBeGreaterThanOrEqual(1);
        expect(maxReplicaCount).toBeGreaterThanOrEqual(minReplicaCount);
        expect(maxReplicaCount).toBeLessThanOrEqual(partitions);
      });
    });

    describe('pods', () => {
      const pods = () => [
        ['Deployment', podSpecOf(deployment())],
        ['migration Job', podSpecOf(job())],
      ] as const;

      test('restrictive security context: non-root, RuntimeDefault seccomp, no privilege escalation, no capabilities, read-only root', () => {
        for (const [, pod] of pods()) {
          expect(pod.securityContext?.runAsNonRoot).toBe(true);
          expect(pod.securityContext?.runAsUser).toBeGreaterThan(0);
          expect(pod.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
          expect(pod.automountServiceAccountToken).toBe(false);
          expect(pod.enableServiceLinks).toBe(false);
          expect([pod.hostNetwork, pod.hostPID, pod.hostIPC].filter(Boolean)).toEqual([]);
          for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
            expect(c.securityContext).toEqual(
              expect.objectContaining({ runAsNonRoot: true, allowPrivilegeEscalation: false, privileged: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } }),
            );
          }
        }
      });

      test(`writable only ${WRITABLE[role] ? WRITABLE[role]?.join(', ') : 'nowhere'}: the role's own writes`, () => {
        const pod = podSpecOf(deployment());
        const emptyDirs = (pod.volumes ?? []).filter((v) => v.emptyDir);
        const writableMounts = container()
          .volumeMounts?.filter((m) => !m.readOnly && emptyDirs.some((v) => v.name === m.name))
          .map((m) => m.mountPath);
        expect(writableMounts ?? []).toEqual(WRITABLE[role] ?? []);
        for (const v of emptyDirs) expect(v.emptyDir?.sizeLimit).toBeDefined();
        expect((pod.volumes ?? []).filter((v) => !v.emptyDir)).toEqual([]);
        const jobVolumes = podSpecOf(job()).volumes ?? [];
        expect(jobVolumes.every((v) => v.configMap)).toBe(true);
      });

      test('CPU and memory requests and limits, requests within limits', () => {
        for (const [, pod] of pods()) {
          for (const c of pod.containers) {
            for (const resource of ['cpu', 'memory']) {
              const request = quantity(c.resources?.requests?.[resource]);
              const limit = quantity(c.resources?.limits?.[resource]);
              expect(request).toBeGreaterThan(0);
              expect(limit).toBeGreaterThanOrEqual(request);
            }
          }
        }
      });

      test('a disruption budget on the role’s pods that still lets a node drain', () => {
        const pdb = r().get<IPodDisruptionBudget>('PodDisruptionBudget', name);
        expect(pdb.spec?.selector?.matchLabels).toEqual(deployment().spec?.selector.matchLabels);
        expect(matches(pdb.spec?.selector?.matchLabels as Labels, podLabelsOf(deployment()))).toBe(true);
        expect(matches(pdb.spec?.selector?.matchLabels as Labels, podLabelsOf(job()))).toBe(false);
        expect(pdb.spec?.minAvailable).toBeUndefined();
        expect(pdb.spec?.maxUnavailable).toBe(1);
      });
    });

    describe('network', () => {
      const rolePolicies = () => policiesFor(r(), podLabelsOf(deployment()));

      test('ingress: the HTTP API from anywhere for a role that has one; scrapes from the monitoring namespaces; nothing else', () => {
        const rules = rolePolicies().flatMap((p) => p.spec?.ingress ?? []);
        const open = rules.filter((rule) => rule.from === undefined || rule.from.length === 0);
        expect(open.map((rule) => rule.ports)).toEqual(f().definition.http ? [[{ port: definitionPort(), protocol: 'TCP' }]] : []);
        const scrapes = rules.filter((rule) => (rule.from ?? []).length > 0);
        expect(scrapes).toEqual([{ from: [{ namespaceSelector: { matchLabels: MONITORING } }], ports: [{ port: definitionPort(), protocol: 'TCP' }] }]);
      });

      test('egress: DNS, Postgres and Kafka on their ports, besides its providers', () => {
        const ports = egressPorts(rolePolicies());
        const kafkaPorts = (env()['KAFKA_BROKERS'] ?? '').split(',').map((b) => `TCP/${b.trim().split(':').pop()}`);
        const postgres = `TCP/${new URL(env()['DATABASE_URL'] ?? '').port || 5432}`;
        expect([...ports]).toEqual(expect.arrayContaining(['UDP/53', 'TCP/53', postgres, ...kafkaPorts]));
      });

      test('the migration Job reaches DNS and Postgres only, and accepts nothing', () => {
        const policies = policiesFor(r(), podLabelsOf(job()));
        const postgres = `TCP/${new URL(envValues(r(), podSpecOf(job()).containers[0])['DATABASE_URL'] ?? '').port || 5432}`;
        expect([...egressPorts(policies)].sort()).toEqual(['TCP/53', 'UDP/53', postgres].sort());
        expect(policies.flatMap((p) => p.spec?.ingress ?? [])).toEqual([]);
      });
    });

    describe('image', () => {
      test('the role’s image for the Deployment and the migration Job', () => {
        const image = container().image as string;
        expect(splitImage(image).name.split('/').pop()).toBe(name);
        expect(podSpecOf(job()).containers.map((c) => c.image)).toEqual([image]);
        if (overlay === 'dev') {
          const compose = parseYaml(read('deploy/compose.roles.yml')) as { services: Record<string, { image?: string }> };
          expect(image).toBe(compose.services[role].image);
        } else {
          const { tag, digest } = splitImage(image);
          expect(digest ?? tag).toBeTruthy();
          expect(tag).not.toBe('latest');
        }
      });
    });

    describe('migration Job', () => {
      test('runs the migrate-only entry point for this role, mounted from the aoc-migrate ConfigMap', () => {
        const pod = podSpecOf(job());
        const [c] = pod.containers;
        expect(pod.restartPolicy).toBe('Never');
        expect(job().spec?.backoffLimit).toBeGreaterThan(0);
        const command = [...(c.command ?? []), ...(c.args ?? [])];
        expect(command[0]).toBe('node');
        expect(command[command.length - 1]).toBe(role);
        const script = command[command.length - 2];
        const mount = c.volumeMounts?.find((m) => m.mountPath === path.posix.dirname(script));
        expect(mount?.readOnly).toBe(true);
        const volume = pod.volumes?.find((v) => v.name === mount?.name);
        const cm = r().get<IConfigMap>('ConfigMap', volume?.configMap?.name as string);
        expect(cm.data?.[path.posix.basename(script)]).toBe(read(MIGRATE_SCRIPT));
        expect(volume?.configMap?.defaultMode).toBe(0o444);
      });

      test('with the role’s database: DATABASE_URL from the same Secret as the role, only keys the role parses', () => {
        const entries = envEntries(r(), podSpecOf(job()).containers[0]);
        expect(entries.filter((e) => !f().knownKeys.has(e.key))).toEqual([]);
        const roleDb = envEntries(r(), container()).find((e) => e.key === 'DATABASE_URL');
        expect(entries.find((e) => e.key === 'DATABASE_URL')).toEqual(roleDb);
      });

      test('its pods are not the role’s: no Deployment, Service or budget selects them', () => {
        expect(matches(deployment().spec?.selector.matchLabels as Labels, podLabelsOf(job()))).toBe(false);
      });
    });
  });
});

// ---------------------------------------------------------------------------------------------
// The migrate-only entry point, on a production build of two roles (with and without HTTP API)
// ---------------------------------------------------------------------------------------------

describe('the migrate-only entry point of the migration Jobs', () => {
  let out: string;
  let pg: EmbeddedPostgres;
  const script = () => path.join(out, 'opt', 'aoc', 'migrate', 'migrate-role.js');
  const run = (role: string, env: NodeJS.ProcessEnv) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(process.execPath, ['--enable-source-maps', script(), role], { cwd: out, env: { PATH: process.env['PATH'], ...env }, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    // Laid out like an image: node_modules and dist/services/<role> in the working directory, the
    // script where the Job mounts the aoc-migrate ConfigMap.
    out = mkdtempSync(path.join(tmpdir(), 'aoc-migrate-'));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(out, 'node_modules'), 'dir');
    for (const role of ['reporter', 'judge']) await buildRole(role, { outRoot: path.join(out, 'dist', 'services') });
    mkdirSync(path.dirname(script()), { recursive: true });
    const cm = (rendered.get('production') as Rendered).get<IConfigMap>('ConfigMap', 'aoc-migrate');
    writeFileSync(script(), cm.data?.['migrate-role.js'] as string);
    pg = await startEmbeddedPostgres();
  }, 180_000);
  afterAll(async () => {
    await pg?.stop();
    rmSync(out, { recursive: true, force: true });
  });

  test.each([
    ['reporter', 'with an HTTP API: the role’s schema and the credential store; nothing the second time'],
    ['judge', 'without an HTTP API: the role’s schema only'],
  ] as const)('%s, %s', async (role: 'reporter' | 'judge', _what: string) => {
    const first = await run(role, { DATABASE_URL: pg.url });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const result = JSON.parse(first.stdout) as { role: string; migrations: string[]; authMigrations: string[] };
    const definition = (facts.get(role) as RoleFacts).definition;
    expect(result.role).toBe(role);
    expect(result.migrations).toEqual(definition.migrations.map((m) => m.name));
    expect(result.authMigrations.length > 0).toBe(definition.http !== undefined);
    if (!definition.http) return;
    const second = await run(role, { DATABASE_URL: pg.url });
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ level: 'info', msg: 'migrated', role, migrations: [], authMigrations: [] });
  }, 120_000);

  test('refuses to run without DATABASE_URL, and without a role', async () => {
    const noDb = await run('judge', {});
    expect(noDb.code).toBe(1);
    expect(noDb.stderr).toMatch(/DATABASE_URL is not set/);
    const noRole = await run('', {});
    expect(noRole.code).not.toBe(0);
  }, 60_000);
});
