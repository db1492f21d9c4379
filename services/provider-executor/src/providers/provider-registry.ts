import type { ProviderName } from '@aoc/contracts';
import { prometheusEvidencePackage, type EvidencePackage, type PrometheusTarget } from '@aoc/providers';
import type { ExecutorOptions, PrometheusTargetConfig } from './executor-options';

/** One configured endpoint as the generic package takes it; tokens become headers and secrets. */
export function prometheusTargetOf(t: PrometheusTargetConfig): PrometheusTarget {
  return {
    name: t.name,
    baseUrl: t.baseUrl,
    targetLabel: t.targetLabel,
    headers: t.bearerToken ? { authorization: `Bearer ${t.bearerToken}` } : undefined,
    secrets: t.bearerToken ? [t.bearerToken] : [],
    ...(t.postgres ? { postgres: t.postgres, postgresTarget: t.postgresTarget } : {}),
    ...(t.mysql ? { mysql: t.mysql, mysqlTarget: t.mysqlTarget } : {}),
    ...(t.loki
      ? {
          loki: {
            baseUrl: t.loki.baseUrl,
            selectorLabel: t.loki.selectorLabel,
            headers: t.loki.bearerToken ? { authorization: `Bearer ${t.loki.bearerToken}` } : undefined,
            secrets: t.loki.bearerToken ? [t.loki.bearerToken] : [],
          },
        }
      : {}),
  };
}

/** The packages this deployment has credentials for; each is its own identity. */
export class ProviderRegistry {
  private readonly packages = new Map<ProviderName, EvidencePackage>();

  constructor(options: Pick<ExecutorOptions, 'prometheusTargets'>, extra: readonly EvidencePackage[] = []) {
    if (options.prometheusTargets.length > 0) {
      this.packages.set('prometheus', prometheusEvidencePackage(options.prometheusTargets.map(prometheusTargetOf)));
    }
    for (const pkg of extra) this.packages.set(pkg.name, pkg);
  }

  get(provider: ProviderName): EvidencePackage | undefined {
    return this.packages.get(provider);
  }

  configured(): ProviderName[] {
    return [...this.packages.keys()];
  }
}
