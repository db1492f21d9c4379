import type { ModelPort } from '@aoc/agent-runtime';
import type { HandlerContext } from '@aoc/bus';
import { Topics, type EvidenceBatchMaterializedV1 } from '@aoc/contracts';
import { PermanentError } from '@aoc/errors';
import { DATA_SOURCE, LOGGER } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { RunEntity } from '../persistence/run.entity';
import { ScenarioThreadEntity } from '../persistence/scenario-thread.entity';
import { ROUTER_MODEL } from '../router-model';
import { diagnoseTurn, type DiagnosticStep } from './diagnostic.agent';
import { diagnosticInput, evidenceRequestId, mergeRecord, scenarioStatus, toRound } from './evidence-rounds';
import { priorDailyWindows } from './refinement-rules';

interface PreparedTurn {
  batchId: string;
  round: number;
  step: DiagnosticStep;
}

/**
 * Scenario Diagnostic Agent, later turns: consumes each materialised handoff in the same thread,
 * then concludes a local brief or asks its single adaptive refinement.
 */
@Injectable()
export class ConcludeScenarioHandler {
  constructor(
    @Inject(ROUTER_MODEL) private readonly model: ModelPort,
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The model call, outside the handler's transaction (re-checked against the thread in it). */
  async prepare(batch: EvidenceBatchMaterializedV1): Promise<PreparedTurn | null> {
    const thread = await this.dataSource.manager.findOne(ScenarioThreadEntity, { where: { runId: batch.runId, scenarioId: batch.scenarioId } });
    if (!thread || thread.status === 'concluded' || thread.rounds.some((r) => r.batchId === batch.batchId)) return null;
    return this.turn(thread, batch);
  }

  private async turn(thread: ScenarioThreadEntity, batch: EvidenceBatchMaterializedV1): Promise<PreparedTurn> {
    const rounds = [...thread.rounds, toRound(batch, thread.round, thread.question)];
    return { batchId: batch.batchId, round: thread.round, step: await diagnoseTurn(this.model, diagnosticInput(thread, rounds)) };
  }

  async handle(batch: EvidenceBatchMaterializedV1, ctx: HandlerContext): Promise<void> {
    const key = { runId: batch.runId, scenarioId: batch.scenarioId };
    const thread = await ctx.manager.findOne(ScenarioThreadEntity, { where: key, lock: { mode: 'pessimistic_write' } });
    if (!thread) throw new PermanentError('DIAGNOSIS.THREAD_NOT_FOUND', `no diagnostic thread for ${batch.runId}/${batch.scenarioId}`, { runId: batch.runId });
    // Concluded (possibly by its deadline) or already consumed: a late or repeated batch changes nothing.
    if (thread.status === 'concluded' || thread.rounds.some((r) => r.batchId === batch.batchId)) return;
    const run = await ctx.manager.findOneOrFail(RunEntity, { where: { runId: batch.runId } });
    const prepared = ctx.prepared as PreparedTurn | null | undefined;
    const turn = prepared && prepared.batchId === batch.batchId && prepared.round === thread.round ? prepared : await this.turn(thread, batch);
    const rounds = [...thread.rounds, toRound(batch, thread.round, thread.question)];
    const evidenceRecord = mergeRecord(thread.evidenceRecord, batch);
    const step = turn.step;
    if (step.engine.includes('fallback')) this.logger.warn('diagnostic agent fell back to the built-in rules', { runId: batch.runId, scenarioId: batch.scenarioId, engine: step.engine });
    if (step.decision === 'refine' && thread.window) {
      await ctx.manager.update(ScenarioThreadEntity, key, {
        status: 'refining',
        round: 1,
        rounds,
        question: step.question,
        stopCondition: step.stopCondition,
        evidenceStatus: scenarioStatus(rounds, evidenceRecord),
        evidenceRecord,
      });
      await ctx.publish(Topics.diagnosisHandoffConsumed, { outcome: 'refinement', runId: batch.runId, ticketKey: run.ticketKey, scenarioId: batch.scenarioId, batchId: batch.batchId, refinementQuestion: step.question });
      await ctx.publish(Topics.evidenceRequested, {
        runId: batch.runId,
        ticketKey: run.ticketKey,
        scenarioId: batch.scenarioId,
        requestId: evidenceRequestId(batch.runId, batch.scenarioId, 1),
        question: step.question,
        stopCondition: step.stopCondition,
        provider: thread.provider as EvidenceBatchMaterializedV1['provider'],
        target: thread.target,
        window: thread.window,
        refinement: true,
        ...(step.kind === 'prior_7_daily_same_clock' ? { comparison: { kind: step.kind, windows: priorDailyWindows(thread.window) } } : {}),
      });
      return;
    }
    if (step.decision !== 'conclude') throw new PermanentError('DIAGNOSIS.PROTOCOL', 'a refinement needs the thread window', { runId: batch.runId });
    await ctx.manager.update(ScenarioThreadEntity, key, { status: 'concluded', rounds, evidenceStatus: scenarioStatus(rounds, evidenceRecord), evidenceRecord, brief: step.brief });
    await ctx.publish(Topics.diagnosisHandoffConsumed, { outcome: 'brief', runId: batch.runId, ticketKey: run.ticketKey, scenarioId: batch.scenarioId, batchId: batch.batchId, brief: step.brief });
  }
}
