import { InMemoryBroker, InMemoryTransport, KafkaTransport, type Transport } from '@aoc/bus';
import { principalName, type Role } from '@aoc/contracts';
import type { Logger } from '@aoc/telemetry';

export type TransportSpec =
  | { kind: 'memory'; broker: InMemoryBroker }
  | { kind: 'kafka'; brokers: string[]; username?: string; password?: string; clientIdSuffix?: string };

export function createTransport(role: Role, spec: TransportSpec, logger?: Logger): Transport {
  if (spec.kind === 'memory') return new InMemoryTransport(spec.broker);
  return new KafkaTransport({
    clientId: `${principalName(role)}${spec.clientIdSuffix ? `-${spec.clientIdSuffix}` : ''}`,
    brokers: spec.brokers,
    sasl: spec.username && spec.password ? { username: spec.username, password: spec.password } : undefined,
    log: logger ? (level, message) => (level === 'error' ? logger.error(message) : logger.warn(message)) : undefined,
  });
}
