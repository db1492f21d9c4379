import { z } from 'zod';
import { IsoDateTime, ProviderName, ProviderTarget } from '../../common';
import { defineTopic } from '../../topic-definition';

export const MAX_INVENTORY_TARGETS = 2000;
export const MAX_TARGET_ALIASES = 8;

/** A provider target as the router may name it: the exact target plus the names a ticket may use for it. */
export const InventoryTargetV1 = z
  .object({
    target: ProviderTarget.describe('Exact provider target, e.g. a cluster label value or `<org>/<cluster>`'),
    aliases: z.array(z.string().min(1).max(128)).max(MAX_TARGET_ALIASES).describe('Other names of the same target (cluster name, display name, host prefix); never an address'),
  })
  .strict();
export type InventoryTargetV1 = z.infer<typeof InventoryTargetV1>;

export const ProviderInventoryListedKeyV1 = ProviderName;
/**
 * The bounded, sanitised list of targets one provider package can serve. Published by the
 * Provider Executor at start and on refresh; the router resolves ticket mentions against it.
 */
export const ProviderInventoryListedV1 = z
  .object({
    provider: ProviderName,
    listedAt: IsoDateTime,
    status: z.enum(['listed', 'unavailable']).describe('unavailable: the provider could not be asked; keep the previous inventory'),
    targets: z.array(InventoryTargetV1).max(MAX_INVENTORY_TARGETS),
    truncated: z.boolean().describe('More targets exist than the inventory carries'),
    failureCode: z.string().min(1).max(64).nullable(),
  })
  .strict();
export type ProviderInventoryListedV1 = z.infer<typeof ProviderInventoryListedV1>;

export const providerInventoryListedTopic = defineTopic({
  baseName: 'provider.inventory-listed',
  version: 1,
  description: 'The targets a provider package can serve, bounded and sanitised, for target resolution in the router.',
  keyField: 'provider',
  key: ProviderInventoryListedKeyV1,
  value: ProviderInventoryListedV1,
  producers: ['provider-executor'],
  consumers: ['router'],
  partitions: 1,
});
