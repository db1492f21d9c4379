import { Bus } from '@aoc/bus';
import { Topics } from '@aoc/contracts';
import { BUS, DATA_SOURCE, LOGGER } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { buildLocalBrief, mergeRounds } from '../conclude-scenario/local-brief';
import { REFINEMENT_RULES } from '../conclude-scenario/refinement-rules';
import { RunEntity } from '../persistence/run.entity';
import { ScenarioThreadEntity, type EvidenceRecord } from '../persistence/scenario-thread.entity';
import type { DeadlineOptions } from '../router-options';
import { ROUTER_DEADLINES } from '../router.tokens';

export const SCENARIO_DEADLINE_CODE = 'DIAGNOSIS.SCENARIO_DEADLINE';

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
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(ROUTER_DEADLINES) private readonly deadlines: DeadlineOptions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.sweep()
        .catch((error: unknown) => {
          this.logger.warn('deadline sweep failed', { error: error instanceof Error ? error.message : String(error) });
          return 0;
        })
        .finally(() => {
          this.running = null;
        });
    }, this.deadlines.sweepMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Concludes every expired open thread; returns how many it ended. */
  async sweep(now: Date = new Date()): Promise<number> {
    const expired: { run_id: string; scenario_id: string }[] = await this.dataSource.query(
      `SELECT "run_id", "scenario_id" FROM "router"."scenario_threads" WHERE "status" <> 'concluded' AND "deadline_at" <= $1 ORDER BY "deadline_at" LIMIT 100`,
      [now],
    );
    let ended = 0;
    for (const row of expired) {
      const done = await this.bus.transaction(async (uow) => {
        const key = { runId: row.run_id, scenarioId: row.scenario_id };
        const thread = await uow.manager.findOne(ScenarioThreadEntity, { where: key, lock: { mode: 'pessimistic_write' } });
        if (!thread || thread.status === 'concluded') return false;
        const run = await uow.manager.findOneOrFail(RunEntity, { where: { runId: row.run_id } });
        const refinement = thread.status === 'refining' ? (REFINEMENT_RULES.find((r) => r.scenario === thread.scenario) ?? null) : null;
        const brief = buildLocalBrief(thread, mergeRounds(thread.rounds), { refinement, deadlinePending: PENDING[thread.status] ?? 'it concluded' });
        const record: EvidenceRecord = thread.evidenceRecord ?? { provider: thread.provider, queries: [], failures: [] };
        const evidenceRecord: EvidenceRecord = {
          ...record,
          failures: [...record.failures, { queryId: '_deadline', code: SCENARIO_DEADLINE_CODE, supplemental: false }],
        };
        await uow.manager.update(ScenarioThreadEntity, key, { status: 'concluded', brief, evidenceRecord, evidenceStatus: thread.rounds.length > 0 ? 'partial' : 'failed' });
        await uow.publish(Topics.diagnosisHandoffConsumed, {
          outcome: 'brief',
          runId: thread.runId,
          ticketKey: run.ticketKey,
          scenarioId: thread.scenarioId,
          batchId: `deadline:${thread.scenarioId}`,
          brief,
        });
        return true;
      });
      if (done) {
        ended += 1;
        this.logger.warn('scenario deadline reached', { runId: row.run_id, scenarioId: row.scenario_id });
      }
    }
    return ended;
  }
}
