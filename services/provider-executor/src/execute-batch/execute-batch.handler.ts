import type { HandlerContext } from '@aoc/bus';
import { Topics, type EvidenceBatchPlannedV1 } from '@aoc/contracts';
import { Injectable } from '@nestjs/common';
import { BatchExecutionEntity } from '../batch-execution.entity';
import { executeBatch } from './execute-batch';

/** Provider Executor (not an agent): runs a planned batch and materialises compact facts. */
@Injectable()
export class ExecuteBatchHandler {
  async handle(plan: EvidenceBatchPlannedV1, ctx: HandlerContext): Promise<void> {
    const result = executeBatch(plan);
    await ctx.manager.insert(BatchExecutionEntity, {
      batchId: plan.batchId,
      runId: plan.runId,
      scenarioId: plan.scenarioId,
      provider: plan.provider,
      status: result.status,
      queryCount: plan.queries.length,
    });
    await ctx.publish(Topics.evidenceBatchMaterialized, result);
  }
}
