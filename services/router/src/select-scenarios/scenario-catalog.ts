/**
 * Scenario catalog v2: versioned data, not code paths. The optimizer will change and replay it.
 * Each scenario names what it suspects, its strongest alternative, and the neutral question the
 * diagnostic agent asks (the question never contains the suspicion).
 */
export interface ScenarioPlaybook {
  scenario: string;
  /** Lower-case phrases; a ticket matching any of them selects the scenario. */
  signals: string[];
  hypothesis: string;
  strongestAlternative: string;
  question: string;
  stopCondition: string;
}

export const SCENARIO_CATALOG_VERSION = 'catalog-v2';

export const SCENARIO_CATALOG: readonly ScenarioPlaybook[] = [
  {
    scenario: 'latency-regression',
    signals: ['latency', 'slow', 'p99', 'p95', 'timeout', 'response time', 'duration'],
    hypothesis: 'query latency rose because of a workload or resource change on the cluster',
    strongestAlternative: 'latency seen by the client comes from the network or the application, not the database',
    question: 'How did query duration percentiles, QPS, the top statements by total time and the slow statements by digest change across the window?',
    stopCondition: 'A duration percentile series, the top statements by time and the slow statements by digest are available for the window, or the provider reports none.',
  },
  {
    scenario: 'hotspot',
    signals: ['hotspot', 'hot region', 'hot key', 'hot store', 'uneven', 'imbalance', 'unbalanced', 'single tikv', 'one tikv', 'one node', 'one store'],
    hypothesis: 'load concentrates on a few regions or one store',
    strongestAlternative: 'the whole cluster is saturated evenly',
    question: 'How are CPU and read/write traffic distributed across TiKV stores and regions during the window, and which top statements by CPU account for it?',
    stopCondition: 'Per-store CPU and request series and the top statements by CPU are available for the window, or the provider reports none.',
  },
  {
    scenario: 'cpu-saturation',
    signals: ['cpu', 'saturat', 'overload', 'high load', '100%'],
    hypothesis: 'a component ran out of CPU',
    strongestAlternative: 'requests queue on I/O or locks while CPU is not the limit',
    question: 'What were CPU utilisation per component and the statements consuming most CPU during the window?',
    stopCondition: 'CPU series per component and the top statements by CPU are available, or the provider reports none.',
  },
  {
    scenario: 'replication-lag',
    signals: ['lag', 'changefeed', 'replication', 'ticdc', 'cdc', 'checkpoint', 'behind'],
    hypothesis: 'the changefeed or replica falls behind the upstream write rate',
    strongestAlternative: 'the downstream sink is slow or unavailable',
    question: 'How did changefeed checkpoint lag, upstream write rate and sink write duration change across the window?',
    stopCondition: 'Checkpoint lag and sink duration series are available for the window, or the provider reports none.',
  },
  {
    scenario: 'error-spike',
    signals: ['error', 'failed', 'failure', 'exception', 'crash', 'restart', 'oom'],
    hypothesis: 'a component failed or restarted',
    strongestAlternative: 'the errors are client-side (bad requests, auth) and the cluster is healthy',
    question: 'Which error counts, restarts and component health changes occurred during the window?',
    stopCondition: 'Error and restart counters for every component are available for the window, or the provider reports none.',
  },
];

/** Used when nothing specific matches: a general health check rather than a guess. */
export const GENERAL_HEALTH: ScenarioPlaybook = {
  scenario: 'general-health',
  signals: [],
  hypothesis: 'the reported symptom shows up in the cluster health signals',
  strongestAlternative: 'the cluster is healthy and the symptom is outside the database',
  question: 'Which core health signals (QPS, duration, errors, CPU, storage) deviate from their own baseline during the window?',
  stopCondition: 'Core health series are available for the window, or the provider reports none.',
};

export const MAX_SCENARIOS_PER_RUN = 3;
