import { answerFingerprint } from '@aoc/answers';
import type { ModelPort } from '@aoc/agent-runtime';
import { TENANCY, type Tenancy } from '@aoc/auth';
import type { HandlerContext } from '@aoc/bus';
import { LocalCausalBriefV1, Topics, type DiagnosisHandoffConsumedV1 } from '@aoc/contracts';
import { DATA_SOURCE } from '@aoc/service-host';
import { dataVersion, loadManifest } from '@aoc/versioned-data';
import { pipelineMetrics } from '@aoc/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { SCENARIO_DEADLINE_CODE } from '../deadlines/deadline-sweeper';
import { RunEntity, type PublishedAnswer } from '../persistence/run.entity';
import { ScenarioThreadEntity } from '../persistence/scenario-thread.entity';
import { ROUTER_MODEL } from '../router-model';
import { executionRecord, reconcile, type ConcludedScenario } from './final-response';
import { writeResponse, type WrittenResponse } from './final-response.agent';

interface Ready {
  run: RunEntity;
  threads: ScenarioThreadEntity[];
  scenarios: ConcludedScenario[];
}

interface PreparedPublication {
  /** Scenario ids and their briefs' batches the response was written from. */
  basis: string;
  response: WrittenResponse;
  fingerprint: string;
}

const basisOf = (threads: readonly ScenarioThreadEntity[]) => threads.map((t) => `${t.scenarioId}@${t.rounds.map((r) => r.batchId).join('+')}`).join(',');

/**
 * Router reconciliation + Final Response: once every scenario of the run has a local brief,
 * write the two messages (model port; decision by the router's rules), then publish the answer
 * (run.published) and, separately, the execution state (run.execution-recorded). Write mode
 * writes the published answer back to the ticket afterwards (WriteBackHandler).
 */
@Injectable()
export class ReconcileRunHandler {
  constructor(
    @Inject(ROUTER_MODEL) private readonly model: ModelPort,
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(TENANCY) private readonly tenancy: Tenancy,
  ) {}

  private async ready(manager: EntityManager, runId: string, lock: boolean): Promise<Ready | null> {
    const run = await manager.findOne(RunEntity, { where: { runId }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!run || run.status === 'published') return null;
    const threads = await manager.find(ScenarioThreadEntity, { where: { runId }, order: { scenarioId: 'ASC' } });
    const concluded = threads.filter((t) => t.status === 'concluded' && t.brief);
    if (concluded.length === 0 || concluded.length < run.scenarioCount) return null;
    const scenarios: ConcludedScenario[] = concluded.map((t) => ({
      scenarioId: t.scenarioId,
      scenario: t.scenario,
      provider: t.provider,
      target: t.target,
      evidenceStatus: t.evidenceStatus,
      brief: LocalCausalBriefV1.parse(t.brief),
    }));
    return { run, threads: concluded, scenarios };
  }

  /** Network work (model, ticket source) before the transaction; the handler re-checks its basis. */
  async prepare(handoff: DiagnosisHandoffConsumedV1): Promise<PreparedPublication | null> {
    if (handoff.outcome !== 'brief') return null;
    const ready = await this.ready(this.dataSource.manager, handoff.runId, false);
    return ready ? this.publication(ready) : null;
  }

  private async publication({ run, threads, scenarios }: Ready): Promise<PreparedPublication> {
    const response = await writeResponse(this.model, run.title, reconcile(scenarios, run.targeting, run.title), scenarios);
    const fingerprint = answerFingerprint(response.customerReplyMarkdown, response.internalHandoffMarkdown);
    return { basis: basisOf(threads), response, fingerprint };
  }

  async handle(handoff: DiagnosisHandoffConsumedV1, ctx: HandlerContext): Promise<void> {
    if (handoff.outcome !== 'brief') return;
    const ready = await this.ready(ctx.manager, handoff.runId, true);
    if (!ready) return;
    const { run, threads, scenarios } = ready;
    const prepared = ctx.prepared as PreparedPublication | null | undefined;
    const { response, fingerprint } = prepared && prepared.basis === basisOf(threads) ? prepared : await this.publication(ready);
    const now = new Date();
    const answer: PublishedAnswer = { customerReplyMarkdown: response.customerReplyMarkdown, internalHandoffMarkdown: response.internalHandoffMarkdown, decision: response.decision, answerFingerprint: fingerprint };
    await ctx.manager.update(RunEntity, { runId: run.runId }, { status: 'published', publishedAt: now, answerFingerprint: fingerprint, decision: response.decision, answer });
    await ctx.publish(Topics.runPublished, {
      runId: run.runId,
      ticketKey: run.ticketKey,
      // Owned by the tenant of the ticket's project (intake refused tickets no tenant owns).
      tenant: this.tenancy.tenantOfTicket(run.ticketKey),
      mode: run.mode,
      trigger: run.trigger as 'initial' | 'bot_assignment' | 'continuation' | 'replay',
      publishedAt: now.toISOString(),
      cutoff: run.cutoff ? run.cutoff.toISOString() : null,
      customerReplyMarkdown: response.customerReplyMarkdown,
      internalHandoffMarkdown: response.internalHandoffMarkdown,
      decision: response.decision,
      answerFingerprint: fingerprint,
      // Read now, as this process resolves its data (overlay included): a deployment of new data shows on the next answer.
      dataVersion: dataVersion(loadManifest()),
      clarificationSimulation: response.clarificationSimulation,
    });
    pipelineMetrics.runsPublished.add({ decision: response.decision });
    const records = threads.map((t) => t.evidenceRecord ?? { provider: t.provider, queries: [], failures: [] });
    const deadlineHit = records.some((r) => r.failures.some((f) => f.code === SCENARIO_DEADLINE_CODE));
    await ctx.publish(Topics.runExecutionRecorded, {
      runId: run.runId,
      ticketKey: run.ticketKey,
      recordedAt: now.toISOString(),
      responseGeneration: { status: response.status === 'fallback' ? 'failed' : deadlineHit ? 'deadline_exceeded' : 'succeeded', engine: response.engine.slice(0, 64) },
      ...executionRecord(scenarios, records),
    });
  }
}
