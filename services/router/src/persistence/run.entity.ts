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
}
