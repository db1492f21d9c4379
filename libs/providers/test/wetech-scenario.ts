import type { FixtureSeries } from './prometheus-fixture';
import type { TidbDashboardFixture } from './dashboard-tidb-fixture';
import { WETECH_TEST_CREDENTIALS as CREDS } from './wetech-fakes';

/**
 * One Wetech incident for the end-to-end tests: on wt-prod-sg-01 (ap-southeast-1) the second TiDB
 * server's CPU doubles at 10:38 because of one expensive statement.
 */
export const INCIDENT_T0 = Date.parse('2026-11-20T10:00:00Z') / 1000;
const minutes = (n: number) => Array.from({ length: n }, (_, i) => INCIDENT_T0 + i * 60);

export const HOT_TIDB = '10.20.1.12:10080';
export const COOL_TIDB = '10.20.1.11:10080';
export const EXPENSIVE_DIGEST = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const CHEAP_DIGEST = '5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9';
const WRITE_DIGEST = '6b86b273ff34fce19e6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b';
export const EXPENSIVE_SQL = "SELECT * FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.email LIKE '%@bigcorp.example'";

export const INCIDENT_SERIES: FixtureSeries[] = [
  { metric: 'tidb_server_cpu_seconds_total', type: 'counter', labels: { job: 'tidb', cluster: 'wt-prod-sg-01', instance: COOL_TIDB }, samples: minutes(60).map((t, i) => [t, i * 20]) },
  { metric: 'tidb_server_cpu_seconds_total', type: 'counter', labels: { job: 'tidb', cluster: 'wt-prod-sg-01', instance: HOT_TIDB }, samples: minutes(60).map((t, i) => [t, i < 38 ? i * 20 : 38 * 20 + (i - 38) * 50]) },
  { metric: 'tikv_thread_cpu_seconds_total', type: 'counter', labels: { job: 'tikv', cluster: 'wt-prod-sg-01', instance: '10.20.2.1:20180' }, samples: minutes(60).map((t, i) => [t, i * 10]) },
];

export const INCIDENT_DASHBOARD: TidbDashboardFixture = {
  clusters: {
    'wt-prod-sg-01': CREDS.default.dashboard,
    'saas01-core': CREDS['asia-saas01']?.dashboard ?? CREDS.default.dashboard,
  },
  topSql: {
    [HOT_TIDB]: [
      { digest: EXPENSIVE_DIGEST, sql_text: EXPENSIVE_SQL, cpu_time_ms: 1_650_000, exec_count_per_sec: 4.2, avg_latency_ms: 1900, plan_count: 2 },
      { digest: CHEAP_DIGEST, sql_text: 'SELECT 1', cpu_time_ms: 12_000, exec_count_per_sec: 300, avg_latency_ms: 0.4, plan_count: 1 },
    ],
  },
  statements: [
    { digest: EXPENSIVE_DIGEST, sql_text: EXPENSIVE_SQL, schema_name: 'shop', exec_count: 15_000, avg_latency_ms: 1900, max_latency_ms: 8200, sum_latency_ms: 28_500_000, avg_mem_bytes: 64 * 1024 * 1024, plan_count: 2 },
    { digest: WRITE_DIGEST, sql_text: 'UPDATE stock SET qty = qty - 1 WHERE sku = ?', schema_name: 'shop', exec_count: 900_000, avg_latency_ms: 3, max_latency_ms: 40, sum_latency_ms: 2_700_000, avg_mem_bytes: 4096, plan_count: 1 },
    { digest: CHEAP_DIGEST, sql_text: 'SELECT 1', schema_name: 'mysql', exec_count: 1_000_000, avg_latency_ms: 0.4, max_latency_ms: 2, sum_latency_ms: 400_000, avg_mem_bytes: 512, plan_count: 1 },
  ],
  slowQueries: [
    { digest: EXPENSIVE_DIGEST, query: EXPENSIVE_SQL, instance: '10.20.1.12:4000', user: 'shop_app', db: 'shop', timestamp: INCIDENT_T0 + 38 * 60 + 5, query_time_ms: 8200, mem_max_bytes: 90e6 },
    { digest: EXPENSIVE_DIGEST, query: EXPENSIVE_SQL, instance: '10.20.1.12:4000', user: 'shop_app', db: 'shop', timestamp: INCIDENT_T0 + 41 * 60, query_time_ms: 7600, mem_max_bytes: 88e6 },
    { digest: WRITE_DIGEST, query: 'UPDATE stock SET qty = qty - 1 WHERE sku = 7', instance: '10.20.1.11:4000', user: 'shop_app', db: 'shop', timestamp: INCIDENT_T0 + 45 * 60, query_time_ms: 1200, mem_max_bytes: 1e5 },
    { digest: CHEAP_DIGEST, query: 'SELECT 1', instance: '10.20.1.11:4000', user: 'root', db: 'mysql', timestamp: INCIDENT_T0 - 3600, query_time_ms: 30000, mem_max_bytes: 1 },
  ],
};
