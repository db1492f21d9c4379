/** Every deployable role. Each role is one service, one Kafka principal and one consumer group prefix. */
export const ROLES = ['router', 'evidence', 'provider-executor', 'judge', 'reporter', 'optimizer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Consumer groups of a role all start with this prefix; broker ACLs grant the prefix. */
export function consumerGroupPrefix(role: Role): string {
  return `aoc.${role}`;
}

/** Kafka SASL username of a role. */
export function principalName(role: Role): string {
  return `aoc-${role}`;
}
