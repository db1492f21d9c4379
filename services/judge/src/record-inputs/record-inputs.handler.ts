import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { frozenTicketOf, publishedAnswerOf, type JudgeEvent } from '../judge-answer/ticket-state';
import { AnswerEntity, FrozenTicketEntity, TimelineEntity } from '../persistence/judge.entities';

/**
 * Keeps the judge's inputs in its own schema: the frozen ticket of each run, each published
 * answer version, and the latest timeline of each ticket (an older revision never replaces a
 * newer one). Nothing here is execution state.
 */
@Injectable()
export class RecordInputsHandler {
  /** Writes the event; duplicates and older timeline revisions change nothing. */
  async record(event: JudgeEvent, manager: EntityManager): Promise<void> {
    if (event.kind === 'ticket') {
      const t = frozenTicketOf(event.request);
      await manager
        .createQueryBuilder()
        .insert()
        .into(FrozenTicketEntity)
        .values({
          runId: t.runId,
          ticketKey: t.ticketKey,
          title: t.title,
          description: t.description,
          reporterRole: t.reporterRole,
          ticketCreatedAt: new Date(t.ticketCreatedAt),
          labels: t.labels,
          customerComments: t.comments,
          mode: t.mode,
          trigger: t.trigger,
          cutoff: t.cutoff ? new Date(t.cutoff) : null,
          requestedAt: new Date(t.requestedAt),
        })
        .orIgnore()
        .execute();
      return;
    }
    if (event.kind === 'answer') {
      const a = publishedAnswerOf(event.run);
      await manager
        .createQueryBuilder()
        .insert()
        .into(AnswerEntity)
        .values({
          runId: a.runId,
          ticketKey: a.ticketKey,
          answerFingerprint: a.answerFingerprint,
          publishedAt: new Date(a.publishedAt),
          cutoff: a.cutoff ? new Date(a.cutoff) : null,
          customerReply: a.customerReplyMarkdown,
          internalHandoff: a.internalHandoffMarkdown,
          decision: a.decision,
          requestedContext: a.requestedContext,
          mode: a.mode,
          trigger: a.trigger,
          latestEvaluationId: null,
          latestVerdict: null,
          qualityScore: null,
          qualitySource: 'none',
          judgeReviewRequested: false,
        })
        .orIgnore()
        .execute();
      return;
    }
    const { timeline } = event;
    const current = await manager.findOne(TimelineEntity, { where: { ticketKey: timeline.ticketKey } });
    // Out-of-order delivery: an older (or the same) revision never replaces the stored one.
    if (current && Number(current.revision) >= timeline.revision) return;
    await manager.save(TimelineEntity, { ticketKey: timeline.ticketKey, revision: String(timeline.revision), comments: timeline.comments });
  }
}
