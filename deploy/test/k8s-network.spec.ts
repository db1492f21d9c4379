// deploy/k8s, network policies: nothing in or out by default, DNS to the cluster DNS only, and per
// role its HTTP API, the scrapes and the egress to Postgres and Kafka (see k8s.spec.ts).
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { describeOverlays, egressPorts, envValues, loadCluster, podLabelsOf, podSpecOf, policiesFor } from './k8s-fixture';

/** The namespace label allowed to scrape /metrics (and to receive OTLP traces). */
const MONITORING = { 'auto-oncall/monitoring': 'true' };

loadCluster();

describeOverlays({
  overlay: (_overlay, r) => {
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
  },
  role: ({ r, f, deployment, job, env, definitionPort }) => {
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
  },
});
