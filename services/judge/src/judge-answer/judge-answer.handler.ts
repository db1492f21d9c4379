import type { HandlerContext } from '@aoc/bus';
import { Topics, expectedQualityScore, type RunPublishedV1, type TicketTimelineUpdatedV1 } from '@aoc/contracts';
import { Injectable } from '@nestjs/common';
import { AnswerEntity, EvaluationEntity, TimelineEntity } from '../persistence/judge.entities';
import { rubricJudge } from './rubric-judge';

export const JUDGE_ENGINE = 'builtin-rubric-v1';

/**
 * Judge: keeps each published answer version and the latest ticket timeline, and judges an
 * answer once a human answer exists after it. It never receives execution state.
 */
@Injectable()
export class JudgeAnswerHandler {
  async onPublished(run: RunPublishedV1, ctx: HandlerContext): Promise<void> {
    await ctx.manager
      .createQueryBuilder()
      .insert()
      .into(AnswerEntity)
      .values({
        runId: run.runId,
        ticketKey: run.ticketKey,
        answerFingerprint: run.answerFingerprint,
        publishedAt: new Date(run.publishedAt),
        cutoff: run.cutoff ? new Date(run.cutoff) : null,
        customerReply: run.customerReplyMarkdown,
        internalHandoff: run.internalHandoffMarkdown,
        decision: run.decision,
        judged: false,
      })
      .orIgnore()
      .execute();
    await this.judgePending(run.ticketKey, ctx);
  }

  async onTimeline(timeline: TicketTimelineUpdatedV1, ctx: HandlerContext): Promise<void> {
    const current = await ctx.manager.findOne(TimelineEntity, { where: { ticketKey: timeline.ticketKey } });
    // Out-of-order delivery: an older revision never replaces a newer one.
    if (current && Number(current.revision) >= timeline.revision) return;
    await ctx.manager.save(TimelineEntity, { ticketKey: timeline.ticketKey, revision: String(timeline.revision), comments: timeline.comments });
    await this.judgePending(timeline.ticketKey, ctx);
  }

  private async judgePending(ticketKey: string, ctx: HandlerContext): Promise<void> {
    const timeline = await ctx.manager.findOne(TimelineEntity, { where: { ticketKey } });
    if (!timeline) return;
    const pending = await ctx.manager.find(AnswerEntity, { where: { ticketKey, judged: false }, order: { publishedAt: 'ASC' } });
    for (const answer of pending) {
      const result = rubricJudge({
        customerReply: answer.customerReply,
        internalHandoff: answer.internalHandoff,
        decision: answer.decision,
        anchor: answer.cutoff ?? answer.publishedAt,
        timeline: timeline.comments,
      });
      if (!result) continue;
      const evaluationId = `eval-${answer.runId}-${answer.answerFingerprint.slice(0, 12)}`;
      const judgedAt = new Date();
      await ctx.manager.update(AnswerEntity, { runId: answer.runId }, { judged: true });
      await ctx.manager.insert(EvaluationEntity, { evaluationId, runId: answer.runId, verdict: result.verdict, judgedAt });
      await ctx.publish(Topics.evaluationJudged, {
        evaluationId,
        runId: answer.runId,
        ticketKey,
        answerFingerprint: answer.answerFingerprint,
        judgedAt: judgedAt.toISOString(),
        judgeEngine: JUDGE_ENGINE,
        qualityScore: expectedQualityScore(result.verdict),
        ...result,
      });
    }
  }
}
