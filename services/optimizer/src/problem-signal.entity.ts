import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A recurring-problem candidate observed on one run; Focus selection builds on these. */
@Entity({ schema: 'optimizer', name: 'problem_signals' })
export class ProblemSignalEntity {
  @PrimaryColumn({ name: 'signal_id', type: 'text' })
  signalId!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  @Column({ type: 'text' })
  kind!: string;

  @Column({ type: 'text' })
  detail!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
