import type { Decision, EvaluationJudgedV1, RunMode, RunTrigger, TicketCommentV1, TimelineCommentV1, Verdict } from '@aoc/contracts';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export type QualitySource = 'feedback' | 'judge' | 'none';
export type JudgeTrigger = 'human_answer' | 'review_requested';

/** The frozen ticket of one run (from ticket.analysis-requested): what the analysis could see. */
@Entity({ schema: 'judge', name: 'frozen_tickets' })
export class FrozenTicketEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text' })
  runId!: string;

  @Index('idx_judge_frozen_tickets_ticket')
  @Column({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @Column({ type: 'text' })
  title!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ name: 'reporter_role', type: 'text' })
  reporterRole!: TicketCommentV1['authorRole'];

  @Column({ name: 'ticket_created_at', type: 'timestamptz' })
  ticketCreatedAt!: Date;

  @Column({ type: 'jsonb' })
  labels!: string[];

  /** The comments frozen into the analysis input (customer comments up to the cutoff). */
  @Column({ name: 'customer_comments', type: 'jsonb' })
  customerComments!: TicketCommentV1[];

  @Column({ type: 'text' })
  mode!: RunMode;

  @Column({ type: 'text' })
  trigger!: RunTrigger;

  @Column({ type: 'timestamptz', nullable: true })
  cutoff!: Date | null;

  @Column({ name: 'requested_at', type: 'timestamptz' })
  requestedAt!: Date;
}

/**
 * A published answer version as the judge may see it: messages, decision, fingerprint, mode,
 * trigger, cutoff. No execution state. Also the current quality projection of the version.
 */
@Entity({ schema: 'judge', name: 'answers' })
export class AnswerEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text' })
  runId!: string;

  @Index('idx_judge_answers_ticket')
  @Column({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @Column({ name: 'answer_fingerprint', type: 'text' })
  answerFingerprint!: string;

  @Column({ name: 'published_at', type: 'timestamptz' })
  publishedAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  cutoff!: Date | null;

  @Column({ name: 'customer_reply', type: 'text' })
  customerReply!: string;

  @Column({ name: 'internal_handoff', type: 'text' })
  internalHandoff!: string;

  @Column({ type: 'text' })
  decision!: Decision;

  /** What the answer asked the customer for (its clarification request). */
  @Column({ name: 'requested_context', type: 'jsonb', default: () => "'[]'" })
  requestedContext!: string[];

  @Column({ type: 'text' })
  mode!: RunMode;

  @Column({ type: 'text' })
  trigger!: RunTrigger;

  @Column({ name: 'latest_evaluation_id', type: 'text', nullable: true })
  latestEvaluationId!: string | null;

  @Column({ name: 'latest_verdict', type: 'text', nullable: true })
  latestVerdict!: Verdict | null;

  /** Quality projection: explicit accept|revise|wrong owns it, else the Judge verdict. */
  @Column({ name: 'quality_score', type: 'smallint', nullable: true })
  qualityScore!: 0 | 1 | null;

  @Column({ name: 'quality_source', type: 'text' })
  qualitySource!: QualitySource;

  @Column({ name: 'judge_review_requested', type: 'boolean' })
  judgeReviewRequested!: boolean;
}

/** The latest timeline of a ticket; older revisions never replace it. */
@Entity({ schema: 'judge', name: 'timelines' })
export class TimelineEntity {
  @PrimaryColumn({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @Column({ type: 'bigint' })
  revision!: string;

  @Column({ type: 'jsonb' })
  comments!: TimelineCommentV1[];
}

/** A trusted /ao comment bound, once and for good, to the answer version it evaluated; comment ids are unique within a ticket only. */
@Entity({ schema: 'judge', name: 'feedback_bindings' })
export class FeedbackBindingEntity {
  @Index('idx_judge_feedback_bindings_ticket')
  @PrimaryColumn({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @PrimaryColumn({ name: 'comment_id', type: 'text' })
  commentId!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ name: 'answer_fingerprint', type: 'text' })
  answerFingerprint!: string;

  @Column({ type: 'text' })
  action!: 'accept' | 'revise' | 'wrong' | 'human';

  @Column({ type: 'text' })
  reason!: string;

  @Column({ name: 'comment_created_at', type: 'text' })
  commentCreatedAt!: string;

  @Column({ name: 'comment_updated_at', type: 'text' })
  commentUpdatedAt!: string;

  @Column({ name: 'author_role', type: 'text' })
  authorRole!: string;

  @Column({ type: 'text' })
  visibility!: 'public' | 'internal';

  @Column({ name: 'bound_at', type: 'timestamptz' })
  boundAt!: Date;
}

/** Every version of every trusted /ao comment ever seen, bound or not: raw feedback is never lost. */
@Entity({ schema: 'judge', name: 'feedback_comments' })
export class FeedbackCommentEntity {
  @PrimaryColumn({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @PrimaryColumn({ name: 'comment_id', type: 'text' })
  commentId!: string;

  @PrimaryColumn({ name: 'comment_updated_at', type: 'text' })
  commentUpdatedAt!: string;

  @Column({ name: 'comment_created_at', type: 'text' })
  commentCreatedAt!: string;

  @Column({ name: 'author_role', type: 'text' })
  authorRole!: string;

  @Column({ type: 'text' })
  visibility!: 'public' | 'internal';

  @Column({ type: 'text' })
  body!: string;

  @Column({ name: 'recorded_at', type: 'timestamptz' })
  recordedAt!: Date;
}

/** One published evaluation, with both raw position-ordered results and the quality projection. */
@Entity({ schema: 'judge', name: 'evaluations' })
export class EvaluationEntity {
  @PrimaryColumn({ name: 'evaluation_id', type: 'text' })
  evaluationId!: string;

  @Index('idx_judge_evaluations_run')
  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @Column({ name: 'answer_fingerprint', type: 'text' })
  answerFingerprint!: string;

  @Column({ type: 'text' })
  verdict!: Verdict;

  @Column({ name: 'verdict_reason', type: 'text' })
  verdictReason!: string;

  @Column({ name: 'judge_engine', type: 'text' })
  judgeEngine!: string;

  /** Why the verdict is not_compared (JUDGE.* code); null otherwise and on older rows. */
  @Column({ name: 'abstention_code', type: 'text', nullable: true })
  abstentionCode!: string | null;

  @Column({ name: 'judge_trigger', type: 'text' })
  judgeTrigger!: JudgeTrigger;

  /** 1, 2, ... per answer version (run): a later human answer re-judges it. */
  @Column({ type: 'int', default: 1 })
  revision!: number;

  /** False: the judgment equalled the latest published one (same human answer and verdict) and was not published again. */
  @Column({ type: 'boolean', default: true })
  published!: boolean;

  /** Write mode: the version this answer replaced (its run and fingerprint) and that version's latest /ao comment. */
  @Column({ name: 'previous_run_id', type: 'text', nullable: true })
  previousRunId!: string | null;

  @Column({ name: 'previous_fingerprint', type: 'text', nullable: true })
  previousFingerprint!: string | null;

  @Column({ name: 'previous_feedback_id', type: 'text', nullable: true })
  previousFeedbackId!: string | null;

  /** sha256 of the verdict, abstention code and selected human comments (ids and body digests). */
  @Column({ name: 'outcome_digest', type: 'text', nullable: true })
  outcomeDigest!: string | null;

  /** Null only for evaluations from before the position-bias guard. */
  @Column({ name: 'orders_agree', type: 'boolean', nullable: true })
  ordersAgree!: boolean | null;

  /** Both raw results (published answer first, human answer first) with engine, model, usage. */
  @Column({ name: 'raw_results', type: 'jsonb' })
  rawResults!: unknown[];

  /** The evaluation.judged payload as published. */
  @Column({ type: 'jsonb', nullable: true })
  payload!: EvaluationJudgedV1 | null;

  /** Quality projection at judging time (feedback owns it when explicit). */
  @Column({ name: 'quality_projection', type: 'jsonb', nullable: true })
  qualityProjection!: { score: 0 | 1 | null; source: QualitySource; judgeReviewRequested: boolean } | null;

  @Column({ name: 'judged_at', type: 'timestamptz' })
  judgedAt!: Date;
}

/** A model judge's verdict that the built-in judge, deciding the same input, answered differently. */
@Entity({ schema: 'judge', name: 'judge_disagreements' })
@Index('idx_judge_disagreements_recorded', ['recordedAt'])
export class JudgeDisagreementEntity {
  @PrimaryColumn({ name: 'evaluation_id', type: 'text' })
  evaluationId!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @Column({ name: 'model_engine', type: 'text' })
  modelEngine!: string;

  @Column({ name: 'model_verdict', type: 'text' })
  modelVerdict!: Verdict;

  @Column({ name: 'builtin_verdict', type: 'text' })
  builtinVerdict!: Verdict;

  @Column({ name: 'builtin_reason', type: 'text' })
  builtinReason!: string;

  @Column({ name: 'recorded_at', type: 'timestamptz' })
  recordedAt!: Date;
}

/** A judgment that could not be made (model error); retried on the next event unless blocking. */
@Entity({ schema: 'judge', name: 'evaluation_failures' })
export class EvaluationFailureEntity {
  @PrimaryColumn({ name: 'evaluation_id', type: 'text' })
  evaluationId!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @Column({ type: 'text' })
  code!: string;

  @Column({ type: 'text' })
  message!: string;

  @Column({ type: 'boolean' })
  retryable!: boolean;

  /** Content failures (refusal, truncation, invalid output) are not retried for the same input. */
  @Column({ type: 'boolean' })
  blocking!: boolean;

  @Column({ type: 'integer' })
  failures!: number;

  @Column({ name: 'failed_at', type: 'timestamptz' })
  failedAt!: Date;
}
