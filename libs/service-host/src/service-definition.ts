import type { Role, TopicDefinition } from '@aoc/contracts';
import type { DynamicModule } from '@nestjs/common';
import type { MixedList, EntitySchema } from 'typeorm';
import type { RoleRuntime } from './role-runtime';

// TypeORM takes entity and migration classes as constructors.
type Constructor = abstract new (...args: never[]) => object;

/** How a service describes itself to whatever hosts it (its own process or the launcher). */
export interface ServiceDefinition {
  role: Role;
  /** Topics the role publishes; the bus checks them against the matrix before starting. */
  publishes: readonly TopicDefinition[];
  entities: MixedList<Constructor | EntitySchema>;
  migrations: Constructor[];
  module(runtime: RoleRuntime): DynamicModule;
  /**
   * Roles with an HTTP API (router, reporter) listen on this port when hosted alone. `bodyLimits`:
   * routes whose JSON body may exceed the edge's default (`METHOD /path` → bytes), derived from the
   * contracts the body becomes.
   */
  http?: { defaultPort: number; bodyLimits?: Readonly<Record<string, number>> };
  /** Roles without an HTTP API serve /healthz and /readyz on this port when hosted alone (`MANAGEMENT_PORT` overrides it). */
  management?: { defaultPort: number };
}
