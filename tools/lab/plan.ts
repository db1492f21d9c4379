// Incident lab recorder: which cases the lab records, in recording order per lane (the most
// needed first, so a short recording still spreads over the modes), and each mode's ground truth.
import type { MetricFamilyId } from '@aoc/metric-ontology';
import type { FailureMode, Onset } from '../launcher/src/diagnosis-bench/lab-case';

export interface CasePlan {
  id: string;
  engine: 'postgres' | 'mariadb';
  cluster: string;
  mode: FailureMode;
  intensity: 'low' | 'high';
  /** null: healthy (nothing injected). */
  onset: Onset | null;
  redHerring: FailureMode | null;
  /** The fault ends inside the window (restart and failover end by themselves). */
  recovered: boolean;
}

/** Families that count as naming each mode (metric ontology ids). */
export const MODE_FAMILIES: Record<FailureMode, MetricFamilyId[]> = {
  'cpu-load': ['cpu', 'active_sessions', 'statement_rate'],
  'cpu-statement': ['cpu', 'statement_latency', 'active_sessions'],
  'connection-exhaustion': ['connections', 'connection_limit'],
  'lock-contention': ['lock_waits', 'locks'],
  deadlocks: ['deadlocks'],
  'storage-full-data': ['storage_free', 'storage_used', 'storage_capacity'],
  'storage-full-wal': ['wal', 'storage_free'],
  'storage-full-temp': ['storage_free', 'io_throughput'],
  'replication-lag-write-volume': ['replication_lag', 'wal'],
  'replication-lag-replica-capacity': ['replication_lag'],
  'replication-lag-replica-query': ['replication_lag'],
  'checkpoint-storm': ['checkpoints', 'wal'],
  'io-limit': ['iops', 'iops_limit', 'io_latency', 'io_queue'],
  'memory-pressure': ['memory', 'swap'],
  failover: ['failover', 'availability'],
  restart: ['restarts', 'uptime', 'availability'],
  network: ['network'],
  'backup-maintenance': ['maintenance'],
  'batch-job': ['rows_written', 'statement_rate'],
  'changefeed-lag': ['replication_lag'],
  hotspot: ['lock_waits', 'locks'],
  'plan-regression': ['rows_read', 'statement_latency'],
  healthy: [],
};

/** Other modes whose naming is also right for a case of this mode (the same fault seen another way). */
export const ALSO_ACCEPT: Partial<Record<FailureMode, FailureMode[]>> = {
  'checkpoint-storm': ['batch-job'],
  'batch-job': ['checkpoint-storm'],
  hotspot: ['lock-contention'],
  'plan-regression': ['cpu-statement'],
  'cpu-load': ['cpu-statement'],
  failover: ['restart'],
};

type Row = [FailureMode, 'low' | 'high', Onset | null, FailureMode | null, boolean?];

// Postgres lane: 31 cases. Order interleaves modes so a cut-short recording still covers them.
const PG: Row[] = [
  ['connection-exhaustion', 'high', 'middle', null],
  ['lock-contention', 'high', 'early', null],
  ['checkpoint-storm', 'high', 'middle', null],
  ['replication-lag-replica-capacity', 'high', 'middle', null],
  ['healthy', 'low', null, null],
  ['deadlocks', 'high', 'middle', null],
  ['storage-full-data', 'high', 'middle', null],
  ['plan-regression', 'high', 'early', null],
  ['storage-full-temp', 'high', 'middle', null],
  ['replication-lag-replica-query', 'high', 'early', null],
  ['restart', 'high', 'middle', null, true],
  ['connection-exhaustion', 'low', 'before', null],
  ['lock-contention', 'low', 'late', 'batch-job'],
  ['checkpoint-storm', 'low', 'before', null],
  ['replication-lag-replica-capacity', 'low', 'before', null],
  ['healthy', 'low', null, 'batch-job'],
  ['deadlocks', 'low', 'early', 'batch-job'],
  ['plan-regression', 'low', 'before', null],
  ['cpu-statement', 'high', 'middle', null],
  ['connection-exhaustion', 'high', 'early', 'restart', true],
  ['lock-contention', 'high', 'middle', null, true],
  ['checkpoint-storm', 'high', 'late', 'connection-exhaustion'],
  ['replication-lag-replica-capacity', 'high', 'early', 'batch-job', true],
  ['storage-full-temp', 'low', 'early', null],
  ['replication-lag-replica-query', 'low', 'middle', null],
  ['storage-full-data', 'low', 'before', null],
  ['failover', 'high', 'middle', null, true],
  ['hotspot', 'high', 'middle', null],
  ['failover', 'high', 'early', null, true],
  ['failover', 'low', 'late', 'batch-job', true],
  ['replication-lag-replica-query', 'low', 'before', null],
];

// MariaDB lane: 27 cases.
const MY: Row[] = [
  ['connection-exhaustion', 'high', 'middle', null],
  ['lock-contention', 'high', 'early', null],
  ['deadlocks', 'high', 'middle', null],
  ['cpu-statement', 'high', 'middle', null],
  ['plan-regression', 'high', 'early', null],
  ['healthy', 'low', null, null],
  ['hotspot', 'high', 'middle', null],
  ['batch-job', 'high', 'middle', null],
  ['storage-full-temp', 'high', 'middle', null],
  ['restart', 'high', 'middle', null, true],
  ['connection-exhaustion', 'low', 'before', null],
  ['lock-contention', 'low', 'late', 'batch-job'],
  ['deadlocks', 'low', 'before', null],
  ['cpu-statement', 'low', 'late', null],
  ['plan-regression', 'low', 'before', null],
  ['healthy', 'low', null, 'batch-job'],
  ['hotspot', 'low', 'early', null, true],
  ['batch-job', 'low', 'early', null, true],
  ['storage-full-data', 'high', 'middle', null],
  ['cpu-statement', 'high', 'early', 'connection-exhaustion', true],
  ['restart', 'high', 'before', null, true],
  ['deadlocks', 'high', 'late', 'batch-job'],
  ['storage-full-data', 'low', 'before', null],
  ['storage-full-temp', 'low', 'early', null],
  ['hotspot', 'high', 'late', 'batch-job'],
  ['connection-exhaustion', 'high', 'early', null, true],
  ['batch-job', 'high', 'before', null],
];

function build(rows: Row[], engine: CasePlan['engine']): CasePlan[] {
  const prefix = engine === 'postgres' ? 'pg' : 'my';
  return rows.map(([mode, intensity, onset, redHerring, recovered], i) => {
    const n = String(i + 1).padStart(2, '0');
    return { id: `${prefix}-${mode}-${n}`, engine, cluster: `lab-${prefix}-${n}`, mode, intensity, onset, redHerring, recovered: recovered ?? false };
  });
}

export const PLAN: { postgres: CasePlan[]; mariadb: CasePlan[] } = { postgres: build(PG, 'postgres'), mariadb: build(MY, 'mariadb') };
