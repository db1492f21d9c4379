import type { ModelPort } from '@aoc/agent-runtime';
import { TENANCY, type Tenancy } from '@aoc/auth';
import type { HandlerContext } from '@aoc/bus';
import { Topics, type TicketAnalysisRequestedV1 } from '@aoc/contracts';
import { DATA_SOURCE, LOGGER } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { loadInventories } from '../provider-inventory/inventory.store';
import { RunEntity } from '../persistence/run.entity';
import { ScenarioThreadEntity } from '../persistence/scenario-thread.entity';
import { runDeadline, scenarioDeadline, type DeadlineOptions } from '../router-options';
import { ROUTER_MODEL } from '../router-model';
import { ROUTER_DEADLINES } from '../router.tokens';
import { SCENARIO_CATALOG_VERSION } from './scenario-catalog';
import { parseReportedOnset } from './reported-onset';
import { routeTicket, type Routing } from './scenario-router.agent';
import { visibleText } from './select-scenarios';
import { confineToTenant, tenantInventories } from './tenant-targets';

/**
 * Scenario Router: picks scenarios, entity, absolute window, provider and a reason for each,
 * opens one diagnostic thread per scenario with its deadline, and announces each scenario.
 */
@Injectable()
export class SelectScenariosHandler {
  constructor(
    @Inject(ROUTER_MODEL) private readonly model: ModelPort,
    @Inject(ROUTER_DEADLINES) private readonly deadlines: DeadlineOptions,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(TENANCY) private readonly tenancy: Tenancy,
  ) {}

  /** The model call, outside the handler's transaction; targets resolve against the stored inventories. */
  async prepare(request: TicketAnalysisRequestedV1): Promise<Routing> {
    // A ticket resolves only to its own tenant's targets: another tenant's cluster is never a candidate.
    const inventories = tenantInventories(await loadInventories(this.dataSource.manager), this.tenancy, request.ticketKey);
    return confineToTenant(await routeTicket(this.model, request, inventories), this.tenancy, request.ticketKey);
  }

  async handle(request: TicketAnalysisRequestedV1, ctx: HandlerContext): Promise<void> {
    const now = new Date();
    let run = await ctx.manager.findOne(RunEntity, { where: { runId: request.runId } });
    if (!run) {
      // Requests that did not come through intake (optimizer replays) get their run row here.
      await ctx.manager.insert(RunEntity, {
        runId: request.runId,
        ticketKey: request.ticketKey,
        title: request.ticket.title,
        mode: request.mode,
        trigger: request.trigger,
        cutoff: request.cutoff ? new Date(request.cutoff) : null,
        status: 'requested',
        scenarioCount: 0,
        traceId: null,
        answerFingerprint: null,
        publishedAt: null,
        deadlineAt: runDeadline(now, this.deadlines),
        request,
      });
      run = await ctx.manager.findOneOrFail(RunEntity, { where: { runId: request.runId } });
    }
    if (run.status !== 'requested') return;
    const routing = (ctx.prepared as Routing | undefined) ?? (await this.prepare(request));
    if (routing.engine.includes('fallback')) this.logger.warn('scenario router fell back to the catalog rules', { runId: request.runId, engine: routing.engine });
    const deadlineAt = run.deadlineAt ?? runDeadline(run.createdAt, this.deadlines);
    const targeting = routing.target ? null : { problem: routing.targetProblem, candidates: routing.targetCandidates, tried: routing.targetsTried };
    await ctx.manager.update(RunEntity, { runId: request.runId }, { status: 'diagnosing', scenarioCount: routing.scenarios.length, deadlineAt, targeting });
    const threadDeadline = scenarioDeadline(now, deadlineAt, this.deadlines);
    const onset = parseReportedOnset(visibleText(request), routing.window);
    for (const { playbook, reason } of routing.scenarios) {
      const targetNote = routing.targetProblem ? `; no provider target: ${routing.targetProblem}` : `; target ${routing.target} via ${routing.provider}`;
      const fullReason = `Suspect ${playbook.hypothesis}: ${reason}${targetNote}.`.slice(0, 1000);
      await ctx.manager.insert(ScenarioThreadEntity, {
        runId: request.runId,
        scenarioId: playbook.scenario,
        scenario: playbook.scenario,
        provider: routing.provider,
        target: routing.target,
        hypothesis: fullReason,
        strongestAlternative: playbook.strongestAlternative,
        question: playbook.question,
        stopCondition: playbook.stopCondition,
        window: routing.window,
        reportedOnset: onset ? new Date(onset) : null,
        status: 'selected',
        evidenceStatus: null,
        evidenceRecord: null,
        brief: null,
        round: 0,
        rounds: [],
        deadlineAt: threadDeadline,
      });
      await ctx.publish(Topics.scenarioSelected, {
        runId: request.runId,
        ticketKey: request.ticketKey,
        scenarioId: playbook.scenario,
        scenario: playbook.scenario,
        catalogVersion: SCENARIO_CATALOG_VERSION,
        entity: routing.entity,
        window: routing.window,
        provider: routing.provider,
        target: routing.target,
        reason: fullReason,
      });
    }
  }
}
