import { Topics } from '@aoc/contracts';
import type { Bus } from '@aoc/bus';
import { BUS, LOGGER } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
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
export class InventoryPublisher implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(PROVIDER_REGISTRY) private readonly registry: ProviderRegistry,
    @Inject(EXECUTOR_OPTIONS) private readonly options: ExecutorOptions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.kick();
    this.timer = setInterval(() => this.kick(), this.options.inventoryRefreshMs ?? 300_000);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
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

  private kick(): void {
    if (this.running) return;
    this.running = this.publishOnce()
      .then(() => undefined)
      .catch((error: unknown) => this.logger.warn('inventory publication failed', { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        this.running = null;
      });
  }
}
