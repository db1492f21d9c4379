import type { HandlerContext } from '@aoc/bus';
import type { TicketTimelineUpdatedV1 } from '@aoc/contracts';
import { isTrustedFeedbackSource, parseFeedbackCommand } from '@aoc/feedback';
import { Injectable } from '@nestjs/common';
import { payloadDigest } from '../payload-digest';
import { ProjectAnswersHandler } from '../project-answers/project-answers.handler';
import { ReporterTables } from '../reporter.tables';

/**
 * Records a ticket timeline. Revisions may arrive late, twice or out of order:
 * - every version of a trusted /ao comment is kept as raw feedback, whatever the revision (a set:
 *   a copy seen twice is stored once), so an edit that arrives before the original loses nothing;
 * - the comments themselves follow the newest revision only (revision, then content digest, so
 *   two deliveries of one revision resolve the same way in any order).
 */
@Injectable()
export class RecordTimelineHandler {
  constructor(
    private readonly t: ReporterTables,
    private readonly answers: ProjectAnswersHandler,
  ) {}

  async onTimeline(timeline: TicketTimelineUpdatedV1, ctx: Pick<HandlerContext, 'manager'>): Promise<void> {
    const m = ctx.manager;
    await this.answers.lockTicket(m, timeline.ticketKey);

    const comments = timeline.comments.map((c, position) => {
      const command = isTrustedFeedbackSource(c) ? parseFeedbackCommand(c.body) : null;
      return { ...c, position, command };
    });

    const feedback = comments.flatMap((c) =>
      c.command === null
        ? []
        : [
            {
              id: c.id,
              authorRole: c.authorRole,
              visibility: c.visibility,
              createdAt: c.createdAt,
              updatedAt: c.updatedAt,
              body: c.body,
              visibleToAi: c.visibleToAi,
              action: c.command.action,
              reason: c.command.reason,
              digest: payloadDigest({ authorRole: c.authorRole, visibility: c.visibility, createdAt: c.createdAt, updatedAt: c.updatedAt, body: c.body, visibleToAi: c.visibleToAi }),
            },
          ],
    );
    let changed = false;
    if (feedback.length > 0) {
      const added: unknown[] = await m.query(
        `INSERT INTO ${this.t.feedbackVersions}
           ("ticket_key", "comment_id", "content_digest", "author_role", "visibility", "created_at", "updated_at", "body", "visible_to_ai", "action", "reason")
         SELECT $1, j."id", j."digest", j."authorRole", j."visibility", j."createdAt"::timestamptz, j."updatedAt"::timestamptz, j."body", j."visibleToAi", j."action", j."reason"
           FROM jsonb_to_recordset($2::jsonb) AS j("id" text, "digest" text, "authorRole" text, "visibility" text, "createdAt" text, "updatedAt" text,
                "body" text, "visibleToAi" boolean, "action" text, "reason" text)
         ON CONFLICT DO NOTHING
         RETURNING 1`,
        [timeline.ticketKey, JSON.stringify(feedback)],
      );
      changed = added.length > 0;
    }

    const newer: unknown[] = await m.query(
      `INSERT INTO ${this.t.timelines} AS t ("ticket_key", "revision", "observed_at", "content_digest")
       VALUES ($1, $2, $3::timestamptz, $4)
       ON CONFLICT ("ticket_key") DO UPDATE SET
         "revision" = excluded."revision", "observed_at" = excluded."observed_at", "content_digest" = excluded."content_digest"
       WHERE (t."revision", t."content_digest") < (excluded."revision", excluded."content_digest")
       RETURNING 1`,
      [timeline.ticketKey, timeline.revision, timeline.observedAt, payloadDigest(timeline.comments)],
    );
    if (newer.length > 0) {
      changed = true;
      await m.query(`DELETE FROM ${this.t.comments} WHERE "ticket_key" = $1`, [timeline.ticketKey]);
      if (comments.length > 0) {
        // A comment listed twice in one revision keeps its newest edit.
        await m.query(
          `INSERT INTO ${this.t.comments}
             ("ticket_key", "comment_id", "position", "author_role", "visibility", "created_at", "updated_at", "body", "visible_to_ai", "is_feedback")
           SELECT DISTINCT ON (j."id") $1, j."id", j."position", j."authorRole", j."visibility", j."createdAt"::timestamptz, j."updatedAt"::timestamptz,
                  j."body", j."visibleToAi", j."isFeedback"
             FROM jsonb_to_recordset($2::jsonb) AS j("id" text, "position" integer, "authorRole" text, "visibility" text, "createdAt" text,
                  "updatedAt" text, "body" text, "visibleToAi" boolean, "isFeedback" boolean)
            ORDER BY j."id", j."updatedAt"::timestamptz DESC, j."position" DESC`,
          [
            timeline.ticketKey,
            JSON.stringify(
              comments.map((c) => ({
                id: c.id,
                position: c.position,
                authorRole: c.authorRole,
                visibility: c.visibility,
                createdAt: c.createdAt,
                updatedAt: c.updatedAt,
                body: c.body,
                visibleToAi: c.visibleToAi,
                isFeedback: c.command !== null,
              })),
            ),
          ],
        );
      }
    }
    if (changed) await this.answers.refresh(m, timeline.ticketKey);
  }
}
