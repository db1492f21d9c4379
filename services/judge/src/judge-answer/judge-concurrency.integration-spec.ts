import { AgentRuntime, BuiltinRegistry } from '@aoc/agent-runtime';
import { createServiceDataSource, migrateSchema } from '@aoc/persistence';
import type { Logger } from '@aoc/telemetry';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { analysisRequested, fakeBus, runPublished, timeline } from '../../test/judge-fixtures';
import { judgeDefinition } from '../judge.definition';
import { RecordInputsHandler } from '../record-inputs/record-inputs.handler';
import { registerRubricJudge } from '../rubric-judge/rubric-judge';
import { JudgeAnswerHandler } from './judge-answer.handler';
import type { JudgeEvent } from './ticket-state';

/**
 * One ticket's request, timeline and answer handled at the same moment, each in its own
 * transaction over a real Postgres pool (as a restarted judge with a backlog does): the answer is
 * judged exactly once, every time. Found by the chaos suite; its own database, dropped afterwards.
 */
const url = process.env['DATABASE_URL'] ?? '';
const database = `aoc_judge_it_${process.pid}`;
const silent: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

async function admin(sql: string): Promise<void> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

describe('the judge under concurrent delivery (real Postgres)', () => {
  let ds: DataSource;

  beforeAll(async () => {
    await admin(`DROP DATABASE IF EXISTS "${database}"`);
    await admin(`CREATE DATABASE "${database}"`);
    const own = new URL(url);
    own.pathname = `/${database}`;
    ds = createServiceDataSource({ url: own.toString(), schema: 'judge', entities: judgeDefinition.entities, migrations: judgeDefinition.migrations, poolSize: 6 });
    await ds.initialize();
    await migrateSchema(ds, 'judge');
  }, 120000);

  afterAll(async () => {
    await ds?.destroy();
    await admin(`DROP DATABASE IF EXISTS "${database}"`);
  });

  it('judges a ticket exactly once when its request, timeline and answer are handled at once', async () => {
    const model = new AgentRuntime({ config: {}, builtin: registerRubricJudge(new BuiltinRegistry()) });
    const handler = new JudgeAnswerHandler(new RecordInputsHandler(), model, ds, silent);
    const events: JudgeEvent[] = [{ kind: 'ticket', request: analysisRequested() }, { kind: 'timeline', timeline: timeline(1) }, { kind: 'answer', run: runPublished() }];
    for (let round = 0; round < 15; round++) {
      await ds.query('TRUNCATE "judge"."frozen_tickets", "judge"."answers", "judge"."timelines", "judge"."feedback_bindings", "judge"."feedback_comments", "judge"."evaluations", "judge"."evaluation_failures", "judge"."judge_disagreements"');
      const bus = fakeBus(ds);
      await Promise.all(events.map((event) => bus.run((ctx) => handler.handle(event, ctx))));
      expect({ round, published: bus.published.length }).toEqual({ round, published: 1 });
    }
  }, 120000);
});
