import { createServiceDataSource, migrateSchema, startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import { JudgeInit1764400000000 } from './1764400000000-judge-init.migration';
import { JudgeEvaluation1764500000000 } from './1764500000000-judge-evaluation.migration';
import { JudgeFeedbackTicketKeys1764900000000 } from './1764900000000-judge-feedback-ticket-keys.migration';

const binding = (ticket: string) =>
  `INSERT INTO "judge"."feedback_bindings" ("comment_id", "ticket_key", "run_id", "answer_fingerprint", "action", "reason", "comment_created_at", "comment_updated_at", "author_role", "visibility", "bound_at")
   VALUES ('c-1', '${ticket}', 'run-${ticket}', '${'a'.repeat(64)}', 'wrong', 'r', '2026-11-20T12:00:00Z', '2026-11-20T12:00:00Z', 'support', 'internal', now())`;
const comment = (ticket: string) =>
  `INSERT INTO "judge"."feedback_comments" ("comment_id", "comment_updated_at", "ticket_key", "comment_created_at", "author_role", "visibility", "body", "recorded_at")
   VALUES ('c-1', '2026-11-20T12:00:00Z', '${ticket}', '2026-11-20T12:00:00Z', 'support', 'internal', '/ao wrong r', now())`;

// Regression (issue 12): a second ticket whose /ao comment reuses an id of another ticket hit a duplicate key.
describe('judge feedback keys migration', () => {
  let pg: EmbeddedPostgres;
  beforeAll(async () => {
    pg = await startEmbeddedPostgres();
  }, 120000);
  afterAll(async () => {
    await pg?.stop();
  });

  it('keys bindings and raw feedback by (ticket, comment id): two tickets may both have comment c-1', async () => {
    const ds = createServiceDataSource({ url: pg.url, schema: 'judge', migrations: [JudgeInit1764400000000, JudgeEvaluation1764500000000], poolSize: 1 });
    await ds.initialize();
    await migrateSchema(ds, 'judge');
    await ds.query(binding('SUP-1'));
    await expect(ds.query(binding('SUP-2'))).rejects.toThrow(/duplicate key/);
    await ds.destroy();

    const next = createServiceDataSource({ url: pg.url, schema: 'judge', migrations: [JudgeInit1764400000000, JudgeEvaluation1764500000000, JudgeFeedbackTicketKeys1764900000000], poolSize: 1 });
    await next.initialize();
    try {
      expect(await migrateSchema(next, 'judge')).toEqual(['JudgeFeedbackTicketKeys1764900000000']);
      await next.query(binding('SUP-2'));
      await next.query(comment('SUP-1'));
      await next.query(comment('SUP-2'));
      await expect(next.query(binding('SUP-2'))).rejects.toThrow(/duplicate key/);
      expect(await next.query(`SELECT "ticket_key" FROM "judge"."feedback_bindings" ORDER BY 1`)).toEqual([{ ticket_key: 'SUP-1' }, { ticket_key: 'SUP-2' }]);
      expect(await next.query(`SELECT count(*)::int AS n FROM "judge"."feedback_comments"`)).toEqual([{ n: 2 }]);
    } finally {
      await next.destroy();
    }
  });
});
