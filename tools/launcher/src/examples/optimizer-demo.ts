import type { FixtureSeries } from '@aoc/providers/testing';
import { counter, gauge, minutes } from './series-builders';

/**
 * Synthetic incidents for `npm run optimize:demo` (tickets in services/optimizer/demo/tickets):
 * three databases of two engines where a blocking transaction makes sessions wait on row locks.
 * Lock waits rise noisily while CPU rises cleanly at the same minute, so a ranking by shift size
 * alone names CPU; the human answers (and the customers' confirmations) name the locks. Nothing
 * here tells the optimizer what to change: the judge finds the gap, the proposer searches the
 * declared tunables.
 */

/** Deterministic per-minute noise in [-1, 1]. */
const noise = (t: number, seed: number) => {
  const x = Math.sin((t / 60) * 12.9898 + seed * 78.233) * 43758.5453;
  return (x - Math.floor(x)) * 2 - 1;
};
const at = (iso: string) => Date.parse(iso) / 1000;

interface LockIncident {
  /** The target: the generic package selects its series by the `cluster` label. */
  cluster: string;
  from: string;
  to: string;
  onset: string;
  seed: number;
  lockMetric: string;
  lockKind: 'gauge' | 'counter';
  lockBefore: number;
  lockAfter: number;
  lockNoise: number;
  cpuBefore: number;
  cpuAfter: number;
  extra: (times: number[], labels: Record<string, string>) => FixtureSeries[];
}

function lockIncident(i: LockIncident): FixtureSeries[] {
  const times = minutes(i.from, i.to);
  const onset = at(i.onset);
  const labels = { cluster: i.cluster };
  const lock = (t: number) => Math.max(0, (t >= onset ? i.lockAfter : i.lockBefore) + i.lockNoise * noise(t, i.seed));
  return [
    i.lockKind === 'gauge' ? gauge(i.lockMetric, labels, times, lock) : counter(i.lockMetric, labels, times, lock),
    counter('process_cpu_seconds_total', labels, times, (t) => (t >= onset ? i.cpuAfter : i.cpuBefore) + 0.01 * noise(t, i.seed + 1)),
    ...i.extra(times, labels),
  ];
}

/** mysql-orders-1: row lock waits ~1.5 -> ~6 at 14:05 behind one long transaction. */
export function mysqlOrdersSeries(): FixtureSeries[] {
  return lockIncident({
    cluster: 'mysql-orders-1',
    from: '2026-11-24T12:00:00Z',
    to: '2026-11-24T15:00:00Z',
    onset: '2026-11-24T14:05:00Z',
    seed: 1,
    lockMetric: 'mysql_global_status_innodb_row_lock_current_waits',
    lockKind: 'gauge',
    lockBefore: 1.5,
    lockAfter: 6,
    lockNoise: 1.2,
    cpuBefore: 1.2,
    cpuAfter: 1.9,
    extra: (times, labels) => [counter('mysql_global_status_queries', labels, times, (t) => 800 + 10 * noise(t, 3)), gauge('mysql_global_status_threads_connected', labels, times, (t) => 40 + noise(t, 4))],
  });
}

/** mysql-ledger-2: row lock waits (a counter of waits) triple at 09:32. */
export function mysqlLedgerSeries(): FixtureSeries[] {
  return lockIncident({
    cluster: 'mysql-ledger-2',
    from: '2026-11-25T07:30:00Z',
    to: '2026-11-25T10:30:00Z',
    onset: '2026-11-25T09:32:00Z',
    seed: 5,
    lockMetric: 'mysql_global_status_innodb_row_lock_waits',
    lockKind: 'counter',
    lockBefore: 3,
    lockAfter: 10,
    lockNoise: 2.5,
    cpuBefore: 2.4,
    cpuAfter: 3.3,
    extra: (times, labels) => [counter('mysql_global_status_queries', labels, times, (t) => 1500 + 20 * noise(t, 7))],
  });
}

/** pg-payments-3: sessions waiting on locks ~2 -> ~8 at 21:10. */
export function pgPaymentsSeries(): FixtureSeries[] {
  return lockIncident({
    cluster: 'pg-payments-3',
    from: '2026-11-26T19:00:00Z',
    to: '2026-11-26T22:00:00Z',
    onset: '2026-11-26T21:10:00Z',
    seed: 9,
    lockMetric: 'pg_stat_activity_waiting',
    lockKind: 'gauge',
    lockBefore: 2,
    lockAfter: 8,
    lockNoise: 1.6,
    cpuBefore: 0.8,
    cpuAfter: 1.4,
    extra: (times, labels) => [counter('pg_stat_database_xact_commit', labels, times, (t) => 600 + 8 * noise(t, 11))],
  });
}
