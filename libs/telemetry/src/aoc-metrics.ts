import { counter, gauge, histogram } from './metrics';

/**
 * Every series the platform exports, in one place (docs/operations.md "Metrics" lists them, the
 * Grafana dashboard deploy/grafana/auto-oncall.json plots them). Label values are topic names,
 * consumer group names, error codes, provider package names, roles and small closed sets; never
 * ticket text, SQL, secrets or addresses.
 */

/** Seconds: from a millisecond handler to a five-minute one. */
const HANDLER_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const PROVIDER_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];
const MODEL_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];

/** Outcomes of one consumed message that reached its handler. */
export const BUS_HANDLER_OUTCOMES = ['processed', 'duplicate', 'dead_lettered', 'redelivered'] as const;
export type BusHandlerOutcome = (typeof BUS_HANDLER_OUTCOMES)[number];

export const busMetrics = {
  /** From the first attempt to the outcome, retries and the prepare step included. */
  handlerDuration: histogram({
    name: 'aoc_bus_handler_duration_seconds',
    description: 'Time to handle one consumed message, retries included, by outcome',
    unit: 's',
    labels: ['role', 'topic', 'outcome'],
    values: { outcome: BUS_HANDLER_OUTCOMES },
    buckets: HANDLER_BUCKETS,
  }),
  retries: counter({
    name: 'aoc_bus_retries',
    description: 'Handler attempts that failed transiently and were tried again, by error code',
    labels: ['role', 'topic', 'code'],
  }),
  deadLetters: counter({
    name: 'aoc_bus_dead_letters',
    description: 'Messages dead-lettered, by the code of the reason',
    labels: ['role', 'topic', 'code'],
  }),
  consumerLag: gauge({
    name: 'aoc_bus_consumer_lag',
    description: 'Messages not yet handled behind the newest offset of an assigned partition (as of the last fetch on Kafka)',
    labels: ['role', 'consumer_group', 'topic', 'partition'],
    maxValues: 500,
  }),
  outboxBacklog: gauge({
    name: 'aoc_bus_outbox_backlog',
    description: 'Outbox rows committed and not yet relayed to the broker',
    labels: ['role'],
  }),
};

export const PROVIDER_QUERY_OUTCOMES = ['complete', 'empty', 'failed'] as const;
export const PROVIDER_CALL_OUTCOMES = ['ok', 'failed'] as const;

export const providerMetrics = {
  /** One executed query (live or record mode; replayed and folded queries are not executed). */
  queries: counter({
    name: 'aoc_provider_queries',
    description: 'Provider queries executed, by package, outcome and error code (none when it did not fail)',
    labels: ['package', 'outcome', 'code'],
    values: { outcome: PROVIDER_QUERY_OUTCOMES },
  }),
  /** One package call: the queries of a batch that share a window run in one call. */
  callDuration: histogram({
    name: 'aoc_provider_call_duration_seconds',
    description: 'Latency of one provider package call (the queries of one window of a batch), by outcome',
    unit: 's',
    labels: ['package', 'outcome'],
    values: { outcome: PROVIDER_CALL_OUTCOMES },
    buckets: PROVIDER_BUCKETS,
  }),
};

export const MODEL_TOKEN_TYPES = ['prompt', 'completion'] as const;

export const modelMetrics = {
  /** One HTTP call to the OpenAI-compatible API (a retried invocation makes several). */
  callDuration: histogram({
    name: 'aoc_model_call_duration_seconds',
    description: 'Latency of one model API call, by agent role and outcome (ok or the MODEL.* code)',
    unit: 's',
    labels: ['agent_role', 'outcome'],
    buckets: MODEL_BUCKETS,
  }),
  tokens: counter({
    name: 'aoc_model_tokens',
    description: 'Tokens the model API reported, by agent role and type',
    labels: ['agent_role', 'type'],
    values: { type: MODEL_TOKEN_TYPES },
  }),
};

export const pipelineMetrics = {
  runsPublished: counter({
    name: 'aoc_runs_published',
    description: 'Runs whose answer the router published, by decision',
    labels: ['decision'],
    maxValues: 20,
  }),
  evaluationsJudged: counter({
    name: 'aoc_evaluations_judged',
    description: 'Evaluations the judge published, by verdict',
    labels: ['verdict'],
    maxValues: 20,
  }),
};

/** Prometheus names of every series (counters get `_total` on export; histograms `_bucket`, `_sum`, `_count`). */
export const AOC_SERIES = [
  'aoc_bus_handler_duration_seconds',
  'aoc_bus_retries_total',
  'aoc_bus_dead_letters_total',
  'aoc_bus_consumer_lag',
  'aoc_bus_outbox_backlog',
  'aoc_provider_queries_total',
  'aoc_provider_call_duration_seconds',
  'aoc_model_call_duration_seconds',
  'aoc_model_tokens_total',
  'aoc_runs_published_total',
  'aoc_evaluations_judged_total',
] as const;
