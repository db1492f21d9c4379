import { randomUUID } from 'node:crypto';
import { answerFingerprint } from '@aoc/answers';
import type { HandlerContext } from '@aoc/bus';
import {
  Topics,
  type EvaluationJudgedV1,
  type PayloadOf,
  type RunPublishedV1,
  type TicketAnalysisRequestedV1,
  type TicketTimelineUpdatedV1,
  type TimelineCommentV1,
  type TopicDefinition,
} from '@aoc/contracts';
import { createServiceDataSource, migrateSchema, startEmbeddedPostgres } from '@aoc/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import { judgeDefinition } from '../src/judge.definition';

/** The bundled example, shortened: a replay with a cutoff at 11:05. */
export const TICKET_KEY = 'SUP-1042';
export const CUTOFF = '2026-11-20T11:05:00.000Z';

export function analysisRequested(overrides: Partial<TicketAnalysisRequestedV1> = {}): TicketAnalysisRequestedV1 {
  return {
    runId: 'run-1',
    ticketKey: TICKET_KEY,
    mode: 'read',
    trigger: 'replay',
    requestedAt: '2026-11-29T10:00:00.000Z',
    cutoff: CUTOFF,
    ticket: {
      key: TICKET_KEY,
      title: 'p99 latency doubled on cluster tidb-prod-7f3a since 10:40',
      description: 'Since about 10:40 UTC our p99 query latency on cluster tidb-prod-7f3a went from ~40ms to ~90ms. Can you check what is going on?',
      reporterRole: 'customer',
      createdAt: '2026-11-20T10:58:00.000Z',
      labels: ['latency'],
      comments: [{ id: 'c-1', authorRole: 'customer', visibility: 'public', createdAt: '2026-11-20T11:02:00.000Z', body: 'It is still slow. Mostly the order lookups.' }],
    },
    ...overrides,
  };
}

export const VAGUE_REPLY = 'We looked at tidb-prod-7f3a. We could not retrieve the statements yet, so we cannot confirm a cause. A support engineer will follow up.';
export const VAGUE_HANDOFF = '**Evidence boundary:** prometheus (partial).\n**Gap owner:** Support.\n**Next internal action:** Hand off to Support with the observations above.';
export const GOOD_REPLY = 'Since 10:38 a new report query does a full table scan on orders (about 1.2M rows per execution). Adding an index on orders(created_at) removes the scan.';
export const GOOD_HANDOFF = '**Evidence boundary:** TopSQL on tidb-prod-7f3a.\n**Next internal action:** verify the plan of the report query after the index is added.';

export function runPublished(overrides: Partial<RunPublishedV1> = {}): RunPublishedV1 {
  const customer = overrides.customerReplyMarkdown ?? VAGUE_REPLY;
  const internal = overrides.internalHandoffMarkdown ?? VAGUE_HANDOFF;
  return {
    runId: 'run-1',
    ticketKey: TICKET_KEY,
    tenant: 'default',
    mode: 'read',
    trigger: 'replay',
    publishedAt: '2026-11-29T10:01:00.000Z',
    cutoff: CUTOFF,
    customerReplyMarkdown: customer,
    internalHandoffMarkdown: internal,
    decision: 'human_required',
    answerFingerprint: answerFingerprint(customer, internal),
    clarificationSimulation: { required: false, requestedContext: [] },
    ...overrides,
  };
}

export function comment(id: string, authorRole: TimelineCommentV1['authorRole'], visibility: TimelineCommentV1['visibility'], createdAt: string, body: string, extra: Partial<TimelineCommentV1> = {}): TimelineCommentV1 {
  return { id, authorRole, visibility, createdAt, updatedAt: createdAt, body, visibleToAi: Date.parse(createdAt) <= Date.parse(CUTOFF) && visibility === 'public', feedback: null, ...extra };
}

export const HUMAN_ANSWER = comment(
  'c-3',
  'support',
  'public',
  '2026-11-20T12:30:00.000Z',
  'We found the cause: since 10:38 a new report query scans the whole orders table (full table scan, about 1.2M rows per execution). Adding an index on orders(created_at) removes the scan.',
);

export const BASE_COMMENTS: TimelineCommentV1[] = [
  comment('c-1', 'customer', 'public', '2026-11-20T11:02:00.000Z', 'It is still slow. Mostly the order lookups.'),
  comment('c-2', 'support', 'internal', '2026-11-20T11:40:00.000Z', 'TopSQL shows a full table scan on orders.'),
  comment('c-2b', 'support', 'public', '2026-11-20T11:45:00.000Z', 'Thanks, we are looking into it and will update you soon.'),
  HUMAN_ANSWER,
  comment('c-4', 'customer', 'public', '2026-11-20T13:10:00.000Z', 'Index added, latency is back to normal. Thanks!'),
];

export function timeline(revision: number, comments: TimelineCommentV1[] = BASE_COMMENTS): TicketTimelineUpdatedV1 {
  return { ticketKey: TICKET_KEY, observedAt: '2026-11-29T10:00:00.000Z', revision, comments };
}

export interface JudgeDb {
  dataSource: DataSource;
  truncate(): Promise<void>;
  stop(): Promise<void>;
}

/** An embedded Postgres (PGlite) with the judge's migrations applied. */
export async function startJudgeDb(): Promise<JudgeDb> {
  const pg = await startEmbeddedPostgres();
  const dataSource = createServiceDataSource({ url: pg.url, schema: 'judge', entities: judgeDefinition.entities, migrations: judgeDefinition.migrations, poolSize: 1 });
  await dataSource.initialize();
  await migrateSchema(dataSource, 'judge');
  return {
    dataSource,
    truncate: async () => {
      await dataSource.query(
        'TRUNCATE "judge"."frozen_tickets", "judge"."answers", "judge"."timelines", "judge"."feedback_bindings", "judge"."feedback_comments", "judge"."evaluations", "judge"."evaluation_failures", "judge"."judge_disagreements"',
      );
    },
    stop: async () => {
      await dataSource.destroy();
      await pg.stop();
    },
  };
}

export interface FakeBus {
  published: EvaluationJudgedV1[];
  /** Runs `work` in one transaction with a handler context, as the bus does. */
  run(work: (ctx: HandlerContext) => Promise<void>, options?: { attempt?: number; prepared?: unknown }): Promise<void>;
}

/** A stand-in for the bus: a real transaction, payloads validated against the topic schema. */
export function fakeBus(dataSource: DataSource): FakeBus {
  const published: EvaluationJudgedV1[] = [];
  return {
    published,
    run: async (work, options = {}) => {
      const pending: EvaluationJudgedV1[] = [];
      await dataSource.transaction(async (manager: EntityManager) => {
        const ctx: HandlerContext = {
          manager,
          publish: async <T extends TopicDefinition>(topic: T, payload: PayloadOf<T>) => {
            if (topic.name !== Topics.evaluationJudged.name) throw new Error(`judge must not publish ${topic.name}`);
            pending.push(Topics.evaluationJudged.value.parse(payload));
          },
          envelope: {
            messageId: randomUUID(),
            idempotencyKey: 'test',
            schema: { topic: Topics.runPublished.name, version: 1 },
            producedAt: new Date().toISOString(),
            producer: 'router',
          },
          topic: Topics.runPublished.name,
          consumerGroup: 'aoc.judge',
          attempt: options.attempt ?? 1,
          prepared: options.prepared,
        };
        await work(ctx);
      });
      published.push(...pending);
    },
  };
}
