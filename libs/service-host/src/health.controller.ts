import { Access } from '@aoc/auth';
import { Controller, Get, Inject, ServiceUnavailableException, type DynamicModule } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import type { HealthCheck, RoleHealth } from './role-health';

export const ROLE_HEALTH = Symbol('ROLE_HEALTH');

/** Probes on a role's HTTP API: explicitly public (a probe carries no credential), no customer data. */
@Controller()
export class HealthController {
  constructor(@Inject(ROLE_HEALTH) private readonly health: RoleHealth) {}

  @Get('healthz')
  @Access('public')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Access('public')
  async ready(): Promise<{ status: 'ready'; checks: Record<string, HealthCheck> }> {
    const report = await this.health.ready();
    if (!report.ready) {
      const failed = Object.entries(report.checks).filter(([, c]) => !c.ok).map(([name, c]) => `${name}: ${c.detail}`);
      throw new ServiceUnavailableException({ code: 'HEALTH.NOT_READY', message: `not ready: ${failed.join('; ')}` });
    }
    return { status: 'ready', checks: report.checks };
  }
}

class HealthModule {}

/** The probes and /metrics on a role's HTTP API. */
export function healthModule(health: RoleHealth): DynamicModule {
  return { module: HealthModule, controllers: [HealthController, MetricsController], providers: [{ provide: ROLE_HEALTH, useValue: health }] };
}
