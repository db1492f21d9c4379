import type { Decision, RunExecutionRecordedV1, Verdict } from '@aoc/contracts';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The reporter's tables (schema `reporter`). Handlers write them with SQL through the bus
 * transaction's manager; reports are SQL over them. Index names match the migrations exactly;
 * indexes TypeORM cannot describe (partial, INCLUDE) are declared with `synchronize: false`.
 */

@Entity({ schema: 'reporter', name: 'published_runs' })
@Index('reporter_runs_published_idx', ['publishedAt', 'runId'])
@Index('reporter_runs_ticket_idx', ['ticketKey', 'publishedAt'])
@Index('reporter_runs_tenant_idx', ['tenant', 'publishedAt', 'runId'])
export class PublishedRunEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  /** The tenant run.published names; null when no configured tenant owns the ticket. */
  @Column({ type: 'text', nullable: true, default: 'default' })
  tenant!: string | null;

  @Column({ type: 'text' })
  trigger!: string;

  @Column({ type: 'text' })
  decision!: Decision;

  @Column({ name: 'answer_fingerprint', type: 'text' })
  answerFingerprint!: string;

  @Column({ name: 'published_at', type: 'timestamptz' })
  publishedAt!: Date;

  @Column({ name: 'customer_reply', type: 'text' })
  customerReply!: string;

  @Column({ name: 'internal_handoff', type: 'text' })
  internalHandoff!: string;

  /** read | write, as published. */
  @Column({ type: 'text' })
  mode!: string;

  @Column({ type: 'timestamptz', nullable: true })
  cutoff!: Date | null;
}

@Entity({ schema: 'reporter', name: 'run_executions' })
export class RunExecutionEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ name: 'evidence_status', type: 'text' })
  evidenceStatus!: string;

  @Column({ name: 'response_status', type: 'text' })
  responseStatus!: string;

  @Column({ name: 'failure_codes', type: 'jsonb' })
  failureCodes!: string[];

  /** Audit record of every provider tool call of the run, as run.execution-recorded carried it. */
  @Column({ name: 'tool_calls', type: 'jsonb', default: () => "'[]'" })
  toolCalls!: RunExecutionRecordedV1['providerToolCalls'];

  /** Null only on rows recorded before the read models existed (never back-filled by guessing). */
  @Column({ name: 'ticket_key', type: 'text', nullable: true })
  ticketKey!: string | null;

  @Column({ name: 'recorded_at', type: 'timestamptz', nullable: true })
  recordedAt!: Date | null;

  @Column({ name: 'response_engine', type: 'text', nullable: true })
  responseEngine!: string | null;

  @Column({ name: 'evidence_capability', type: 'text', nullable: true })
  evidenceCapability!: string | null;

  /** Providers selected for the run (may contain `none`). */
  @Column({ name: 'evidence_providers', type: 'text', array: true })
  evidenceProviders!: string[];

  /** sha256 of the recorded payload; with recorded_at it decides which of two records for a run wins. */
  @Column({ name: 'payload_digest', type: 'text', nullable: true })
  payloadDigest!: string | null;
}

@Entity({ schema: 'reporter', name: 'evaluations' })
@Index('reporter_evaluations_version_idx', ['ticketKey', 'answerFingerprint', 'judgedAt'])
@Index('reporter_evaluations_run_idx', ['runId', 'judgedAt'])
export class ReportedEvaluationEntity {
  @PrimaryColumn({ name: 'evaluation_id', type: 'text' })
  evaluationId!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ type: 'text' })
  verdict!: Verdict;

  @Column({ name: 'verdict_reason', type: 'text' })
  verdictReason!: string;

  /** Why the verdict is not_compared (a JUDGE.* code); null for decided verdicts and older rows. */
  @Column({ name: 'abstention_code', type: 'text', nullable: true })
  abstentionCode!: string | null;

  /** Why the version was or was not compared (evaluation.judged `eligibility`); null on rows recorded before the field. */
  @Column({ type: 'text', nullable: true })
  eligibility!: string | null;

  /** 1, 2, ... per answer version: a later human answer re-judged it. */
  @Column({ type: 'int', default: 1 })
  revision!: number;

  /** The human comments the Judge selected as the human answer, in order. */
  @Column({ name: 'target_comment_ids', type: 'jsonb', default: () => "'[]'" })
  targetCommentIds!: string[];

  @Column({ name: 'ai_gaps', type: 'jsonb' })
  aiGaps!: string[];

  @Column({ name: 'judged_at', type: 'timestamptz' })
  judgedAt!: Date;

  /** Answer version judged. Null only on rows recorded before the read models existed and not matched to a run. */
  @Column({ name: 'ticket_key', type: 'text', nullable: true })
  ticketKey!: string | null;

  @Column({ name: 'answer_fingerprint', type: 'text', nullable: true })
  answerFingerprint!: string | null;

  @Column({ name: 'judge_engine', type: 'text', nullable: true })
  judgeEngine!: string | null;

  /** A model judge's cross-check of the decided verdict (evaluation.judged `crossCheck`); all null when none. */
  @Column({ name: 'cross_check_engine', type: 'text', nullable: true })
  crossCheckEngine!: string | null;

  @Column({ name: 'cross_check_verdict', type: 'text', nullable: true })
  crossCheckVerdict!: Verdict | null;

  /** false: a disagreement; null: the model abstained (or no cross-check). */
  @Column({ name: 'cross_check_agrees', type: 'boolean', nullable: true })
  crossCheckAgrees!: boolean | null;

  /** The built-in judge's rule that decided the verdict (a code). */
  @Column({ name: 'cross_check_reason_code', type: 'text', nullable: true })
  crossCheckReasonCode!: string | null;
}

/** Latest revision of each ticket's timeline seen so far. */
@Entity({ schema: 'reporter', name: 'ticket_timelines' })
export class TicketTimelineEntity {
  @PrimaryColumn({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @Column({ type: 'bigint' })
  revision!: string;

  @Column({ name: 'observed_at', type: 'timestamptz' })
  observedAt!: Date;

  @Column({ name: 'content_digest', type: 'text' })
  contentDigest!: string;
}

/** Comments of the latest timeline revision of a ticket. */
@Entity({ schema: 'reporter', name: 'timeline_comments' })
@Index('reporter_comments_ticket_idx', ['ticketKey', 'createdAt'])
export class TimelineCommentEntity {
  @PrimaryColumn({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @PrimaryColumn({ name: 'comment_id', type: 'text' })
  commentId!: string;

  @Column({ type: 'integer' })
  position!: number;

  @Column({ name: 'author_role', type: 'text' })
  authorRole!: string;

  @Column({ type: 'text' })
  visibility!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ type: 'text' })
  body!: string;

  @Column({ name: 'visible_to_ai', type: 'boolean' })
  visibleToAi!: boolean;

  /** True when the comment is a trusted /ao command (then it is feedback, not a human answer). */
  @Column({ name: 'is_feedback', type: 'boolean' })
  isFeedback!: boolean;
}

/**
 * Raw feedback: every distinct version of a trusted /ao comment ever seen, from any timeline
 * revision (older revisions included). Kept as received; the quality projection never rewrites it.
 */
@Entity({ schema: 'reporter', name: 'feedback_comment_versions' })
export class FeedbackCommentVersionEntity {
  @PrimaryColumn({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @PrimaryColumn({ name: 'comment_id', type: 'text' })
  commentId!: string;

  @PrimaryColumn({ name: 'content_digest', type: 'text' })
  contentDigest!: string;

  @Column({ name: 'author_role', type: 'text' })
  authorRole!: string;

  @Column({ type: 'text' })
  visibility!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ type: 'text' })
  body!: string;

  @Column({ name: 'visible_to_ai', type: 'boolean' })
  visibleToAi!: boolean;

  @Column({ type: 'text' })
  action!: string;

  @Column({ type: 'text' })
  reason!: string;
}

/** Feedback bound (by @aoc/feedback) to the answer version it evaluated. */
@Entity({ schema: 'reporter', name: 'feedback_bindings' })
@Index('reporter_bindings_run_idx', ['runId'])
export class FeedbackBindingEntity {
  @PrimaryColumn({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @PrimaryColumn({ name: 'comment_id', type: 'text' })
  commentId!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ name: 'answer_fingerprint', type: 'text' })
  answerFingerprint!: string;

  @Column({ type: 'text' })
  action!: string;

  @Column({ type: 'text' })
  reason!: string;

  @Column({ name: 'comment_created_at', type: 'timestamptz' })
  commentCreatedAt!: Date;

  @Column({ name: 'comment_updated_at', type: 'timestamptz' })
  commentUpdatedAt!: Date;

  @Column({ name: 'author_role', type: 'text' })
  authorRole!: string;

  @Column({ type: 'text' })
  visibility!: string;
}

/** Per run, the report's fact row: counted or not, comparison anchor, first human reply, latest evaluation of its answer version, quality projection. */
@Entity({ schema: 'reporter', name: 'answer_projections' })
@Index('reporter_projections_ticket_idx', ['ticketKey'])
@Index('reporter_projections_counted_idx', { synchronize: false })
@Index('reporter_projections_tenant_counted_idx', { synchronize: false })
export class AnswerProjectionEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  /** The run's tenant (published_runs.tenant). */
  @Column({ type: 'text', nullable: true, default: 'default' })
  tenant!: string | null;

  @Column({ name: 'published_at', type: 'timestamptz' })
  publishedAt!: Date;

  /** Trigger initial|bot_assignment: the daily/weekly reports count this run. */
  @Column({ type: 'boolean' })
  counted!: boolean;

  /** public_reply | internal_comment | none */
  @Column({ name: 'anchor_kind', type: 'text' })
  anchorKind!: string;

  @Column({ name: 'anchor_at', type: 'timestamptz', nullable: true })
  anchorAt!: Date | null;

  @Column({ name: 'human_reply_at', type: 'timestamptz', nullable: true })
  humanReplyAt!: Date | null;

  @Column({ name: 'evaluation_id', type: 'text', nullable: true })
  evaluationId!: string | null;

  @Column({ type: 'text', nullable: true })
  verdict!: Verdict | null;

  @Column({ name: 'quality_score', type: 'smallint', nullable: true })
  qualityScore!: number | null;

  /** feedback | judge | none */
  @Column({ name: 'quality_source', type: 'text' })
  qualitySource!: string;

  @Column({ name: 'judge_review_requested', type: 'boolean' })
  judgeReviewRequested!: boolean;

  /** The answer version carries feedback (bound to this run or inherited); derived in SQL from answer_feedback. */
  @Column({ name: 'has_feedback', type: 'boolean' })
  hasFeedback!: boolean;
}

/** Feedback that applies to a run's answer version (bound to it, or inherited from an earlier run with the same fingerprint). */
@Entity({ schema: 'reporter', name: 'answer_feedback' })
export class AnswerFeedbackEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text' })
  runId!: string;

  @PrimaryColumn({ name: 'comment_id', type: 'text' })
  commentId!: string;

  @Column({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @Column({ type: 'text' })
  action!: string;

  @Column({ type: 'boolean' })
  inherited!: boolean;
}

/** One row per logical provider query of a run (retries of the same query collapse to its last outcome). */
@Entity({ schema: 'reporter', name: 'provider_query_events' })
@Index('reporter_query_events_day_idx', { synchronize: false })
export class ProviderQueryEventEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text' })
  runId!: string;

  @PrimaryColumn({ name: 'scenario_id', type: 'text' })
  scenarioId!: string;

  @PrimaryColumn({ name: 'query_id', type: 'text' })
  queryId!: string;

  @Column({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @Column({ type: 'text' })
  provider!: string;

  /** complete | empty | failed */
  @Column({ type: 'text' })
  outcome!: string;

  @Column({ type: 'boolean' })
  supplemental!: boolean;

  @Column({ type: 'timestamptz' })
  at!: Date;

  /** Asia/Shanghai natural day of `at`. */
  @Column({ type: 'date' })
  day!: string;

  /** The run is counted by reports (trigger initial|bot_assignment); kept in step by the handlers. */
  @Column({ type: 'boolean' })
  counted!: boolean;
}

/** Every HTTP response attempt of a run, as recorded. */
@Entity({ schema: 'reporter', name: 'provider_http_attempts' })
@Index('reporter_http_attempts_day_idx', { synchronize: false })
export class ProviderHttpAttemptEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text' })
  runId!: string;

  @PrimaryColumn({ type: 'integer' })
  ordinal!: number;

  @Column({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @Column({ name: 'scenario_id', type: 'text' })
  scenarioId!: string;

  @Column({ name: 'query_id', type: 'text' })
  queryId!: string;

  @Column({ type: 'text' })
  provider!: string;

  /** 200 | 400 | 500 | 502 | other */
  @Column({ name: 'status_class', type: 'text' })
  statusClass!: string;

  @Column({ type: 'timestamptz' })
  at!: Date;

  @Column({ type: 'date' })
  day!: string;

  /** The run is counted by reports (trigger initial|bot_assignment); kept in step by the handlers. */
  @Column({ type: 'boolean' })
  counted!: boolean;
}

/** Provider 5xx episodes of a run: status sequence, recovered or still failed after retries. */
@Entity({ schema: 'reporter', name: 'provider_system_events' })
@Index('reporter_system_events_day_idx', { synchronize: false })
export class ProviderSystemEventEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text' })
  runId!: string;

  @PrimaryColumn({ type: 'integer' })
  ordinal!: number;

  @Column({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @Column({ name: 'scenario_id', type: 'text' })
  scenarioId!: string;

  @Column({ name: 'query_id', type: 'text' })
  queryId!: string;

  @Column({ type: 'text' })
  provider!: string;

  @Column({ name: 'status_sequence', type: 'integer', array: true })
  statusSequence!: number[];

  /** recovered | failed */
  @Column({ type: 'text' })
  result!: string;

  @Column({ name: 'upstream_error', type: 'text' })
  upstreamError!: string;

  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId!: string | null;

  @Column({ type: 'timestamptz' })
  at!: Date;

  @Column({ type: 'date' })
  day!: string;

  /** The run is counted by reports (trigger initial|bot_assignment); kept in step by the handlers. */
  @Column({ type: 'boolean' })
  counted!: boolean;
}

export const REPORTER_ENTITIES = [
  PublishedRunEntity,
  RunExecutionEntity,
  ReportedEvaluationEntity,
  TicketTimelineEntity,
  TimelineCommentEntity,
  FeedbackCommentVersionEntity,
  FeedbackBindingEntity,
  AnswerProjectionEntity,
  AnswerFeedbackEntity,
  ProviderQueryEventEntity,
  ProviderHttpAttemptEntity,
  ProviderSystemEventEntity,
];
