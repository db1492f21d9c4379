import type { EvidenceBatchMaterializedV1, EvidenceFactV1, LocalCausalBriefV1, TimeWindow } from '@aoc/contracts';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Execution state of a scenario's evidence batch; feeds run.execution-recorded only. */
export interface EvidenceRecord {
  provider: string;
  queries: { queryId: string; outcome: string; attempts: number }[];
  failures: { queryId: string; code: string; supplemental: boolean }[];
  /** Query events, HTTP attempts and 5xx episodes as the executor recorded them. */
  execution?: EvidenceBatchMaterializedV1['execution'];
}

export type ThreadStatus = 'selected' | 'asked' | 'refining' | 'concluded';

/** The compact handoff of one evidence round, as the diagnostic agent consumed it. */
export interface EvidenceRound {
  round: number;
  batchId: string;
  status: EvidenceBatchMaterializedV1['status'];
  question: string;
  facts: EvidenceFactV1[];
  observations: string[];
  gaps: string[];
  failures: { queryId: string; code: string; supplemental: boolean }[];
}

/** The persistent state of one scenario's diagnostic agent within a run. */
@Entity({ schema: 'router', name: 'scenario_threads' })
@Index('scenario_threads_open_deadline', ['deadlineAt'], { where: `"status" <> 'concluded'` })
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

  /** 0 for the first evidence round, 1 once the single adaptive refinement was asked. */
  @Column({ type: 'int', default: 0 })
  round!: number;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  rounds!: EvidenceRound[];

  /** min(start + 16 min, shared deadline - publication reserve). */
  @Column({ name: 'deadline_at', type: 'timestamptz', nullable: true })
  deadlineAt!: Date | null;

  @Column({ name: 'stop_condition', type: 'text', nullable: true })
  stopCondition!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  window!: TimeWindow | null;

  /** When the customer says the problem started, inside the window (a ticket fact, not a hypothesis). */
  @Column({ name: 'reported_onset', type: 'timestamptz', nullable: true })
  reportedOnset!: Date | null;
}
