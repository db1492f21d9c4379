import type { HandlerContext } from '@aoc/bus';
import { Topics, type EvidenceBatchPlannedV1, type EvidenceCatalogListedV1, type EvidenceRequestedV1 } from '@aoc/contracts';
import type { ModelPort } from '@aoc/agent-runtime';
import { Inject, Injectable } from '@nestjs/common';
import { PlannedBatchEntity } from '../planned-batch.entity';
import { EVIDENCE_MODEL, planEvidenceRound } from './evidence-planner.agent';
import { needsDiscovery, toPlanningCatalog } from './planning-catalog';

/**
 * Evidence Agent: sees only the neutral question, plans a bounded batch (one structural rewrite at
 * most). For providers with metric discovery it first asks the Provider Executor which metrics the
 * frozen target has in the window (a bootstrap step, not an entry of the batch) and plans from
 * that catalogue when it arrives.
 */
@Injectable()
export class PlanEvidenceHandler {
  constructor(@Inject(EVIDENCE_MODEL) private readonly model: ModelPort) {}

  /** The model call, outside the handler's transaction; nothing to prepare when discovery comes first. */
  async prepare(request: EvidenceRequestedV1): Promise<EvidenceBatchPlannedV1 | null> {
    return needsDiscovery(request) ? null : planEvidenceRound(this.model, request, null);
  }

  async handle(request: EvidenceRequestedV1, ctx: HandlerContext): Promise<void> {
    if (needsDiscovery(request)) {
      await ctx.publish(Topics.evidenceCatalogRequested, { runId: request.runId, request });
      return;
    }
    const plan = (ctx.prepared as EvidenceBatchPlannedV1 | null | undefined) ?? (await planEvidenceRound(this.model, request, null));
    await this.publishPlan(plan, ctx);
  }

  prepareFromCatalog(listed: EvidenceCatalogListedV1): Promise<EvidenceBatchPlannedV1> {
    return planEvidenceRound(this.model, listed.request, toPlanningCatalog(listed));
  }

  async handleCatalog(listed: EvidenceCatalogListedV1, ctx: HandlerContext): Promise<void> {
    const plan = (ctx.prepared as EvidenceBatchPlannedV1 | undefined) ?? (await this.prepareFromCatalog(listed));
    await this.publishPlan(plan, ctx);
  }

  private async publishPlan(plan: EvidenceBatchPlannedV1, ctx: HandlerContext): Promise<void> {
    await ctx.manager.insert(PlannedBatchEntity, {
      batchId: plan.batchId,
      runId: plan.runId,
      scenarioId: plan.scenarioId,
      queryCount: plan.queries.length,
      plannerNotes: plan.plannerNotes,
    });
    await ctx.publish(Topics.evidenceBatchPlanned, plan);
  }
}
