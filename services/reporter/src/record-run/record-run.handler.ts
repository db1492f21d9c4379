import type { HandlerContext } from '@aoc/bus';
import type { EvaluationJudgedV1, RunExecutionRecordedV1, RunPublishedV1 } from '@aoc/contracts';
import { Injectable } from '@nestjs/common';
import { PublishedRunEntity, ReportedEvaluationEntity, RunExecutionEntity } from '../reporter.entities';

/** Records what reports are computed from; each topic may arrive in any order. */
@Injectable()
export class RecordRunHandler {
  async onPublished(run: RunPublishedV1, ctx: HandlerContext): Promise<void> {
    await ctx.manager.upsert(
      PublishedRunEntity,
      {
        runId: run.runId,
        ticketKey: run.ticketKey,
        trigger: run.trigger,
        decision: run.decision,
        answerFingerprint: run.answerFingerprint,
        publishedAt: new Date(run.publishedAt),
        customerReply: run.customerReplyMarkdown,
        internalHandoff: run.internalHandoffMarkdown,
      },
      ['runId'],
    );
  }

  async onExecution(record: RunExecutionRecordedV1, ctx: HandlerContext): Promise<void> {
    await ctx.manager.upsert(
      RunExecutionEntity,
      { runId: record.runId, evidenceStatus: record.evidenceAcquisition.status, responseStatus: record.responseGeneration.status, failureCodes: record.failureCodes },
      ['runId'],
    );
  }

  async onJudged(evaluation: EvaluationJudgedV1, ctx: HandlerContext): Promise<void> {
    await ctx.manager.upsert(
      ReportedEvaluationEntity,
      {
        evaluationId: evaluation.evaluationId,
        runId: evaluation.runId,
        verdict: evaluation.verdict,
        verdictReason: evaluation.verdictReason,
        aiGaps: evaluation.aiGaps,
        judgedAt: new Date(evaluation.judgedAt),
      },
      ['evaluationId'],
    );
  }
}
