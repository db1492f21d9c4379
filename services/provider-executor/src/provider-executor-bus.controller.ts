import { BusErrorPassthroughFilter, OnTopic, PrepareTopic, type HandlerContext } from '@aoc/bus';
import { Topics, type EnvelopeMeta, type EvidenceBatchPlannedV1, type EvidenceCatalogRequestedV1 } from '@aoc/contracts';
import { Controller, UseFilters } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { DiscoverMetricsHandler } from './discover-metrics/discover-metrics.handler';
import { ExecuteBatchHandler } from './execute-batch/execute-batch.handler';

@Controller()
@UseFilters(BusErrorPassthroughFilter)
export class ProviderExecutorBusController {
  constructor(
    private readonly executeBatch: ExecuteBatchHandler,
    private readonly discoverMetrics: DiscoverMetricsHandler,
  ) {}

  @PrepareTopic(Topics.evidenceCatalogRequested)
  prepareCatalog(@Payload() payload: EvidenceCatalogRequestedV1, @Ctx() _envelope: EnvelopeMeta): Promise<unknown> {
    return this.discoverMetrics.prepare(payload);
  }

  @OnTopic(Topics.evidenceCatalogRequested)
  onCatalogRequested(@Payload() payload: EvidenceCatalogRequestedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.discoverMetrics.handle(payload, ctx);
  }

  @PrepareTopic(Topics.evidenceBatchPlanned)
  prepareBatch(@Payload() payload: EvidenceBatchPlannedV1, @Ctx() envelope: EnvelopeMeta): Promise<unknown> {
    return this.executeBatch.prepare(payload, envelope);
  }

  @OnTopic(Topics.evidenceBatchPlanned)
  onBatchPlanned(@Payload() payload: EvidenceBatchPlannedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.executeBatch.handle(payload, ctx);
  }
}
