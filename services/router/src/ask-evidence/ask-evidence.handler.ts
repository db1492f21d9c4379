import type { HandlerContext } from '@aoc/bus';
import { Topics, type ScenarioSelectedV1 } from '@aoc/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { ScenarioThreadEntity } from '../persistence/scenario-thread.entity';
import type { DeadlineOptions } from '../router-options';
import { ROUTER_DEADLINES } from '../router.tokens';
import { evidenceRequestId } from '../conclude-scenario/evidence-rounds';
import { GENERAL_HEALTH, SCENARIO_CATALOG } from '../select-scenarios/scenario-catalog';

/**
 * Scenario Diagnostic Agent, first turn: keeps the router's reason as a hypothesis in its own
 * thread, names the strongest alternative, and asks one neutral question. The question and stop
 * condition come from the playbook and never carry the reason.
 */
@Injectable()
export class AskEvidenceHandler {
  constructor(@Inject(ROUTER_DEADLINES) private readonly deadlines: DeadlineOptions) {}

  async handle(selected: ScenarioSelectedV1, ctx: HandlerContext): Promise<void> {
    const playbook = SCENARIO_CATALOG.find((p) => p.scenario === selected.scenario) ?? GENERAL_HEALTH;
    const thread = await ctx.manager.findOne(ScenarioThreadEntity, { where: { runId: selected.runId, scenarioId: selected.scenarioId }, lock: { mode: 'pessimistic_write' } });
    // Already asked, or concluded by its deadline before this turn ran.
    if (thread && thread.status !== 'selected') return;
    if (!thread) {
      await ctx.manager.insert(ScenarioThreadEntity, {
        runId: selected.runId,
        scenarioId: selected.scenarioId,
        scenario: selected.scenario,
        provider: selected.provider,
        target: selected.target,
        hypothesis: selected.reason,
        strongestAlternative: playbook.strongestAlternative,
        question: playbook.question,
        stopCondition: playbook.stopCondition,
        window: selected.window,
        status: 'asked',
        evidenceStatus: null,
        evidenceRecord: null,
        brief: null,
        round: 0,
        rounds: [],
        deadlineAt: new Date(Date.now() + this.deadlines.scenarioMs),
      });
    } else {
      await ctx.manager.update(ScenarioThreadEntity, { runId: selected.runId, scenarioId: selected.scenarioId }, { status: 'asked' });
    }
    await ctx.publish(Topics.evidenceRequested, {
      runId: selected.runId,
      ticketKey: selected.ticketKey,
      scenarioId: selected.scenarioId,
      requestId: evidenceRequestId(selected.runId, selected.scenarioId, 0),
      question: playbook.question,
      stopCondition: playbook.stopCondition,
      provider: selected.provider,
      target: selected.target,
      window: selected.window,
      refinement: false,
    });
  }
}
