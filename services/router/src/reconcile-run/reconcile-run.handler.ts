import { answerFingerprint } from '@aoc/answers';
import type { HandlerContext } from '@aoc/bus';
import { LocalCausalBriefV1, Topics, type DiagnosisHandoffConsumedV1 } from '@aoc/contracts';
import { Injectable } from '@nestjs/common';
import { RunEntity } from '../persistence/run.entity';
import { ScenarioThreadEntity } from '../persistence/scenario-thread.entity';
import { executionRecord, reconcile, writeFinalResponse, type ConcludedScenario } from './final-response';

/**
 * Router reconciliation + Final Response: once every scenario of the run has a local brief,
 * publish the answer (run.published) and, separately, the execution state (run.execution-recorded).
 */
@Injectable()
export class ReconcileRunHandler {
  async handle(handoff: DiagnosisHandoffConsumedV1, ctx: HandlerContext): Promise<void> {
    if (handoff.outcome !== 'brief') return;
    const run = await ctx.manager.findOneOrFail(RunEntity, { where: { runId: handoff.runId } });
    if (run.status === 'published') return;
    const threads = await ctx.manager.find(ScenarioThreadEntity, { where: { runId: handoff.runId }, order: { scenarioId: 'ASC' } });
    const concluded = threads.filter((t) => t.status === 'concluded' && t.brief);
    if (concluded.length < run.scenarioCount) return;
    const scenarios: ConcludedScenario[] = concluded.map((t) => ({
      scenarioId: t.scenarioId,
      scenario: t.scenario,
      provider: t.provider,
      target: t.target,
      evidenceStatus: t.evidenceStatus,
      brief: LocalCausalBriefV1.parse(t.brief),
    }));
    const diagnosis = reconcile(scenarios);
    const response = writeFinalResponse(run.title, diagnosis, scenarios);
    const fingerprint = answerFingerprint(response.customerReplyMarkdown, response.internalHandoffMarkdown);
    const now = new Date();
    await ctx.manager.update(RunEntity, { runId: run.runId }, { status: 'published', publishedAt: now, answerFingerprint: fingerprint });
    await ctx.publish(Topics.runPublished, {
      runId: run.runId,
      ticketKey: run.ticketKey,
      mode: run.mode,
      trigger: run.trigger as 'initial' | 'bot_assignment' | 'continuation' | 'replay',
      publishedAt: now.toISOString(),
      cutoff: run.cutoff ? run.cutoff.toISOString() : null,
      customerReplyMarkdown: response.customerReplyMarkdown,
      internalHandoffMarkdown: response.internalHandoffMarkdown,
      decision: response.decision,
      answerFingerprint: fingerprint,
      clarificationSimulation: response.clarificationSimulation,
    });
    const records = concluded.map((t) => t.evidenceRecord ?? { provider: t.provider, queries: [], failures: [] });
    await ctx.publish(Topics.runExecutionRecorded, {
      runId: run.runId,
      ticketKey: run.ticketKey,
      recordedAt: now.toISOString(),
      responseGeneration: { status: 'succeeded', engine: 'builtin-skeleton-v1' },
      ...executionRecord(scenarios, records),
    });
  }
}
