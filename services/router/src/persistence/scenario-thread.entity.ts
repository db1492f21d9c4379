import type { EvidenceBatchMaterializedV1, LocalCausalBriefV1 } from '@aoc/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Execution state of a scenario's evidence batch; feeds run.execution-recorded only. */
export interface EvidenceRecord {
  provider: string;
  queries: { queryId: string; outcome: string; attempts: number }[];
  failures: { queryId: string; code: string; supplemental: boolean }[];
  /** Query events, HTTP attempts and 5xx episodes as the executor recorded them. */
  execution?: EvidenceBatchMaterializedV1['execution'];
}

export type ThreadStatus = 'asked' | 'refining' | 'concluded';

/** The persistent state of one scenario's diagnostic agent within a run. */
@Entity({ schema: 'router', name: 'scenario_threads' })
export class ScenarioThreadEntity {
  @PrimaryColumn({ name: 'run_id', type: 'text' })
  runId!: string;

  @PrimaryColumn({ name: 'scenario_id', type: 'text' })
  scenarioId!: string;

  @Column({ type: 'text' })
  scenario!: string;

  @Column({ type: 'text' })
  provider!: string;

  @Column({ type: 'text', nullable: true })
  target!: string | null;

  @Column({ type: 'text' })
  hypothesis!: string;

  @Column({ name: 'strongest_alternative', type: 'text' })
  strongestAlternative!: string;

  @Column({ type: 'text' })
  question!: string;

  @Column({ type: 'text' })
  status!: ThreadStatus;

  @Column({ name: 'evidence_status', type: 'text', nullable: true })
  evidenceStatus!: string | null;

  /** Query outcomes and failure codes of the materialised batch (execution state). */
  @Column({ name: 'evidence_record', type: 'jsonb', nullable: true })
  evidenceRecord!: EvidenceRecord | null;

  @Column({ type: 'jsonb', nullable: true })
  brief!: LocalCausalBriefV1 | null;
}
