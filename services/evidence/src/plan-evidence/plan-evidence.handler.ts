import type { HandlerContext } from '@aoc/bus';
import { Topics, type EvidenceRequestedV1 } from '@aoc/contracts';
import { Injectable } from '@nestjs/common';
import { PlannedBatchEntity } from '../planned-batch.entity';
import { planEvidence } from './plan-evidence';

/** Evidence Agent: sees only the neutral question, plans a bounded batch. */
@Injectable()
export class PlanEvidenceHandler {
  async handle(request: EvidenceRequestedV1, ctx: HandlerContext): Promise<void> {
    const plan = planEvidence(request);
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
