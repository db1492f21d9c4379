import type { Bus } from '@aoc/bus';
import type { Role } from '@aoc/contracts';
import type { Logger } from '@aoc/telemetry';
import type { DataSource } from 'typeorm';

/** Everything a role's handlers need from the process that hosts them. */
export interface RoleRuntime {
  readonly role: Role;
  /** Postgres schema owned by the role; its tables live there and nowhere else. */
  readonly schema: string;
  readonly bus: Bus;
  readonly dataSource: DataSource;
  readonly logger: Logger;
}

export const ROLE_RUNTIME = Symbol('ROLE_RUNTIME');
export const BUS = Symbol('BUS');
export const DATA_SOURCE = Symbol('DATA_SOURCE');
export const LOGGER = Symbol('LOGGER');
