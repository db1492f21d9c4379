import type { Decision, Verdict } from '@aoc/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ schema: 'reporter', name: 'published_runs' })
export class PublishedRunEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

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
}

@Entity({ schema: 'reporter', name: 'evaluations' })
export class ReportedEvaluationEntity {
  @PrimaryColumn({ name: 'evaluation_id', type: 'text' })
  evaluationId!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ type: 'text' })
  verdict!: Verdict;

  @Column({ name: 'verdict_reason', type: 'text' })
  verdictReason!: string;

  @Column({ name: 'ai_gaps', type: 'jsonb' })
  aiGaps!: string[];

  @Column({ name: 'judged_at', type: 'timestamptz' })
  judgedAt!: Date;
}
