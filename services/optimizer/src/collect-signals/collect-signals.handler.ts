import type { HandlerContext } from '@aoc/bus';
import type { EvaluationJudgedV1, RunExecutionRecordedV1 } from '@aoc/contracts';
import { Injectable } from '@nestjs/common';
import { ProblemSignalEntity } from '../problem-signal.entity';
import { qualitySignals, runtimeSignals, type ProblemSignal } from './problem-signals';

@Injectable()
export class CollectSignalsHandler {
  async onExecution(record: RunExecutionRecordedV1, ctx: HandlerContext): Promise<void> {
    await this.save(record.runId, record.ticketKey, runtimeSignals(record), ctx);
  }

  async onJudged(evaluation: EvaluationJudgedV1, ctx: HandlerContext): Promise<void> {
    await this.save(evaluation.runId, evaluation.ticketKey, qualitySignals(evaluation), ctx);
  }

  private async save(runId: string, ticketKey: string, signals: ProblemSignal[], ctx: HandlerContext): Promise<void> {
    for (const [i, s] of signals.entries()) {
      // Deterministic id: a redelivered message cannot add the same signal twice.
      await ctx.manager
        .createQueryBuilder()
        .insert()
        .into(ProblemSignalEntity)
        .values({ signalId: `${runId}:${s.kind}:${i}`, runId, ticketKey, kind: s.kind, detail: s.detail.slice(0, 1000) })
        .orIgnore()
        .execute();
    }
  }
}
