import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity({ schema: 'evidence', name: 'planned_batches' })
export class PlannedBatchEntity {
  @PrimaryColumn({ name: 'batch_id', type: 'text' })
  batchId!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ name: 'scenario_id', type: 'text' })
  scenarioId!: string;

  @Column({ name: 'query_count', type: 'int' })
  queryCount!: number;

  @Column({ name: 'planner_notes', type: 'text' })
  plannerNotes!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
