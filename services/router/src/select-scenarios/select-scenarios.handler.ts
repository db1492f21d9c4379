import { Topics, type TicketAnalysisRequestedV1 } from '@aoc/contracts';
import type { HandlerContext } from '@aoc/bus';
import { Injectable } from '@nestjs/common';
import { RunEntity } from '../persistence/run.entity';
import { SCENARIO_CATALOG_VERSION } from './scenario-catalog';
import { selectScenarios } from './select-scenarios';

/** Scenario Router: picks scenarios, entity, absolute window, provider and a reason for each. */
@Injectable()
export class SelectScenariosHandler {
  async handle(request: TicketAnalysisRequestedV1, ctx: HandlerContext): Promise<void> {
    const selection = selectScenarios(request);
    await ctx.manager.update(RunEntity, { runId: request.runId }, { status: 'diagnosing', scenarioCount: selection.scenarios.length });
    for (const { playbook, matchedSignals } of selection.scenarios) {
      const why = matchedSignals.length > 0 ? `the ticket mentions ${matchedSignals.map((s) => `"${s}"`).join(', ')}` : 'no specific symptom matched the catalog';
      const targetNote = selection.targetProblem ? `; no provider target: ${selection.targetProblem}` : `; target cluster ${selection.target}`;
      await ctx.publish(Topics.scenarioSelected, {
        runId: request.runId,
        ticketKey: request.ticketKey,
        scenarioId: playbook.scenario,
        scenario: playbook.scenario,
        catalogVersion: SCENARIO_CATALOG_VERSION,
        entity: selection.entity,
        window: selection.window,
        provider: selection.provider,
        target: selection.target,
        reason: `Suspect ${playbook.hypothesis}: ${why}${targetNote}.`,
      });
    }
  }
}
