import { MAX_INVENTORY_TARGETS, MAX_TARGET_ALIASES, ProviderTarget, type ProviderInventoryListedV1, type ProviderName } from '@aoc/contracts';
import type { TargetListing } from '@aoc/providers';
import type { RecordingEntry } from '../evidence-recordings/evidence-recording';
import type { ProviderRegistry } from '../providers/provider-registry';

/** A listing as the topic carries it: bounded, only safe identifiers, aliases capped. */
export function toInventoryMessage(provider: ProviderName, listing: TargetListing, at: Date): ProviderInventoryListedV1 {
  const targets = listing.targets
    .filter((t) => ProviderTarget.safeParse(t.target).success)
    .map((t) => ({ target: t.target, aliases: [...new Set(t.aliases.filter((a) => a.length > 0 && a.length <= 128))].slice(0, MAX_TARGET_ALIASES) }));
  return {
    provider,
    listedAt: at.toISOString(),
    status: listing.status,
    targets: targets.slice(0, MAX_INVENTORY_TARGETS),
    truncated: listing.truncated || targets.length > MAX_INVENTORY_TARGETS,
    failureCode: listing.failureCode,
  };
}

/** In replay mode the targets a deployment can serve are exactly the ones it holds recorded evidence for. */
export function recordedInventories(recordings: readonly RecordingEntry[]): Map<ProviderName, TargetListing> {
  const out = new Map<ProviderName, Set<string>>();
  for (const r of recordings) {
    const provider = r.provider as ProviderName;
    if (!r.target) continue;
    out.set(provider, (out.get(provider) ?? new Set()).add(r.target));
  }
  return new Map([...out].map(([provider, targets]) => [provider, { status: 'listed', targets: [...targets].sort().map((target) => ({ target, aliases: [] })), truncated: false, failureCode: null }]));
}

/** The inventories of every configured package that has one (live and record mode). */
export async function liveInventories(registry: ProviderRegistry): Promise<Map<ProviderName, TargetListing>> {
  const out = new Map<ProviderName, TargetListing>();
  for (const provider of registry.configured()) {
    const pkg = registry.get(provider);
    if (!pkg?.listTargets) continue;
    try {
      out.set(provider, await pkg.listTargets());
    } catch (error) {
      out.set(provider, { status: 'unavailable', targets: [], truncated: false, failureCode: (error as { code?: string }).code ?? 'PROVIDER.UNREACHABLE' });
    }
  }
  return out;
}
