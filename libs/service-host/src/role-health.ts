import { errorMessageOf } from '@aoc/errors';
import { quoteIdent } from '@aoc/persistence';
import type { RoleRuntime } from './role-runtime';
import type { ServiceDefinition } from './service-definition';

export interface HealthCheck {
  ok: boolean;
  detail: string;
}

export interface ReadyReport {
  ready: boolean;
  checks: { bus: HealthCheck; database: HealthCheck; migrations: HealthCheck };
}

/** A check that does not answer within this bound counts as failed: a probe must not hang. */
const CHECK_TIMEOUT_MS = 2000;

function withinBound<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * Liveness and readiness of one role. Alive: the process answers. Ready: the bus is started and
 * every consumer group of the role has this member in it, the database answers, and every
 * migration the role ships is recorded in its schema (a role started against an older schema is
 * not ready). Details name what failed, never an address or a credential.
 */
export class RoleHealth {
  private readonly migrations: string[];

  constructor(
    private readonly runtime: Pick<RoleRuntime, 'bus' | 'dataSource' | 'schema'>,
    definition: Pick<ServiceDefinition, 'migrations'>,
  ) {
    // TypeORM records a migration under its class name (the classes also carry it as `name`).
    this.migrations = definition.migrations.map((m) => m.name);
  }

  async ready(): Promise<ReadyReport> {
    const [bus, database, migrations] = await Promise.all([this.bus(), this.database(), this.migrationsApplied()]);
    return { ready: bus.ok && database.ok && migrations.ok, checks: { bus, database, migrations } };
  }

  private bus(): HealthCheck {
    const r = this.runtime.bus.readiness;
    if (!r.started) return { ok: false, detail: 'the bus is not started' };
    if (r.joined < r.groups) return { ok: false, detail: `${r.joined} of ${r.groups} consumer groups joined` };
    return { ok: true, detail: `${r.groups} consumer group${r.groups === 1 ? '' : 's'} joined` };
  }

  private async database(): Promise<HealthCheck> {
    try {
      await withinBound(this.runtime.dataSource.query('SELECT 1'), 'the database');
      return { ok: true, detail: 'the database answers' };
    } catch (error) {
      return { ok: false, detail: `the database does not answer: ${errorMessageOf(error).split('\n')[0].slice(0, 120)}` };
    }
  }

  private async migrationsApplied(): Promise<HealthCheck> {
    if (this.migrations.length === 0) return { ok: true, detail: 'no migrations' };
    try {
      const rows: { name: string }[] = await withinBound(this.runtime.dataSource.query(`SELECT "name" FROM ${quoteIdent(this.runtime.schema)}."typeorm_migrations"`), 'the migrations table');
      const applied = new Set(rows.map((r) => r.name));
      const missing = this.migrations.filter((m) => !applied.has(m));
      return missing.length === 0 ? { ok: true, detail: `${this.migrations.length} migrations applied` } : { ok: false, detail: `${missing.length} migrations not applied (first: ${missing[0]})` };
    } catch (error) {
      return { ok: false, detail: `the migrations table cannot be read: ${errorMessageOf(error).split('\n')[0].slice(0, 120)}` };
    }
  }
}
