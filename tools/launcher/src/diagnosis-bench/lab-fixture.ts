// Diagnosis benchmark, suite L: a small valid lab case for the unit tests.
import type { LabCase } from './lab-case';

/** A small valid case; tests break one field at a time. */
export function sampleCase(over: Partial<LabCase> = {}): LabCase {
  return {
    id: 'pg-deadlocks-09',
    engine: 'postgres',
    cluster: 'lab-pg-09',
    mode: 'deadlocks',
    variant: { intensity: 'high', onset: 'middle', redHerring: null },
    recorded: { at: '2026-12-02T01:00:00.000Z', durationRealS: 110, timeScale: 40, caseStart: '2026-12-02T08:46:40.000Z', versions: { postgres: '15.20' } },
    truth: { mode: 'deadlocks', state: 'active', faultStart: '2026-12-02T09:25:00Z', faultEnd: null, families: ['deadlocks'], alsoAcceptModes: [] },
    ticket: {
      mode: 'read',
      trigger: 'replay',
      cutoff: '2026-12-02T10:00:00Z',
      ticket: { key: 'LAB-3253', title: 'Requests failing on lab-pg-09', description: 'Some of our API calls fail since about 09:25 UTC. Cluster is lab-pg-09.', reporterRole: 'customer', createdAt: '2026-12-02T09:57:00Z', labels: [], comments: [] },
    },
    series: [{ metric: 'pg_up', labels: { cluster: 'lab-pg-09', instance: 'lab-pg-09-a' }, type: 'gauge', t: [0, 40, 80], v: [1, 1, 1] }],
    logs: [{ t: 40, labels: { cluster: 'lab-pg-09', job: 'postgres' }, line: '[123] app@lab ERROR:  deadlock detected' }],
    statements: { pg_stat_statements: [] },
    ...over,
  };
}

/** A MariaDB case with a statement snapshot as the recorder writes it (one expensive digest). */
export function sampleMariadbCase(id = 'my-cpu-statement-04'): LabCase {
  return sampleCase({
    id,
    engine: 'mariadb',
    cluster: `lab-my-${id.slice(-2)}`,
    statements: {
      events_statements_summary_by_digest: [{ digest: 'ab12', digest_text: 'SELECT SUM ( `x` ) FROM `orders`', count_star: 84, sum_timer_wait_s: 150.5, sum_lock_time_s: 0.01, sum_rows_examined: 25_200_000, sum_rows_sent: 84, sum_no_index_used: 84, sum_created_tmp_disk_tables: 0, sum_sort_merge_passes: 0, sum_errors: 0 }],
      processlist: [
        { command: 'Sleep', state: '', count: 5 },
        { command: 'Query', state: 'Sending data', count: 2 },
      ],
      global_status: { Threads_connected: 7, Innodb_deadlocks: 175 },
      variables: { max_connections: '60' },
    },
  });
}
