import type { Decision, TimelineCommentV1, Verdict } from '@aoc/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A published answer version as the judge may see it: messages and decision, no execution state. */
@Entity({ schema: 'judge', name: 'answers' })
export class AnswerEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text' })
  runId!: string;

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

  @Column({ name: 'judged', type: 'boolean', default: false })
  judged!: boolean;
}

@Entity({ schema: 'judge', name: 'timelines' })
export class TimelineEntity {
  @PrimaryColumn({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @Column({ type: 'bigint' })
  revision!: string;

  @Column({ type: 'jsonb' })
  comments!: TimelineCommentV1[];
}

@Entity({ schema: 'judge', name: 'evaluations' })
export class EvaluationEntity {
  @PrimaryColumn({ name: 'evaluation_id', type: 'text' })
  evaluationId!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ type: 'text' })
  verdict!: Verdict;

  @Column({ name: 'judged_at', type: 'timestamptz' })
  judgedAt!: Date;
}
