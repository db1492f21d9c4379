import { BusErrorPassthroughFilter, OnTopic, PrepareTopic, type HandlerContext } from '@aoc/bus';
import { Topics, type EnvelopeMeta, type EvidenceCatalogListedV1, type EvidenceRequestedV1 } from '@aoc/contracts';
import { Controller, UseFilters } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { PlanEvidenceHandler } from './plan-evidence/plan-evidence.handler';

@Controller()
@UseFilters(BusErrorPassthroughFilter)
export class EvidenceBusController {
  constructor(private readonly planEvidence: PlanEvidenceHandler) {}

  @PrepareTopic(Topics.evidenceRequested)
  prepareEvidenceRequested(@Payload() payload: EvidenceRequestedV1, @Ctx() _envelope: EnvelopeMeta): Promise<unknown> {
    return this.planEvidence.prepare(payload);
  }

  @OnTopic(Topics.evidenceRequested)
  onEvidenceRequested(@Payload() payload: EvidenceRequestedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.planEvidence.handle(payload, ctx);
  }

  @PrepareTopic(Topics.evidenceCatalogListed)
  prepareCatalogListed(@Payload() payload: EvidenceCatalogListedV1, @Ctx() _envelope: EnvelopeMeta): Promise<unknown> {
    return this.planEvidence.prepareFromCatalog(payload);
  }

  @OnTopic(Topics.evidenceCatalogListed)
  onCatalogListed(@Payload() payload: EvidenceCatalogListedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.planEvidence.handleCatalog(payload, ctx);
  }
}
