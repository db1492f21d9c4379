import { Topics } from '@aoc/contracts';
import type { Bus } from '@aoc/bus';
import { BUS, LOGGER } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import { PeriodicPass } from '../periodic-pass';
import type { ExecutorOptions } from '../providers/executor-options';
import type { ProviderRegistry } from '../providers/provider-registry';
import { EXECUTOR_OPTIONS, PROVIDER_REGISTRY } from '../providers/tokens';
import { liveInventories, recordedInventories, toInventoryMessage } from './inventory';

/**
 * Publishes each package's inventory at start and then every `inventoryRefreshMs`, so the router
 * resolves ticket mentions against what the providers can actually serve. One pass at a time; a
 * failed pass is logged and the next one runs.
 */
@Injectable()
export class InventoryPublisher extends PeriodicPass {
  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(PROVIDER_REGISTRY) private readonly registry: ProviderRegistry,
    @Inject(EXECUTOR_OPTIONS) private readonly options: ExecutorOptions,
    @Inject(LOGGER) logger: Logger,
  ) {
    super('inventory publication', logger);
  }

  protected intervalMs(): number {
    return this.options.inventoryRefreshMs ?? 300_000;
  }

  protected pass(): Promise<number> {
    return this.publishOnce();
  }

  /** One publication pass; resolves when its messages are in the outbox. */
  async publishOnce(): Promise<number> {
    const listings = this.options.mode === 'replay' ? recordedInventories(this.options.recordings) : await liveInventories(this.registry);
    const at = new Date();
    await this.bus.transaction(async (uow) => {
      for (const [provider, listing] of listings) await uow.publish(Topics.providerInventoryListed, toInventoryMessage(provider, listing, at));
    });
    return listings.size;
  }
}
