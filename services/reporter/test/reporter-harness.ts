import { createHash } from 'node:crypto';
import {
  EvaluationJudgedV1,
  RunExecutionRecordedV1,
  RunPublishedV1,
  TicketTimelineUpdatedV1,
  expectedQualityScore,
  type TimelineCommentV1,
  type Verdict,
} from '@aoc/contracts';
import { createServiceDataSource, migrateSchema, startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import type { DataSource } from 'typeorm';
import { ProjectAnswersHandler } from '../src/project-answers/project-answers.handler';
import { RecordRunHandler } from '../src/record-run/record-run.handler';
import { RecordTimelineHandler } from '../src/record-timeline/record-timeline.handler';
import { REPORTER_MIGRATIONS } from '../src/reporter.definition';
import { REPORTER_ENTITIES } from '../src/reporter.entities';
import { ReporterTables } from '../src/reporter.tables';
import { SqlReportsReader } from '../src/reports/reports.query';

/** One message as the reporter receives it. */
export type ReporterEvent =
  | { topic: 'run.published'; payload: RunPublishedV1 }
  | { topic: 'run.execution-recorded'; payload: RunExecutionRecordedV1 }
  | { topic: 'evaluation.judged'; payload: EvaluationJudgedV1 }
  | { topic: 'ticket.timeline-updated'; payload: TicketTimelineUpdatedV1 };

export const FIXED_NOW = new Date('2030-01-01T00:00:00.000Z');

export interface ReporterHarness {
  readonly dataSource: DataSource;
  readonly tables: ReporterTables;
  readonly reader: SqlReportsReader;
  /** Runs the event's handler in its own transaction, as the bus does. */
  deliver(...events: ReporterEvent[]): Promise<void>;
  /** Empties every reporter table (between cases). */
  reset(): Promise<void>;
}

/** Handlers and reader over a reporter schema (the service's own, or a private copy). */
export function reporterHarness(dataSource: DataSource, tables: ReporterTables): ReporterHarness {
  const answers = new ProjectAnswersHandler(tables);
  const runs = new RecordRunHandler(tables, answers);
  const timelines = new RecordTimelineHandler(tables, answers);
  const reader = new SqlReportsReader(dataSource, tables, { now: () => FIXED_NOW });
  return {
    dataSource,
    tables,
    reader,
    deliver: async (...events) => {
      for (const event of events) {
        await dataSource.transaction(async (manager) => {
          const ctx = { manager };
          switch (event.topic) {
            case 'run.published':
              return runs.onPublished(event.payload, ctx);
            case 'run.execution-recorded':
              return runs.onExecution(event.payload, ctx);
            case 'evaluation.judged':
              return runs.onJudged(event.payload, ctx);
            case 'ticket.timeline-updated':
              return timelines.onTimeline(event.payload, ctx);
          }
        });
      }
    },
    reset: async () => {
      await dataSource.query(`TRUNCATE ${tables.all.join(', ')}`);
    },
  };
}

/** Embedded Postgres (PGlite) with the reporter's real migrations applied to schema `reporter`. */
export async function startEmbeddedReporter(): Promise<ReporterHarness & { stop(): Promise<void> }> {
  const pg: EmbeddedPostgres = await startEmbeddedPostgres();
  const dataSource = createServiceDataSource({ url: pg.url, schema: 'reporter', entities: REPORTER_ENTITIES, migrations: REPORTER_MIGRATIONS, poolSize: 1 });
  await dataSource.initialize();
  await migrateSchema(dataSource, 'reporter');
  const harness = reporterHarness(dataSource, new ReporterTables('reporter'));
  return {
    ...harness,
    stop: async () => {
      await dataSource.destroy();
      await pg.stop();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Event builders: every payload is parsed by the topic's own schema, so fixtures stay valid.
// ---------------------------------------------------------------------------------------------

export function fingerprint(label: string): string {
  return createHash('sha256').update(label).digest('hex');
}

export function published(
  runId: string,
  ticketKey: string,
  publishedAt: string,
  options: { trigger?: RunPublishedV1['trigger']; mode?: RunPublishedV1['mode']; answer?: string; decision?: RunPublishedV1['decision']; tenant?: RunPublishedV1['tenant'] } = {},
): ReporterEvent {
  const answer = options.answer ?? runId;
  return {
    topic: 'run.published',
    payload: RunPublishedV1.parse({
      runId,
      ticketKey,
      ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
      mode: options.mode ?? 'write',
      trigger: options.trigger ?? 'initial',
      publishedAt,
      cutoff: null,
      customerReplyMarkdown: `Customer reply (${answer})`,
      internalHandoffMarkdown: `Internal handoff (${answer})`,
      decision: options.decision ?? 'human_required',
      answerFingerprint: fingerprint(answer),
      clarificationSimulation: { required: false, requestedContext: [] },
    }),
  };
}

type ExecutionInput = Partial<Omit<RunExecutionRecordedV1, 'runId' | 'ticketKey'>> & {
  evidenceStatus?: RunExecutionRecordedV1['evidenceAcquisition']['status'];
  providers?: RunExecutionRecordedV1['evidenceAcquisition']['providers'];
  responseStatus?: RunExecutionRecordedV1['responseGeneration']['status'];
};

export function execution(runId: string, ticketKey: string, recordedAt: string, input: ExecutionInput = {}): ReporterEvent {
  const { evidenceStatus, providers, responseStatus, ...rest } = input;
  return {
    topic: 'run.execution-recorded',
    payload: RunExecutionRecordedV1.parse({
      runId,
      ticketKey,
      recordedAt,
      responseGeneration: { status: responseStatus ?? 'succeeded', engine: 'test-engine' },
      evidenceAcquisition: { status: evidenceStatus ?? 'complete', capability: 'full', providers: providers ?? ['clinic'] },
      failureCodes: [],
      providerAttempts: [],
      providerQueryEvents: [],
      providerHttpAttempts: [],
      providerSystemEvents: [],
      ...rest,
    }),
  };
}

export function judged(
  evaluationId: string,
  runId: string,
  ticketKey: string,
  answer: string,
  verdict: Verdict,
  judgedAt: string,
  aiGaps: string[] = [],
  extra: Pick<Partial<EvaluationJudgedV1>, 'crossCheck'> = {},
): ReporterEvent {
  return {
    topic: 'evaluation.judged',
    payload: EvaluationJudgedV1.parse({
      evaluationId,
      runId,
      ticketKey,
      answerFingerprint: fingerprint(answer),
      judgedAt,
      judgeEngine: 'test-judge',
      verdict,
      // A not_compared verdict always carries a code; tests of it read it back.
      abstentionCode: verdict === 'not_compared' ? 'JUDGE.NEEDS_MODEL' : null,
      verdictReason: `reason of ${evaluationId}`,
      qualityScore: expectedQualityScore(verdict),
      aiGaps,
      keyDifferences: [],
      aiStrengths: [],
      internalHandoffGaps: [],
      targetHumanCommentIds: [],
      referenceComments: [],
      humanAnswerMarkdown: null,
      ...extra,
    }),
  };
}

export function comment(
  id: string,
  authorRole: TimelineCommentV1['authorRole'],
  visibility: TimelineCommentV1['visibility'],
  createdAt: string,
  body: string,
  updatedAt: string = createdAt,
): TimelineCommentV1 {
  return { id, authorRole, visibility, createdAt, updatedAt, body, visibleToAi: false, feedback: null };
}

export function timeline(ticketKey: string, revision: number, comments: TimelineCommentV1[]): ReporterEvent {
  return {
    topic: 'ticket.timeline-updated',
    payload: TicketTimelineUpdatedV1.parse({ ticketKey, observedAt: new Date(Date.UTC(2026, 0, 1) + revision * 1000).toISOString(), revision, comments }),
  };
}
