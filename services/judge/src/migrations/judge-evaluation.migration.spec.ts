import { createServiceDataSource, migrateSchema, startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import { JudgeInit1764400000000 } from './1764400000000-judge-init.migration';
import { JudgeEvaluation1764500000000 } from './1764500000000-judge-evaluation.migration';

describe('judge evaluation migration', () => {
  let pg: EmbeddedPostgres;

  beforeAll(async () => {
    pg = await startEmbeddedPostgres();
  }, 120000);

  afterAll(async () => {
    await pg?.stop();
  });

  it('keeps skeleton answers and evaluations and backfills what it can, and reverts cleanly', async () => {
    const first = createServiceDataSource({ url: pg.url, schema: 'judge', migrations: [JudgeInit1764400000000], poolSize: 1 });
    await first.initialize();
    await migrateSchema(first, 'judge');
    await first.query(`INSERT INTO "judge"."answers" VALUES ('run-1', 'SUP-1', '${'a'.repeat(64)}', now(), NULL, 'reply', 'handoff', 'human_required', true)`);
    await first.query(`INSERT INTO "judge"."evaluations" VALUES ('eval-run-1-aaaa', 'run-1', 'human_better', now())`);
    await first.destroy();

    const second = createServiceDataSource({ url: pg.url, schema: 'judge', migrations: [JudgeInit1764400000000, JudgeEvaluation1764500000000], poolSize: 1 });
    await second.initialize();
    try {
      expect(await migrateSchema(second, 'judge')).toEqual(['JudgeEvaluation1764500000000']);
      const [answer] = (await second.query(`SELECT * FROM "judge"."answers"`)) as Record<string, unknown>[];
      expect(answer).toMatchObject({ run_id: 'run-1', mode: 'read', trigger: 'initial', latest_verdict: 'human_better', quality_score: 0, quality_source: 'judge', judge_review_requested: false });
      expect(answer).not.toHaveProperty('judged');
      const [evaluation] = (await second.query(`SELECT * FROM "judge"."evaluations"`)) as Record<string, unknown>[];
      expect(evaluation).toMatchObject({ ticket_key: 'SUP-1', answer_fingerprint: 'a'.repeat(64), judge_engine: 'builtin-rubric-v1', raw_results: [] });
      await second.undoLastMigration({ transaction: 'each' });
      const [reverted] = (await second.query(`SELECT * FROM "judge"."answers"`)) as Record<string, unknown>[];
      expect(reverted).toMatchObject({ run_id: 'run-1', judged: true });
    } finally {
      await second.destroy();
    }
  });
});
