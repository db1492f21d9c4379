// deploy/k8s, Kafka and KEDA: each role signs in as its principal of the ACL matrix, and KEDA
// scales it on the lag of the topics the role/topic matrix lets it consume (see k8s.spec.ts).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { ROLES, TOPIC_REGISTRY, brokerAclMatrix, consumerGroupPrefix, grantOf } from '@aoc/contracts';
import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import type { ITriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import { KAFKA_AUTH_PARAMETERS } from '../../tools/k8s/validate';
import { rolePassword } from '../local/kafka-matrix';
import { describeOverlays, envEntries, loadCluster, read, ROOT } from './k8s-fixture';
import { parseAtBoot } from './role-facts';

const matrix = brokerAclMatrix();

loadCluster();

describe('what the checks rely on', () => {
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

describeOverlays({
  role: ({ overlay, role, name, r, f, deployment, container, env }) => {
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
  },
});
