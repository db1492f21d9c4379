import { CALLER_TICKET_KEY_PREFIX, isCallerTicketKey } from '@aoc/contracts';
import { quoteIdent } from '@aoc/persistence';

/** The schema the reporter's handlers and reports use; `reporter` in the service, a private copy in benches and integration tests. */
export const REPORTER_SCHEMA = Symbol('REPORTER_SCHEMA');
export const DEFAULT_REPORTER_SCHEMA = 'reporter';

/** Qualified names of the reporter's tables in one schema, for hand-written SQL. */
export class ReporterTables {
  readonly runs: string;
  readonly executions: string;
  readonly evaluations: string;
  readonly timelines: string;
  readonly comments: string;
  readonly feedbackVersions: string;
  readonly bindings: string;
  readonly projections: string;
  readonly answerFeedback: string;
  readonly queryEvents: string;
  readonly httpAttempts: string;
  readonly systemEvents: string;

  constructor(readonly schema: string = DEFAULT_REPORTER_SCHEMA) {
    const s = quoteIdent(schema);
    this.runs = `${s}."published_runs"`;
    this.executions = `${s}."run_executions"`;
    this.evaluations = `${s}."evaluations"`;
    this.timelines = `${s}."ticket_timelines"`;
    this.comments = `${s}."timeline_comments"`;
    this.feedbackVersions = `${s}."feedback_comment_versions"`;
    this.bindings = `${s}."feedback_bindings"`;
    this.projections = `${s}."answer_projections"`;
    this.answerFeedback = `${s}."answer_feedback"`;
    this.queryEvents = `${s}."provider_query_events"`;
    this.httpAttempts = `${s}."provider_http_attempts"`;
    this.systemEvents = `${s}."provider_system_events"`;
  }

  /** Every read-model table (not the bus inbox/outbox). */
  get all(): string[] {
    return [
      this.runs,
      this.executions,
      this.evaluations,
      this.timelines,
      this.comments,
      this.feedbackVersions,
      this.bindings,
      this.projections,
      this.answerFeedback,
      this.queryEvents,
      this.httpAttempts,
      this.systemEvents,
    ];
  }
}

/**
 * Triggers whose runs the daily/weekly reports count: the autonomous entries. `continuation` (a
 * follow-up on a ticket already answered) and `replay` (not a production run) are never counted,
 * nor is a run of a ticket a caller sent in a request body (untrusted, unless an operator imported it).
 */
export const COUNTED_TRIGGERS = ['initial', 'bot_assignment'] as const;

export function isCountedRun(run: { trigger: string; ticketKey: string }): boolean {
  return (COUNTED_TRIGGERS as readonly string[]).includes(run.trigger) && !isCallerTicketKey(run.ticketKey);
}

/** The same rule in SQL over a runs table aliased `alias` (constants only, no input). */
export function countedRunSql(alias: string): string {
  return `(${alias}."trigger" IN (${COUNTED_TRIGGERS.map((t) => `'${t}'`).join(', ')}) AND ${alias}."ticket_key" NOT LIKE '${CALLER_TICKET_KEY_PREFIX}%')`;
}
