import { Bus } from '@aoc/bus';
import { TicketAnalysisRequestedV1, Topics } from '@aoc/contracts';
import { errorCodeOf } from '@aoc/errors';
import { BUS, DATA_SOURCE, LOGGER, PeriodicTask } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { buildLocalBrief, mergeRounds } from '../conclude-scenario/local-brief';
import { REFINEMENT_RULES } from '../conclude-scenario/refinement-rules';
import { RunEntity } from '../persistence/run.entity';
import { ScenarioThreadEntity, type EvidenceRecord } from '../persistence/scenario-thread.entity';
import { GENERAL_HEALTH } from '../select-scenarios/scenario-catalog';
import { loadInventories } from '../provider-inventory/inventory.store';
import { resolveAgainstInventory } from '../select-scenarios/resolve-target';
import { BUILTIN_ROUTER_MODEL, builtinRoute, guardRouting, routerInput } from '../select-scenarios/scenario-router.agent';
import { visibleText } from '../select-scenarios/select-scenarios';
import type { DeadlineOptions } from '../router-options';
import { ROUTER_DEADLINES } from '../router.tokens';

export const SCENARIO_DEADLINE_CODE = 'DIAGNOSIS.SCENARIO_DEADLINE';

const DEADLINE_FAILURE = { queryId: '_deadline', code: SCENARIO_DEADLINE_CODE, supplemental: false };
const RETRIGGER_EVERY_MS = 60_000;

const PENDING: Record<string, string> = {
  selected: 'its evidence question was asked',
  asked: 'its evidence round was materialised',
  refining: 'its refinement round was materialised',
};

/**
 * Ends scenario threads whose deadline passed: the thread concludes from the facts it already
 * consumed plus a bounded failure (no new agent turn, no format repair, nothing promoted), so the
 * run still publishes inside the shared deadline with the publication reserve intact. A batch
 * that arrives later finds the thread concluded and changes nothing.
 */
@Injectable()
export class DeadlineSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly retriggered = new Map<string, number>();
  private readonly task: PeriodicTask;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(ROUTER_DEADLINES) private readonly deadlines: DeadlineOptions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.task = new PeriodicTask('deadline sweep', logger);
  }

  onApplicationBootstrap(): void {
    this.task.start(this.deadlines.sweepMs, () => this.sweep());
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** Concludes every expired open thread, then answers runs that passed their diagnosis deadline; returns how many threads it ended. */
  async sweep(now: Date = new Date()): Promise<number> {
    const expired: { run_id: string; scenario_id: string }[] = await this.dataSource.query(
      `SELECT "run_id", "scenario_id" FROM "router"."scenario_threads" WHERE "status" <> 'concluded' AND "deadline_at" <= $1 ORDER BY "deadline_at" LIMIT 100`,
      [now],
    );
    let ended = 0;
    for (const row of expired) {
      // One bad row must not block the others behind it.
      try {
        if (await this.concludeThread(row.run_id, row.scenario_id)) {
          ended += 1;
          this.logger.warn('scenario deadline reached', { runId: row.run_id, scenarioId: row.scenario_id });
        }
      } catch (error) {
        this.logger.warn('could not end an expired scenario thread', { runId: row.run_id, scenarioId: row.scenario_id, error: errorCodeOf(error, 'DIAGNOSIS.SWEEP_FAILED') });
      }
    }
    const diagnosisEnd = new Date(now.getTime() + this.deadlines.publicationReserveMs);
    const stuck: { run_id: string; status: string }[] = await this.dataSource.query(
      `SELECT "run_id", "status" FROM "router"."runs" WHERE "status" IN ('requested', 'diagnosing') AND "deadline_at" <= $1 ORDER BY "deadline_at" LIMIT 50`,
      [diagnosisEnd],
    );
    for (const row of stuck) {
      try {
        if (row.status === 'requested') await this.answerUnrouted(row.run_id);
        else await this.retriggerReconciliation(row.run_id, now);
      } catch (error) {
        this.logger.warn('could not finish a run past its diagnosis deadline', { runId: row.run_id, error: errorCodeOf(error, 'DIAGNOSIS.SWEEP_FAILED') });
      }
    }
    return ended;
  }

  private concludeThread(runId: string, scenarioId: string): Promise<boolean> {
    return this.bus.transaction(async (uow) => {
      const key = { runId, scenarioId };
      const thread = await uow.manager.findOne(ScenarioThreadEntity, { where: key, lock: { mode: 'pessimistic_write' } });
      if (!thread || thread.status === 'concluded') return false;
      const run = await uow.manager.findOneOrFail(RunEntity, { where: { runId } });
      const refinement = thread.status === 'refining' ? (REFINEMENT_RULES.find((r) => r.scenario === thread.scenario) ?? null) : null;
      const view = refinement && thread.rounds[0] ? mergeRounds([thread.rounds[0]]) : mergeRounds(thread.rounds);
      const brief = buildLocalBrief(thread, view, { refinement, deadlinePending: PENDING[thread.status] ?? 'it concluded' });
      const record: EvidenceRecord = thread.evidenceRecord ?? { provider: thread.provider, queries: [], failures: [] };
      const evidenceRecord: EvidenceRecord = { ...record, failures: [...record.failures, DEADLINE_FAILURE] };
      await uow.manager.update(ScenarioThreadEntity, key, { status: 'concluded', brief, evidenceRecord, evidenceStatus: thread.rounds.length > 0 ? 'partial' : 'failed' });
      await uow.publish(Topics.diagnosisHandoffConsumed, { outcome: 'brief', runId, ticketKey: run.ticketKey, scenarioId, batchId: `deadline:${scenarioId}`, brief });
      return true;
    });
  }

  /**
   * A run whose routing never happened (its request dead-lettered, say) still gets an answer at
   * its deadline: the catalog rules pick its scenarios, each concludes at once with nothing
   * materialised, and reconciliation hands the ticket to Support saying so.
   */
  private answerUnrouted(runId: string): Promise<void> {
    return this.bus.transaction(async (uow) => {
      const run = await uow.manager.findOne(RunEntity, { where: { runId }, lock: { mode: 'pessimistic_write' } });
      if (!run || run.status !== 'requested') return;
      const request = TicketAnalysisRequestedV1.safeParse(run.request);
      const found = request.success ? resolveAgainstInventory(visibleText(request.data), await loadInventories(uow.manager)) : null;
      const routing = request.success && found ? guardRouting(request.data, builtinRoute(routerInput(request.data, found)), BUILTIN_ROUTER_MODEL, found) : null;
      const playbooks = routing ? routing.scenarios.map((s) => s.playbook) : [GENERAL_HEALTH];
      await uow.manager.update(RunEntity, { runId }, { status: 'diagnosing', scenarioCount: playbooks.length });
      for (const playbook of playbooks) {
        const thread = { scenario: playbook.scenario, hypothesis: playbook.hypothesis, strongestAlternative: playbook.strongestAlternative };
        const brief = buildLocalBrief(thread, mergeRounds([]), { deadlinePending: 'its scenarios were selected' });
        await uow.manager.insert(ScenarioThreadEntity, {
          runId,
          scenarioId: playbook.scenario,
          scenario: playbook.scenario,
          provider: routing?.provider ?? 'none',
          target: routing?.target ?? null,
          hypothesis: playbook.hypothesis,
          strongestAlternative: playbook.strongestAlternative,
          question: playbook.question,
          stopCondition: playbook.stopCondition,
          window: routing?.window ?? null,
          status: 'concluded',
          evidenceStatus: 'failed',
          evidenceRecord: { provider: routing?.provider ?? 'none', queries: [], failures: [DEADLINE_FAILURE] },
          brief,
          round: 0,
          rounds: [],
          deadlineAt: run.deadlineAt,
        });
        await uow.publish(Topics.diagnosisHandoffConsumed, { outcome: 'brief', runId, ticketKey: run.ticketKey, scenarioId: playbook.scenario, batchId: `deadline:${playbook.scenario}`, brief });
      }
      this.logger.warn('run answered at its deadline without routing', { runId });
    });
  }

  /** Every thread concluded but nothing was published (reconciliation dead-lettered): ask again, at most once a minute. */
  private async retriggerReconciliation(runId: string, now: Date): Promise<void> {
    const last = this.retriggered.get(runId);
    if (last !== undefined && now.getTime() - last < RETRIGGER_EVERY_MS) return;
    await this.bus.transaction(async (uow) => {
      const run = await uow.manager.findOne(RunEntity, { where: { runId } });
      if (!run || run.status !== 'diagnosing') return;
      const threads = await uow.manager.find(ScenarioThreadEntity, { where: { runId }, order: { scenarioId: 'ASC' } });
      const concluded = threads.filter((t) => t.status === 'concluded' && t.brief);
      const lastThread = concluded.at(-1);
      if (!lastThread?.brief || concluded.length < run.scenarioCount) return;
      this.retriggered.set(runId, now.getTime());
      await uow.publish(Topics.diagnosisHandoffConsumed, { outcome: 'brief', runId, ticketKey: run.ticketKey, scenarioId: lastThread.scenarioId, batchId: `retry:${lastThread.scenarioId}`, brief: lastThread.brief });
      this.logger.warn('reconciliation asked again after the diagnosis deadline', { runId });
    });
  }
}
