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
//
// This file checks the manifests as a whole (schemas, namespace, one set of objects per role), the
// ports and probes, the pods and the images. Beside it, on the same rendering (./k8s-fixture):
// k8s-config.spec.ts (environment and Secrets), k8s-kafka.spec.ts (the ACL principal, KEDA and the
// role/topic matrix), k8s-network.spec.ts (network policies) and k8s-migrate.spec.ts (migration Jobs).
import { ROLES, type Role } from '@aoc/contracts';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IService } from 'kubernetes-models/v1/Service';
import { parse as parseYaml } from 'yaml';
import { splitImage } from '../../tools/k8s/kustomize';
import { validateObjects } from '../../tools/k8s/validate';
import { describeOverlays, facts, loadCluster, matches, podLabelsOf, podSpecOf, portNumber, quantity, read, type Labels } from './k8s-fixture';
import { parseAtBoot } from './role-facts';

/** Where a role writes to its filesystem, the only writable mounts its pod may have. */
const WRITABLE: Partial<Record<Role, string[]>> = {
  // The Wetech dashboard package launches Chromium through Playwright, which creates its profile and
  // artifact folders under os.tmpdir(). Every other role writes nothing (docs/operations.md).
  'provider-executor': ['/tmp'],
};

loadCluster();

describeOverlays({
  overlay: (overlay, r) => {
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

    test(overlay === 'production' ? 'no Secret: production creates its own' : 'dev-only Secrets with the local defaults', () => {
      if (overlay === 'production') expect(r().all('Secret')).toEqual([]);
      else expect(r().all('Secret').map((s) => s.metadata.name).sort()).toEqual(ROLES.flatMap((role) => [`aoc-${role}`, `aoc-${role}-kafka`]).sort());
    });
  },
  role: ({ overlay, role, name, r, f, deployment, job, container, env, definitionPort }) => {
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
  },
});
