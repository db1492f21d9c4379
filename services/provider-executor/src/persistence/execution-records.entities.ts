import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** Every attempt of every logical query, in order (including folded duplicates). */
@Entity({ schema: 'provider_executor', name: 'provider_query_attempts' })
@Index('provider_query_attempts_request_idx', ['requestId', 'queryId'])
export class ProviderQueryAttemptEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'batch_id', type: 'text' })
  batchId!: string;

  @Column({ name: 'request_id', type: 'text' })
  requestId!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ name: 'query_id', type: 'text' })
  queryId!: string;

  @Column({ name: 'expression_hash', type: 'text' })
  expressionHash!: string;

  @Column({ type: 'int' })
  attempt!: number;

  @Column({ type: 'text' })
  outcome!: string;

  @Column({ name: 'error_code', type: 'text', nullable: true })
  errorCode!: string | null;

  @Column({ name: 'detail_error', type: 'text', nullable: true })
  detailError!: string | null;

  @Column({ type: 'boolean' })
  folded!: boolean;

  @Column({ type: 'timestamptz' })
  at!: Date;
}

/** One event per materialised logical query: complete, empty or failed. */
@Entity({ schema: 'provider_executor', name: 'provider_query_events' })
export class ProviderQueryEventEntity {
  @PrimaryColumn({ name: 'batch_id', type: 'text' })
  batchId!: string;

  @PrimaryColumn({ name: 'query_id', type: 'text' })
  queryId!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ type: 'text' })
  provider!: string;

  @Column({ type: 'text' })
  outcome!: string;

  @Column({ type: 'boolean' })
  supplemental!: boolean;

  @Column({ type: 'timestamptz' })
  at!: Date;
}

/** Each HTTP response attempt by status class (200/400/500/502/other). */
@Entity({ schema: 'provider_executor', name: 'provider_http_attempts' })
export class ProviderHttpAttemptEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'batch_id', type: 'text' })
  batchId!: string;

  @Column({ name: 'query_id', type: 'text' })
  queryId!: string;

  @Column({ type: 'text' })
  provider!: string;

  @Column({ name: 'status_class', type: 'text' })
  statusClass!: string;

  @Column({ type: 'timestamptz' })
  at!: Date;
}

/** Provider 5xx episodes: status sequence, recovered or still failed, redacted error, request id. */
@Entity({ schema: 'provider_executor', name: 'provider_system_events' })
export class ProviderSystemEventEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'batch_id', type: 'text' })
  batchId!: string;

  @Column({ name: 'query_id', type: 'text' })
  queryId!: string;

  @Column({ type: 'text' })
  provider!: string;

  @Column({ name: 'status_sequence', type: 'jsonb' })
  statusSequence!: number[];

  @Column({ type: 'text' })
  result!: string;

  @Column({ name: 'upstream_error', type: 'text' })
  upstreamError!: string;

  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId!: string | null;

  @Column({ type: 'timestamptz' })
  at!: Date;
}

/** One provider tool call's audit record (tool, operations, target, window, outcome, duration, error code); never a secret, address or raw response. */
@Entity({ schema: 'provider_executor', name: 'tool_calls' })
@Index('idx_provider_executor_tool_calls_run', ['runId', 'startedAt'])
export class ToolCallEntity {
  @PrimaryColumn({ name: 'call_id', type: 'text' })
  callId!: string;

  @Column({ name: 'batch_id', type: 'text' })
  batchId!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @Column({ type: 'text' })
  provider!: string;

  @Column({ type: 'text' })
  tool!: string;

  @Column({ type: 'jsonb' })
  operations!: string[];

  @Column({ type: 'text', nullable: true })
  target!: string | null;

  @Column({ name: 'window_from', type: 'timestamptz', nullable: true })
  windowFrom!: Date | null;

  @Column({ name: 'window_to', type: 'timestamptz', nullable: true })
  windowTo!: Date | null;

  @Column({ type: 'text' })
  outcome!: string;

  @Column({ name: 'error_code', type: 'text', nullable: true })
  errorCode!: string | null;

  @Column({ name: 'duration_ms', type: 'int' })
  durationMs!: number;

  @Column({ name: 'output_bytes', type: 'int' })
  outputBytes!: number;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt!: Date;
}

/** Sanitised results kept for replay, keyed by package, target, operation, query and window. */
@Entity({ schema: 'provider_executor', name: 'evidence_recordings' })
@Index('evidence_recordings_recorded_at_idx', ['recordedAt'])
@Index('evidence_recordings_run_idx', ['runId'])
export class EvidenceRecordingEntity {
  @PrimaryColumn({ type: 'text' })
  key!: string;

  @Column({ type: 'jsonb' })
  entry!: object;

  @Column({ name: 'recorded_at', type: 'timestamptz' })
  recordedAt!: Date;

  /** The run that first recorded it (null: recorded before runs were noted); its per-run size cap sums by it. */
  @Column({ name: 'run_id', type: 'text', nullable: true })
  runId!: string | null;

  /** Size of the stored entry (JSON, UTF-8), summed for the size caps. */
  @Column({ type: 'int', default: 0 })
  bytes!: number;
}
