import { dlqTopicOf } from './envelope';
import { TOPIC_REGISTRY, roleGrants } from './registry';
import { consumerGroupPrefix, principalName } from './roles';

/** Shape consumed by deploy/local/provision-kafka.ts to create topics and broker ACLs. */
export interface BrokerAclMatrix {
  brokerPrincipalPrefix: 'User:';
  admin: { username: string };
  topics: { name: string; partitions: number; kind: 'event' | 'dlq' }[];
  principals: {
    role: string;
    username: string;
    consumerGroupPrefix: string;
    write: string[];
    read: string[];
  }[];
}

export function brokerAclMatrix(): BrokerAclMatrix {
  return {
    brokerPrincipalPrefix: 'User:',
    admin: { username: 'aoc-admin' },
    topics: TOPIC_REGISTRY.flatMap((t) => [
      { name: t.name, partitions: t.partitions, kind: 'event' as const },
      { name: dlqTopicOf(t.name), partitions: 1, kind: 'dlq' as const },
    ]),
    principals: roleGrants().map((g) => ({
      role: g.role,
      username: principalName(g.role),
      consumerGroupPrefix: consumerGroupPrefix(g.role),
      write: [...g.publish, ...g.deadLetter],
      read: g.subscribe,
    })),
  };
}
