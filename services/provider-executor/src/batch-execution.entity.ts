import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** One executed (or refused) batch; per-query attempts follow in the providers issue. */
@Entity({ schema: 'provider_executor', name: 'batch_executions' })
export class BatchExecutionEntity {
  @PrimaryColumn({ name: 'batch_id', type: 'text' })
  batchId!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ name: 'scenario_id', type: 'text' })
  scenarioId!: string;

  @Column({ type: 'text' })
  provider!: string;

  @Column({ type: 'text' })
  status!: string;

  @Column({ name: 'query_count', type: 'int' })
  queryCount!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
