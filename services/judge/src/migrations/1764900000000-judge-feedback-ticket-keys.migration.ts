import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * /ao comments are identified within their ticket: two tickets may both have a comment `c-1`
 * (the JSON-file source and the examples do). Bindings and raw feedback versions are keyed by
 * (ticket, comment id) instead of the comment id alone.
 */
export class JudgeFeedbackTicketKeys1764900000000 implements MigrationInterface {
  name = 'JudgeFeedbackTicketKeys1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "judge"."feedback_bindings" DROP CONSTRAINT "feedback_bindings_pkey"`);
    await q.query(`ALTER TABLE "judge"."feedback_bindings" ADD PRIMARY KEY ("ticket_key", "comment_id")`);
    await q.query(`ALTER TABLE "judge"."feedback_comments" DROP CONSTRAINT "feedback_comments_pkey"`);
    await q.query(`ALTER TABLE "judge"."feedback_comments" ADD PRIMARY KEY ("ticket_key", "comment_id", "comment_updated_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "judge"."feedback_comments" DROP CONSTRAINT "feedback_comments_pkey"`);
    await q.query(`ALTER TABLE "judge"."feedback_comments" ADD PRIMARY KEY ("comment_id", "comment_updated_at")`);
    await q.query(`ALTER TABLE "judge"."feedback_bindings" DROP CONSTRAINT "feedback_bindings_pkey"`);
    await q.query(`ALTER TABLE "judge"."feedback_bindings" ADD PRIMARY KEY ("comment_id")`);
  }
}
