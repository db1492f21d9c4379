import type { HandlerContext } from '@aoc/bus';
import { Topics, type EvidenceBatchPlannedV1, type EvidenceRequestedV1 } from '@aoc/contracts';
import type { ModelPort } from '@aoc/agent-runtime';
import { Inject, Injectable } from '@nestjs/common';
import { PlannedBatchEntity } from '../planned-batch.entity';
import { EVIDENCE_MODEL, planEvidenceRound } from './evidence-planner.agent';

/** Evidence Agent: sees only the neutral question, plans a bounded batch (one structural rewrite at most). */
@Injectable()
export class PlanEvidenceHandler {
  constructor(@Inject(EVIDENCE_MODEL) private readonly model: ModelPort) {}

  /** The model call, outside the handler's transaction. */
  prepare(request: EvidenceRequestedV1): Promise<EvidenceBatchPlannedV1> {
    return planEvidenceRound(this.model, request);
  }

  async handle(request: EvidenceRequestedV1, ctx: HandlerContext): Promise<void> {
    const plan = (ctx.prepared as EvidenceBatchPlannedV1 | undefined) ?? (await this.prepare(request));
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
