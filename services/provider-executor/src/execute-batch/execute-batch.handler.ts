import type { HandlerContext } from '@aoc/bus';
import { Topics, type EnvelopeMeta, type EvidenceBatchPlannedV1 } from '@aoc/contracts';
import { DATA_SOURCE, LOGGER } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { BatchExecutionEntity } from '../batch-execution.entity';
import { LayeredRecordingStore, storeRecordings } from '../evidence-recordings/recording-store';
import { ProviderHttpAttemptEntity, ProviderQueryAttemptEntity, ProviderQueryEventEntity, ProviderSystemEventEntity, ToolCallEntity } from '../persistence/execution-records.entities';
import { EXECUTOR_OPTIONS, PROVIDER_REGISTRY } from '../providers/tokens';
import type { ExecutorOptions } from '../providers/executor-options';
import type { ProviderRegistry } from '../providers/provider-registry';
import { executePlan, type ExecutionOutcome } from './execute-batch';

/** Provider Executor (not an agent): runs a planned batch and materialises compact facts. */
@Injectable()
export class ExecuteBatchHandler {
  private readonly recordings: LayeredRecordingStore;
  /** Test only (AOC_TEST_PROVIDER_DELAY_MS): the stall still to come, spent by the first batch. */
  private testDelayMs: number;

  constructor(
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(PROVIDER_REGISTRY) private readonly registry: ProviderRegistry,
    @Inject(EXECUTOR_OPTIONS) private readonly options: ExecutorOptions,
    @Optional() @Inject(LOGGER) private readonly logger?: Logger,
  ) {
    this.recordings = new LayeredRecordingStore(options.recordings, dataSource);
    this.testDelayMs = options.testDelayMs ?? 0;
  }

  /** Network work, outside any transaction (the bus runs it before the handler's transaction). */
  async prepare(plan: EvidenceBatchPlannedV1, _envelope: EnvelopeMeta): Promise<ExecutionOutcome> {
    if (this.testDelayMs > 0) {
      const ms = this.testDelayMs;
      this.testDelayMs = 0;
      this.logger?.warn('test-only provider delay: stalling this batch', { batchId: plan.batchId, runId: plan.runId, delayMs: ms });
      await new Promise((resolve) => setTimeout(resolve, ms));
      this.logger?.warn('test-only provider delay: done', { batchId: plan.batchId, runId: plan.runId, delayMs: ms });
    }
    const prior = await this.dataSource.manager.find(ProviderQueryAttemptEntity, { where: { requestId: plan.requestId }, order: { id: 'ASC' } });
    return executePlan(plan, {
      registry: this.registry,
      mode: this.options.mode,
      recordings: this.recordings,
      ...(this.options.recording ? { recording: this.options.recording } : {}),
      priorAttempts: prior.map((p) => ({ queryId: p.queryId, expressionHash: p.expressionHash, attempt: p.attempt, outcome: p.outcome, errorCode: p.errorCode, detailError: p.detailError })),
    });
  }

  async handle(plan: EvidenceBatchPlannedV1, ctx: HandlerContext): Promise<void> {
    const outcome = (ctx.prepared as ExecutionOutcome | undefined) ?? (await this.prepare(plan, ctx.envelope));
    const { materialized } = outcome;
    const m = ctx.manager;
    const at = new Date();
    await m.insert(BatchExecutionEntity, { batchId: plan.batchId, runId: plan.runId, scenarioId: plan.scenarioId, provider: plan.provider, status: materialized.status, queryCount: plan.queries.length });
    for (const a of outcome.attempts) {
      await m.insert(ProviderQueryAttemptEntity, { batchId: plan.batchId, requestId: plan.requestId, runId: plan.runId, queryId: a.queryId, expressionHash: a.expressionHash, attempt: a.attempt, outcome: a.outcome, errorCode: a.errorCode, detailError: a.detailError, folded: a.folded, at });
    }
    for (const e of materialized.execution.queryEvents) {
      await m.insert(ProviderQueryEventEntity, { batchId: plan.batchId, queryId: e.queryId, runId: plan.runId, provider: plan.provider, outcome: e.outcome, supplemental: e.supplemental, at: new Date(e.at) });
    }
    for (const h of materialized.execution.httpAttempts) {
      await m.insert(ProviderHttpAttemptEntity, { batchId: plan.batchId, queryId: h.queryId, provider: plan.provider, statusClass: h.statusClass, at: new Date(h.at) });
    }
    for (const s of materialized.execution.systemEvents) {
      await m.insert(ProviderSystemEventEntity, { batchId: plan.batchId, queryId: s.queryId, provider: plan.provider, statusSequence: s.statusSequence, result: s.result, upstreamError: s.upstreamError, requestId: s.requestId, at: new Date(s.at) });
    }
    for (const c of materialized.execution.toolCalls) {
      await m.insert(ToolCallEntity, {
        callId: c.callId,
        batchId: plan.batchId,
        runId: plan.runId,
        provider: plan.provider,
        tool: c.tool,
        operations: c.operations,
        target: c.target,
        windowFrom: c.window ? new Date(c.window.from) : null,
        windowTo: c.window ? new Date(c.window.to) : null,
        outcome: c.outcome,
        errorCode: c.errorCode,
        durationMs: c.durationMs,
        outputBytes: c.outputBytes,
        startedAt: new Date(c.startedAt),
      });
    }
    // The evidence of every live run is kept (within the caps) so its ticket replays as a frozen case.
    await storeRecordings(m, outcome.newRecordings, at, plan.runId, this.options.recording);
    await ctx.publish(Topics.evidenceBatchMaterialized, materialized);
  }
}
