/**
 * Scenario catalog v2: versioned data, not code paths. The optimizer will change and replay it.
 * Each scenario names what it suspects, its strongest alternative, and the neutral question the
 * diagnostic agent asks (the question never contains the suspicion).
 */
export interface ScenarioPlaybook {
  scenario: string;
  /** Lower-case words or phrases (a trailing `*` is a prefix); a ticket affirming any of them selects the scenario. */
  signals: string[];
  /** Metric-ontology families the scenario needs: when none of them returned data, the brief says so instead of concluding. */
  families: string[];
  /**
   * The families are a general symptom (slowness, an alarm): without them a cause may still be
   * named from the other measured families. Otherwise (lag, storage, connections) their absence
   * leaves the scenario undetermined.
   */
  generalSymptom?: boolean;
  hypothesis: string;
  strongestAlternative: string;
  question: string;
  stopCondition: string;
}

export const SCENARIO_CATALOG_VERSION = 'catalog-v3';

export const SCENARIO_CATALOG: readonly ScenarioPlaybook[] = [
  {
    scenario: 'latency-regression',
    signals: ['latency', 'slow*', 'p99', 'p95', 'timeout*', 'timing out', 'time out', 'response time', 'duration'],
    families: ['statement_latency', 'statement_rate'],
    generalSymptom: true,
    hypothesis: 'query latency rose because of a workload or resource change on the cluster',
    strongestAlternative: 'latency seen by the client comes from the network or the application, not the database',
    question: 'How did query duration percentiles, QPS, the top statements by total time and the slow statements by digest change across the window?',
    stopCondition: 'A duration percentile series, the top statements by time and the slow statements by digest are available for the window, or the provider reports none.',
  },
  {
    scenario: 'hotspot',
    signals: ['hotspot*', 'hot region*', 'hot key*', 'hot store', 'uneven', 'imbalance*', 'unbalanced', 'single tikv', 'one tikv', 'one node', 'one store'],
    families: ['cpu'],
    hypothesis: 'load concentrates on a few regions or one store',
    strongestAlternative: 'the whole cluster is saturated evenly',
    question: 'How are CPU and read/write traffic distributed across TiKV stores and regions during the window, and which top statements by CPU account for it?',
    stopCondition: 'Per-store CPU and request series and the top statements by CPU are available for the window, or the provider reports none.',
  },
  {
    scenario: 'cpu-saturation',
    signals: ['cpu', 'saturat*', 'overload*', 'high load', '100%', 'load average'],
    families: ['cpu'],
    hypothesis: 'a component ran out of CPU',
    strongestAlternative: 'requests queue on I/O or locks while CPU is not the limit',
    question: 'What were CPU utilisation per component and the statements consuming most CPU during the window?',
    stopCondition: 'CPU series per component and the top statements by CPU are available, or the provider reports none.',
  },
  {
    scenario: 'replication-lag',
    signals: ['lag*', 'changefeed*', 'replication', 'replica*', 'ticdc', 'cdc', 'behind', 'seconds behind master', 'read replica', 'standby', 'replication delay', 'stale reads'],
    families: ['replication_lag'],
    hypothesis: 'the changefeed or replica falls behind the upstream write rate',
    strongestAlternative: 'the downstream sink is slow or unavailable',
    question: 'How did changefeed checkpoint lag, upstream write rate and sink write duration change across the window?',
    stopCondition: 'Checkpoint lag and sink duration series are available for the window, or the provider reports none.',
  },
  {
    scenario: 'error-spike',
    signals: ['error*', 'failed', 'failure*', 'exception*', '5xx', 'aborted'],
    families: ['errors'],
    generalSymptom: true,
    hypothesis: 'a component failed or restarted',
    strongestAlternative: 'the errors are client-side (bad requests, auth) and the cluster is healthy',
    question: 'Which error counts, restarts and component health changes occurred during the window?',
    stopCondition: 'Error and restart counters for every component are available for the window, or the provider reports none.',
  },
  {
    scenario: 'connection-exhaustion',
    signals: ['too many connections', 'too many clients', 'connection limit', 'max_connections', 'max connections', 'connection slots', 'connection pool*', 'connections', 'connection refused', 'cannot connect', "can't connect", 'unable to connect', 'connection count', 'pool exhausted'],
    families: ['connections', 'connection_limit'],
    hypothesis: 'the number of database connections reached the connection limit, so new connections are refused',
    strongestAlternative: 'connections fail in the network or the client pool, while the database stays below its connection limit',
    question: 'How did the number of database connections and active sessions compare with the connection limit across the window, and how did statement rate change?',
    stopCondition: 'Connection count and connection limit series are available for the window, or the provider reports none.',
  },
  {
    scenario: 'storage-full',
    signals: ['disk full', 'disk is full', 'out of space', 'no space left', 'storage full', 'storage is full', 'free storage', 'free space', 'disk space', 'storage space', 'running out of storage', 'storage-full', 'volume full', 'storage'],
    families: ['storage_free', 'storage_used'],
    hypothesis: 'free storage ran out (or is about to), so writes fail or the instance stops accepting them',
    strongestAlternative: 'storage is fine and writes fail for another reason (locks, read-only mode, errors)',
    question: 'How did free storage, used storage and storage capacity change across the window, and how did WAL and transaction log generation grow?',
    stopCondition: 'Free or used storage series are available for the window, or the provider reports none.',
  },
  {
    scenario: 'memory-pressure',
    signals: ['memory', 'out of memory', 'oom*', 'swap*', 'freeable memory', 'page fault*', 'memory pressure'],
    families: ['memory', 'swap'],
    hypothesis: 'the instance ran short of memory and started swapping (or the database process was killed)',
    strongestAlternative: 'memory is stable and the slowdown comes from CPU or I/O',
    question: 'How did memory usage, freeable memory and swap usage change across the window, and did uptime reset?',
    stopCondition: 'Memory and swap series are available for the window, or the provider reports none.',
  },
  {
    scenario: 'io-saturation',
    signals: ['iops', 'i/o', 'io wait', 'iowait', 'disk latency', 'disk queue', 'queue depth', 'burst balance', 'read latency', 'write latency', 'disk busy', 'disk utili*', 'io bound', 'throughput'],
    families: ['iops', 'io_latency', 'io_queue', 'io_throughput'],
    hypothesis: 'storage I/O is saturated: operations queue and each one takes longer',
    strongestAlternative: 'I/O stays within its limits and the slowdown comes from CPU, locks or the network',
    question: 'How did IOPS, I/O latency, disk queue depth and I/O throughput change across the window?',
    stopCondition: 'IOPS or I/O latency series are available for the window, or the provider reports none.',
  },
  {
    scenario: 'lock-contention',
    signals: ['lock*', 'deadlock*', 'blocked', 'blocking', 'lock wait*', 'waiting for lock', 'lock timeout', 'row lock*'],
    families: ['lock_waits', 'locks', 'deadlocks'],
    hypothesis: 'transactions wait on each other\'s locks (or deadlock), so statements stall',
    strongestAlternative: 'statements are slow on CPU or I/O and lock waits are a consequence, not the cause',
    question: 'How did lock waits, held locks and deadlocks change across the window, together with rollbacks?',
    stopCondition: 'Lock wait or lock count series are available for the window, or the provider reports none.',
  },
  {
    scenario: 'checkpoint-wal-storm',
    signals: ['checkpoint*', 'wal', 'write-ahead log', 'transaction log*', 'binlog*', 'redo log*', 'log flush*', 'flush*', 'dirty pages'],
    families: ['checkpoints', 'wal'],
    hypothesis: 'a burst of WAL / transaction-log generation forces frequent checkpoints that saturate writes',
    strongestAlternative: 'checkpoints are regular and the write slowdown comes from I/O limits or locks',
    question: 'How did WAL and transaction log generation, checkpoint frequency and dirty page flushing change across the window, together with IOPS?',
    stopCondition: 'WAL or checkpoint series are available for the window, or the provider reports none.',
  },
  {
    scenario: 'failover-restart',
    signals: ['failover', 'failed over', 'fail over', 'switchover', 'restart*', 'reboot*', 'crash*', 'went down', 'was down', 'outage', 'unavailable', 'primary changed', 'promoted', 'connection reset', 'disconnect*', 'dropped', 'reconnect*', 'lost connection*', 'connection lost', 'connections dropped'],
    families: ['uptime', 'restarts', 'failover', 'availability'],
    hypothesis: 'the database restarted or failed over to another node, dropping connections for a while',
    strongestAlternative: 'the database stayed up and clients lost connections for a network or client reason',
    question: 'Did the database restart or fail over during the window: how did uptime, restarts and failover events change, and how did connections and errors change around them?',
    stopCondition: 'Uptime or restart series are available for the window, or the provider reports none.',
  },
  {
    scenario: 'maintenance-interference',
    signals: ['vacuum*', 'autovacuum*', 'backup*', 'snapshot*', 'maintenance', 'reindex*', 'pg_dump', 'mysqldump', 'analyze table', 'auto analyze', 'optimize table', 'restore'],
    families: ['maintenance'],
    hypothesis: 'a maintenance job (vacuum, analyze, backup or restore) competes with the workload for I/O and CPU',
    strongestAlternative: 'no maintenance ran and the load comes from the workload itself',
    question: 'Did maintenance run during the window: how did vacuum, analyze and backup activity change, together with IOPS, I/O throughput and CPU?',
    stopCondition: 'Maintenance activity series are available for the window, or the provider reports none.',
  },
  {
    scenario: 'network',
    signals: ['network', 'packet loss', 'bandwidth', 'network throughput', 'network latency', 'connection timeout*', 'dns'],
    families: ['network'],
    hypothesis: 'network throughput or loss between clients and the database limits the workload',
    strongestAlternative: 'the network is fine and the database itself is slow',
    question: 'How did network throughput in and out change across the window, together with connections and errors?',
    stopCondition: 'Network throughput series are available for the window, or the provider reports none.',
  },
  {
    scenario: 'alarm-check',
    signals: ['alarm*', 'alert*', 'false alarm', 'false positive', 'recovered', 'back to normal', 'resolved itself', 'self-resolved', 'is it ok', 'is anything wrong', 'anything wrong', 'blip', 'spike'],
    families: [],
    hypothesis: 'the alarm reflects a real, lasting deviation in the database',
    strongestAlternative: 'the database is healthy or already recovered, and the alarm was transient or mis-set',
    question: 'Which core health signals (statement latency, statement rate, errors, CPU, connections, storage) deviate from their own baseline during the window, and are they still deviating at its end?',
    stopCondition: 'Core health series are available for the window, or the provider reports none.',
  },
];

/** Used when nothing specific matches: a general health check rather than a guess. */
export const GENERAL_HEALTH: ScenarioPlaybook = {
  scenario: 'general-health',
  signals: [],
  families: [],
  hypothesis: 'the reported symptom shows up in the cluster health signals',
  strongestAlternative: 'the cluster is healthy and the symptom is outside the database',
  question: 'Which core health signals (QPS, duration, errors, CPU, storage) deviate from their own baseline during the window?',
  stopCondition: 'Core health series are available for the window, or the provider reports none.',
};

export const MAX_SCENARIOS_PER_RUN = 3;
