import type { FixtureSeries } from '@aoc/providers';

/**
 * Synthetic but realistic metric series for the bundled example tickets. They are the input of
 * `npm run examples:record`, which runs each example against a real Prometheus holding them and
 * stores the sanitised results the executor later replays.
 */
const BUCKETS = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '+Inf'] as const;

/** Cumulative share of statements at or below each bucket bound. */
type Distribution = Record<(typeof BUCKETS)[number], number>;

const HEALTHY: Distribution = { '0.005': 0.3, '0.01': 0.6, '0.025': 0.9, '0.05': 0.995, '0.1': 0.999, '0.25': 1, '0.5': 1, '1': 1, '+Inf': 1 };
const SCAN_CONTENTION: Distribution = { '0.005': 0.2, '0.01': 0.45, '0.025': 0.75, '0.05': 0.95, '0.1': 0.995, '0.25': 0.999, '0.5': 1, '1': 1, '+Inf': 1 };

function minutes(fromIso: string, toIso: string): number[] {
  const out: number[] = [];
  for (let t = Date.parse(fromIso) / 1000; t <= Date.parse(toIso) / 1000; t += 60) out.push(t);
  return out;
}

/** Counter series from a per-minute rate function. */
function counter(metric: string, labels: Record<string, string>, times: number[], perSecond: (t: number) => number): FixtureSeries {
  let total = 0;
  return {
    metric,
    type: 'counter',
    labels,
    samples: times.map((t) => {
      total += perSecond(t) * 60;
      return [t, Math.round(total)];
    }),
  };
}

/** SUP-1042: p99 doubles at 10:38 when a report query starts scanning `orders`; QPS +30%. */
export function latencyRegressionSeries(): FixtureSeries[] {
  const cluster = 'tidb-prod-7f3a';
  const times = minutes('2026-11-20T08:00:00Z', '2026-11-20T11:30:00Z');
  const incident = Date.parse('2026-11-20T10:38:00Z') / 1000;
  const qps = (t: number) => (t >= incident ? 260 : 200);
  const series: FixtureSeries[] = [];
  for (const instance of ['tidb-0', 'tidb-1']) {
    const share = instance === 'tidb-0' ? 0.5 : 0.5;
    for (const le of BUCKETS) {
      series.push(
        counter('tidb_server_handle_query_duration_seconds_bucket', { cluster, instance: `${instance}.tidb-prod-7f3a.svc:10080`, le }, times, (t) => qps(t) * share * (t >= incident ? SCAN_CONTENTION : HEALTHY)[le]),
      );
    }
    series.push(counter('tidb_server_query_total', { cluster, instance: `${instance}.tidb-prod-7f3a.svc:10080`, type: 'Query', result: 'OK' }, times, (t) => qps(t) * share));
  }
  return series;
}

export interface RecordedExample {
  ticketFile: string;
  series: () => FixtureSeries[];
  /** Prometheus target name (the cluster id the ticket names). */
  target: string;
}

export const RECORDED_EXAMPLES: readonly RecordedExample[] = [
  { ticketFile: 'latency-regression.json', series: latencyRegressionSeries, target: 'tidb-prod-7f3a' },
];
