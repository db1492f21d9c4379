import type { HandlerContext } from '@aoc/bus';
import { Topics, type EvidenceCatalogRequestedV1 } from '@aoc/contracts';
import { DATA_SOURCE } from '@aoc/service-host';
import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { LayeredRecordingStore, storeRecordings } from '../evidence-recordings/recording-store';
import type { ExecutorOptions } from '../providers/executor-options';
import type { ProviderRegistry } from '../providers/provider-registry';
import { EXECUTOR_OPTIONS, PROVIDER_REGISTRY } from '../providers/tokens';
import { discoverCatalog, type DiscoveryOutcome } from './discover-metrics';

/** Provider Executor: answers a discovery bootstrap with the target's metric catalogue. */
@Injectable()
export class DiscoverMetricsHandler {
  private readonly recordings: LayeredRecordingStore;

  constructor(
    @Inject(DATA_SOURCE) dataSource: DataSource,
    @Inject(PROVIDER_REGISTRY) private readonly registry: ProviderRegistry,
    @Inject(EXECUTOR_OPTIONS) private readonly options: ExecutorOptions,
  ) {
    this.recordings = new LayeredRecordingStore(options.recordings, dataSource);
  }

  /** Network work, outside the handler's transaction. */
  prepare(requested: EvidenceCatalogRequestedV1): Promise<DiscoveryOutcome> {
    return discoverCatalog(requested, { registry: this.registry, mode: this.options.mode, recordings: this.recordings, ...(this.options.recording ? { recording: this.options.recording } : {}) });
  }

  async handle(requested: EvidenceCatalogRequestedV1, ctx: HandlerContext): Promise<void> {
    const outcome = (ctx.prepared as DiscoveryOutcome | undefined) ?? (await this.prepare(requested));
    await storeRecordings(ctx.manager, outcome.newRecordings, new Date(), requested.runId, this.options.recording);
    await ctx.publish(Topics.evidenceCatalogListed, outcome.listed);
  }
}
