import type { ProviderInventoryListedV1, ProviderName } from '@aoc/contracts';
import type { EntityManager } from 'typeorm';
import { ProviderInventoryEntity } from '../persistence/provider-inventory.entity';
import type { ProviderInventory } from '../select-scenarios/resolve-target';

/** Every provider's last inventory with targets; an unavailable listing keeps the targets it had. */
export async function loadInventories(manager: EntityManager): Promise<ProviderInventory[]> {
  const rows = await manager.find(ProviderInventoryEntity);
  return rows.map((r) => ({ provider: r.provider as ProviderName, targets: r.targets }));
}

/**
 * Stores a published inventory. Idempotent and ordered by listing time: a redelivered or older
 * listing changes nothing, and a listing that could not reach the provider keeps the old targets.
 */
export async function storeInventory(manager: EntityManager, listed: ProviderInventoryListedV1): Promise<void> {
  const row = await manager.findOne(ProviderInventoryEntity, { where: { provider: listed.provider }, lock: { mode: 'pessimistic_write' } });
  const listedAt = new Date(listed.listedAt);
  if (row && row.listedAt.getTime() >= listedAt.getTime()) return;
  const targets = listed.status === 'listed' ? listed.targets : (row?.targets ?? []);
  await manager.save(ProviderInventoryEntity, { provider: listed.provider, status: listed.status, targets, truncated: listed.truncated, failureCode: listed.failureCode, listedAt });
}
