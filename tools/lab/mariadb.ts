// Incident lab recorder: the MariaDB lane. Schema, the application's workload, clean state
// between cases and the end-of-case statistics snapshots.
import type { Connection } from 'mysql2/promise';
import { all, lab, loop, myConnection, myQuery, rand, sleep, type Handle } from './db';
import { normaliseSql } from './sanitize';

export async function setupMariadb(): Promise<void> {
  await myQuery('CREATE DATABASE IF NOT EXISTS shop', 'mysql', true);
  const have = await myQuery<{ n: number }>(`SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'shop' AND table_name IN ('accounts', 'orders', 'history', 'inventory', 'counters', 'events_archive', 'report')`);
  if (Number(have[0].n) === 7) return;
  for (const sql of [
    'DROP TABLE IF EXISTS accounts, orders, history, inventory, counters, events_archive, report, uploads',
    'CREATE TABLE accounts (id INT PRIMARY KEY, bal BIGINT NOT NULL, pad CHAR(80) NOT NULL) ENGINE=InnoDB',
    `INSERT INTO accounts SELECT seq, 0, MD5(seq) FROM seq_1_to_200000`,
    'CREATE TABLE orders (id INT PRIMARY KEY AUTO_INCREMENT, customer_id INT NOT NULL, amount DECIMAL(10,2) NOT NULL, created DATETIME NOT NULL DEFAULT NOW(), pad VARCHAR(64), KEY idx_customer (customer_id)) ENGINE=InnoDB',
    `INSERT INTO orders (customer_id, amount, pad) SELECT 1 + (seq * 7919) % 20000, (seq % 997) / 10, MD5(seq) FROM seq_1_to_300000`,
    'CREATE TABLE history (id BIGINT PRIMARY KEY AUTO_INCREMENT, account_id INT, delta INT, at DATETIME DEFAULT NOW()) ENGINE=InnoDB',
    'CREATE TABLE inventory (id INT PRIMARY KEY, qty INT NOT NULL) ENGINE=InnoDB',
    'INSERT INTO inventory SELECT seq, 1000000 FROM seq_1_to_100',
    'CREATE TABLE counters (id INT PRIMARY KEY, n BIGINT NOT NULL) ENGINE=InnoDB',
    'INSERT INTO counters SELECT seq, 0 FROM seq_1_to_10',
    'CREATE TABLE events_archive (id INT PRIMARY KEY, body VARCHAR(255) NOT NULL) ENGINE=InnoDB',
    `INSERT INTO events_archive SELECT seq, CONCAT(MD5(seq), MD5(seq + 1), MD5(seq + 2), MD5(seq + 3), MD5(seq + 4), MD5(seq + 5)) FROM seq_1_to_250000`,
    'CREATE TABLE report (id INT PRIMARY KEY AUTO_INCREMENT, day DATE, total BIGINT) ENGINE=InnoDB',
    'ANALYZE TABLE accounts, orders, events_archive',
  ])
    await myQuery(sql, 'shop', true);
}

/** The application: four workers at ~10 transactions/s each, plus a connect-per-request health check. */
export function myApp(): Handle {
  const workers = Array.from({ length: 4 }, () => {
    let c: Connection | null = null;
    return loop(async () => {
      const started = Date.now();
      try {
        c ??= await myConnection();
        const id = rand(1, 200000);
        const delta = rand(-5000, 5000);
        await c.query('BEGIN');
        await c.execute('UPDATE accounts SET bal = bal + ? WHERE id = ?', [delta, id]);
        await c.execute('SELECT bal FROM accounts WHERE id = ?', [id]);
        await c.execute('INSERT INTO history (account_id, delta) VALUES (?, ?)', [id, delta]);
        await c.query('COMMIT');
        await c.execute('SELECT COUNT(*), COALESCE(SUM(amount), 0) FROM orders WHERE customer_id = ?', [rand(1, 20000)]);
      } catch (error) {
        const dead = c;
        c = null;
        await dead?.end().catch(() => undefined);
        throw error;
      }
      await sleep(Math.max(0, 100 - (Date.now() - started)));
    }, 500);
  });
  const health = loop(async () => {
    const c = await myConnection();
    try {
      await c.query('SELECT COUNT(*) FROM inventory');
    } finally {
      await c.end().catch(() => undefined);
    }
    await sleep(300);
  }, 300);
  return all([...workers, health]);
}

/** Kills every client session but ours and the exporter's (the loops reconnect). */
export async function dropMySessions(): Promise<void> {
  const c = await myConnection('mysql', true);
  try {
    const [rows] = await c.query(`SELECT ID AS id FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND USER IN ('lab', 'app')`);
    for (const r of rows as { id: number }[]) await c.query(`KILL ${Number(r.id)}`).catch(() => undefined);
  } finally {
    await c.end().catch(() => undefined);
  }
}

export async function resetMariadb(): Promise<void> {
  await lab('my-start');
  await dropMySessions();
  await sleep(500);
  for (const sql of [
    'DROP TABLE IF EXISTS uploads',
    'TRUNCATE TABLE report',
    'UPDATE inventory SET qty = 1000000',
    `DELETE FROM history WHERE at < NOW() - INTERVAL 10 MINUTE`,
    'TRUNCATE TABLE performance_schema.events_statements_summary_by_digest',
    'FLUSH STATUS',
  ])
    await myQuery(sql, 'shop', true);
  const idx = await myQuery<{ n: number }>(`SELECT COUNT(*) AS n FROM information_schema.statistics WHERE table_schema = 'shop' AND table_name = 'orders' AND index_name = 'idx_customer'`);
  if (Number(idx[0].n) === 0) await myQuery('ALTER TABLE orders ADD KEY idx_customer (customer_id)', 'shop', true);
  await myQuery('ALTER TABLE orders ALTER INDEX idx_customer NOT IGNORED', 'shop', true);
}

const STATUS = [
  'Threads_connected',
  'Threads_running',
  'Max_used_connections',
  'Connection_errors_max_connections',
  'Aborted_connects',
  'Innodb_row_lock_waits',
  'Innodb_row_lock_time',
  'Innodb_deadlocks',
  'Created_tmp_disk_tables',
  'Created_tmp_files',
  'Select_scan',
  'Handler_read_rnd_next',
  'Sort_merge_passes',
  'Slow_queries',
  'Questions',
  'Uptime',
  'Innodb_checkpoint_age',
  'Innodb_buffer_pool_pages_dirty',
];

/** End-of-case statistics: performance_schema digests carry normalised text (literals as ?). */
export async function snapshotMariadb(): Promise<Record<string, unknown>> {
  const safe = async <T>(f: () => Promise<T>): Promise<T | { error: string }> => {
    try {
      return await f();
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };
  return {
    events_statements_summary_by_digest: await safe(async () =>
      (
        await myQuery<Record<string, unknown>>(
          `SELECT DIGEST AS digest, DIGEST_TEXT AS digest_text, COUNT_STAR AS count_star, SUM_TIMER_WAIT / 1e12 AS sum_timer_wait_s, SUM_LOCK_TIME / 1e12 AS sum_lock_time_s, SUM_ROWS_EXAMINED AS sum_rows_examined,
                  SUM_ROWS_SENT AS sum_rows_sent, SUM_NO_INDEX_USED AS sum_no_index_used, SUM_CREATED_TMP_DISK_TABLES AS sum_created_tmp_disk_tables, SUM_SORT_MERGE_PASSES AS sum_sort_merge_passes, SUM_ERRORS AS sum_errors
             FROM performance_schema.events_statements_summary_by_digest WHERE SCHEMA_NAME = 'shop' ORDER BY SUM_TIMER_WAIT DESC LIMIT 20`,
          'shop',
          true,
        )
      ).map((r) => ({ ...r, digest_text: normaliseSql(String(r['digest_text'] ?? '')) })),
    ),
    processlist: await safe(() => myQuery(`SELECT COMMAND AS command, COALESCE(STATE, '') AS state, COUNT(*) AS count FROM information_schema.PROCESSLIST GROUP BY 1, 2 ORDER BY 3 DESC`, 'shop', true)),
    global_status: await safe(async () => {
      const rows = await myQuery<{ Variable_name: string; Value: string }>(`SHOW GLOBAL STATUS WHERE Variable_name IN (${STATUS.map((s) => `'${s}'`).join(', ')})`, 'shop', true);
      return Object.fromEntries(rows.map((r) => [r.Variable_name, Number(r.Value)]));
    }),
    variables: await safe(async () => {
      const rows = await myQuery<{ Variable_name: string; Value: string }>(`SHOW GLOBAL VARIABLES WHERE Variable_name IN ('max_connections', 'innodb_lock_wait_timeout', 'tmp_table_size', 'innodb_buffer_pool_size', 'innodb_log_file_size')`, 'shop', true);
      return Object.fromEntries(rows.map((r) => [r.Variable_name, r.Value]));
    }),
  };
}
