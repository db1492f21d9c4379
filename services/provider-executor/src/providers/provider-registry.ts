import type { ProviderName } from '@aoc/contracts';
import { prometheusEvidencePackage, type EvidencePackage } from '@aoc/providers';
import type { ExecutorOptions } from './executor-options';

/** The packages this deployment has credentials for; each is its own identity. */
export class ProviderRegistry {
  private readonly packages = new Map<ProviderName, EvidencePackage>();

  constructor(options: Pick<ExecutorOptions, 'prometheusTargets'>, extra: readonly EvidencePackage[] = []) {
    if (options.prometheusTargets.length > 0) {
      this.packages.set(
        'prometheus',
        prometheusEvidencePackage(
          options.prometheusTargets.map((t) => ({
            name: t.name,
            baseUrl: t.baseUrl,
            targetLabel: t.targetLabel,
            headers: t.bearerToken ? { authorization: `Bearer ${t.bearerToken}` } : undefined,
            secrets: t.bearerToken ? [t.bearerToken] : [],
          })),
        ),
      );
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
