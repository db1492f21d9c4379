import type { TicketAnalysisRequestedV1 } from '@aoc/contracts';
import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type RunStatus = 'requested' | 'diagnosing' | 'published';

/** One analysis of a ticket, owned by the router. */
@Entity({ schema: 'router', name: 'runs' })
export class RunEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @Column({ type: 'text' })
  title!: string;

  @Column({ type: 'text' })
  mode!: 'read' | 'write';

  @Column({ type: 'text' })
  trigger!: string;

  @Column({ type: 'timestamptz', nullable: true })
  cutoff!: Date | null;

  @Column({ type: 'text' })
  status!: RunStatus;

  @Column({ name: 'scenario_count', type: 'int', default: 0 })
  scenarioCount!: number;

  @Column({ name: 'trace_id', type: 'text', nullable: true })
  traceId!: string | null;

  @Column({ name: 'answer_fingerprint', type: 'text', nullable: true })
  answerFingerprint!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;

  /** Shared deadline of the diagnosis chain (22 min after intake by default). */
  @Column({ name: 'deadline_at', type: 'timestamptz', nullable: true })
  deadlineAt!: Date | null;

  @Column({ type: 'text', nullable: true })
  decision!: string | null;

  /** The published pair, kept for publish-read and write-back. */
  @Column({ type: 'jsonb', nullable: true })
  answer!: PublishedAnswer | null;

  /** The frozen request, so the deadline sweeper can still answer a run whose routing never ran. */
  @Column({ type: 'jsonb', nullable: true })
  request!: TicketAnalysisRequestedV1 | null;

  /** Why routing found no single target: the problem, the inventory candidates and the names tried. */
  @Column({ type: 'jsonb', nullable: true })
  targeting!: Targeting | null;

  /** Write mode: the internal comment written back to the ticket source, or why not. */
  @Column({ name: 'write_back', type: 'jsonb', nullable: true })
  writeBack!: WriteBackState | null;
}

export interface Targeting {
  problem: string | null;
  candidates: string[];
  tried: string[];
}

export interface PublishedAnswer {
  customerReplyMarkdown: string;
  internalHandoffMarkdown: string;
  decision: string;
  answerFingerprint: string;
}

export interface WriteBackState {
  /** `writing`: claimed by a publish-read in progress (stale after two minutes). */
  /** `updated`: the ticket's comment of this job existed (an earlier run) and was updated in place. */
  status: 'written' | 'updated' | 'already_written' | 'writing' | 'failed' | 'skipped';
  idempotencyKey: string;
  commentId: string | null;
  errorCode: string | null;
  at: string;
}
