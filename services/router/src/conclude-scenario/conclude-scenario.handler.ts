import type { HandlerContext } from '@aoc/bus';
import { Topics, type EvidenceBatchMaterializedV1 } from '@aoc/contracts';
import { PermanentError } from '@aoc/errors';
import { Injectable } from '@nestjs/common';
import { RunEntity } from '../persistence/run.entity';
import { ScenarioThreadEntity } from '../persistence/scenario-thread.entity';
import { buildLocalBrief } from './local-brief';

/** Scenario Diagnostic Agent, second turn: consumes the handoff and concludes a local brief. */
@Injectable()
export class ConcludeScenarioHandler {
  async handle(batch: EvidenceBatchMaterializedV1, ctx: HandlerContext): Promise<void> {
    const thread = await ctx.manager.findOne(ScenarioThreadEntity, { where: { runId: batch.runId, scenarioId: batch.scenarioId } });
    if (!thread) throw new PermanentError('DIAGNOSIS.THREAD_NOT_FOUND', `no diagnostic thread for ${batch.runId}/${batch.scenarioId}`, { runId: batch.runId });
    if (thread.status === 'concluded') return;
    const run = await ctx.manager.findOneOrFail(RunEntity, { where: { runId: batch.runId } });
    const brief = buildLocalBrief(thread, batch);
    await ctx.manager.update(
      ScenarioThreadEntity,
      { runId: batch.runId, scenarioId: batch.scenarioId },
      {
        status: 'concluded',
        evidenceStatus: batch.status,
        evidenceRecord: { queries: batch.queries, failures: batch.failures.map((f) => ({ queryId: f.queryId, code: f.code, supplemental: f.supplemental })), provider: batch.provider, execution: batch.execution },
        brief,
      },
    );
    await ctx.publish(Topics.diagnosisHandoffConsumed, {
      outcome: 'brief',
      runId: batch.runId,
      ticketKey: run.ticketKey,
      scenarioId: batch.scenarioId,
      batchId: batch.batchId,
      brief,
    });
  }
}
