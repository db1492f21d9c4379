// Incident lab recorder: real faults injected into the lab's Postgres (docs/incident-lab.md).
// Each returns a Handle whose stop() ends the fault (a recovered case) or is called at cleanup.
import { PORTS } from './config';
import { lab, loop, NOOP, pgClient, pgQuery, rand, run, sleep, type Handle } from './db';
import { deadlockPairs, holdSessions, hotRow, leakSessions, lockQueue, statementLoops, type Intensity } from './faults-common';
import { PG_BIN, pgState } from './postgres';

export type { Intensity };
export type PgFault = (intensity: Intensity) => Promise<Handle>;

/** Idle sessions opened at a steady rate and never closed (a pool leak) up to about max_connections. */
const connectionLeak: PgFault = async (intensity) => leakSessions(() => pgClient(pgState.primary, 'lab', 'orders-worker'), intensity, [['BEGIN', []], ['SELECT 1', []]]);

/** A transaction holds row locks on a hot range; updaters queue behind it. */
const lockHolder: PgFault = async (intensity) =>
  lockQueue(() => pgClient(pgState.primary, 'lab', 'checkout'), intensity, ['UPDATE pgbench_accounts SET filler = filler WHERE aid BETWEEN 1 AND 5000', []], () => ['UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = $1', [rand(1, 5000)]]);

/** Pairs of transactions that update two rows in opposite orders. */
const deadlocks: PgFault = async (intensity) => deadlockPairs(() => pgClient(pgState.primary, 'lab', 'inventory-sync'), intensity, (id) => ['UPDATE lab_inventory SET qty = qty - 1 WHERE id = $1', [id]]);

/** Bulk writes against max_wal_size = 64MB: checkpoints requested by WAL volume, back to back. */
const bulkWrites: PgFault = async (intensity) => {
  const rows = intensity === 'high' ? 150000 : 50000;
  let n = 0;
  return loop(async () => {
    await pgQuery(pgState.primary, `INSERT INTO lab_bulk SELECT g, repeat(md5(g::text), 4) FROM generate_series(1, ${rows}) g`);
    if (++n % 4 === 0) await pgQuery(pgState.primary, 'TRUNCATE lab_bulk');
    if (intensity === 'low') await sleep(1500);
  });
};

/** A heavy batch job (mode batch-job): chunked updates over the application's own table. */
const batchHeavy: PgFault = async () => {
  let from = 1;
  return loop(async () => {
    await pgQuery(pgState.primary, `UPDATE pgbench_accounts SET filler = md5(filler) WHERE aid BETWEEN ${from} AND ${from + 40000}`);
    from = from > 450000 ? 1 : from + 40000;
    await sleep(200);
  });
};

/** A light reporting batch on its own table (the red herring: visible, harmless). */
const batchLight: PgFault = async () =>
  loop(async () => {
    await pgQuery(pgState.primary, `INSERT INTO lab_report (day, total) SELECT current_date - (g % 30), g FROM generate_series(1, 20000) g`);
    await pgQuery(pgState.primary, `DELETE FROM lab_report WHERE id % 2 = 0`);
    await sleep(3000);
  });

/** Replay on the replica stops (paused) or runs 20 s behind (a throttled standby). */
const replicaCapacity: PgFault = async (intensity) => {
  const b = PORTS.pgB;
  if (intensity === 'high') await pgQuery(b, 'SELECT pg_wal_replay_pause()', 'postgres');
  else {
    await pgQuery(b, `ALTER SYSTEM SET recovery_min_apply_delay = '20s'`, 'postgres');
    await pgQuery(b, 'SELECT pg_reload_conf()', 'postgres');
  }
  return {
    stop: async () => {
      await pgQuery(b, 'SELECT pg_wal_replay_resume()', 'postgres').catch(() => undefined);
      await pgQuery(b, 'ALTER SYSTEM RESET recovery_min_apply_delay', 'postgres').catch(() => undefined);
      await pgQuery(b, 'SELECT pg_reload_conf()', 'postgres').catch(() => undefined);
    },
  };
};

/** A long report on the replica holds a snapshot; cleanup records from the primary wait for it. */
const replicaQuery: PgFault = async (intensity) => {
  const b = PORTS.pgB;
  await pgQuery(b, `ALTER SYSTEM SET max_standby_streaming_delay = '${intensity === 'high' ? '-1' : '20s'}'`, 'postgres');
  await pgQuery(b, 'SELECT pg_reload_conf()', 'postgres');
  const report = loop(async () => {
    const c = await pgClient(b, 'lab', 'bi-report');
    try {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await c.query('SELECT count(*) FROM pgbench_accounts');
      await c.query('SELECT pg_sleep(120)');
      await c.query('COMMIT');
    } finally {
      await c.end().catch(() => undefined);
    }
  }, 1000);
  const vacuum = loop(async () => {
    await pgQuery(pgState.primary, 'VACUUM pgbench_accounts');
    await sleep(5000);
  });
  return {
    stop: async () => {
      const stops = [report.stop(), vacuum.stop()];
      await pgQuery(b, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'bi-report'`, 'postgres').catch(() => undefined);
      await Promise.all(stops);
      await pgQuery(b, 'ALTER SYSTEM RESET max_standby_streaming_delay', 'postgres').catch(() => undefined);
      await pgQuery(b, 'SELECT pg_reload_conf()', 'postgres').catch(() => undefined);
    },
  };
};

/** Uploads into a table on a 64 MB tablespace until it is full; the uploads then fail. */
const fillTablespace: PgFault = async (intensity) => {
  await pgQuery(pgState.primary, 'CREATE TABLE IF NOT EXISTS lab_uploads (id bigserial, payload text) TABLESPACE lab_ts');
  return loop(async () => {
    await pgQuery(pgState.primary, `INSERT INTO lab_uploads (payload) SELECT repeat(md5(random()::text), 30) FROM generate_series(1, ${intensity === 'high' ? 2000 : 700})`);
    await sleep(intensity === 'high' ? 200 : 800);
  }, 1000);
};

/** Sorts that spill to a 48 MB temp tablespace until it is full. */
const tempSorts: PgFault = async (intensity) =>
  statementLoops(
    intensity === 'high' ? 3 : 1,
    async () => {
      const c = await pgClient(pgState.primary, 'lab', 'export-job');
      try {
        await c.query(`SET temp_tablespaces = 'lab_temp'`);
        await c.query(`SELECT id, note FROM (SELECT g AS id, md5(g::text) || md5((g * 3)::text) AS note FROM generate_series(1, ${intensity === 'high' ? 1500000 : 700000}) g) s ORDER BY note LIMIT 5`);
      } finally {
        await c.end().catch(() => undefined);
      }
    },
    1000,
  );

/** CPU-heavy statements (hashing in a loop) from a reporting job. */
const cpuStatements: PgFault = async (intensity) => statementLoops(intensity === 'high' ? 3 : 1, () => pgQuery(pgState.primary, `SELECT count(DISTINCT md5(md5(g::text || random()::text))) FROM generate_series(1, 300000) g`));

/** A migration drops the index the application's lookup uses (and, high, the accounts key too). */
const dropIndex: PgFault = async (intensity) => {
  await pgQuery(pgState.primary, 'DROP INDEX IF EXISTS lab_orders_customer_idx');
  if (intensity === 'high') await pgQuery(pgState.primary, 'ALTER TABLE pgbench_accounts DROP CONSTRAINT IF EXISTS pgbench_accounts_pkey');
  return NOOP;
};

/** Many more clients than the machine serves (pgbench, select-only): the load itself is the cause. */
const cpuLoad: PgFault = async (intensity) => {
  const clients = intensity === 'high' ? 24 : 10;
  return loop(async () => {
    await run(`${PG_BIN}/pgbench`, ['-n', '-S', '-c', String(clients), '-j', '2', '-T', '30', '-h', '127.0.0.1', '-p', String(pgState.primary), '-U', 'aoclab', 'lab'], 60_000);
  });
};

/** Hot row: every order updates the same counter row inside its transaction. */
const hotspot: PgFault = async (intensity) => hotRow(() => pgClient(pgState.primary, 'lab', 'checkout'), intensity, 'UPDATE lab_counters SET n = n + 1 WHERE id = 1');

/** pg_ctl restart -m fast of the primary; the application reconnects. */
const restartPrimary: PgFault = async () => {
  await lab('pg-stop', 'a', 'fast');
  await sleep(2000);
  await lab('pg-start', 'a');
  return NOOP;
};

/** The primary dies (immediate stop) and the replica is promoted; the application follows. */
const failover: PgFault = async () => {
  await lab('pg-stop', 'a', 'immediate');
  pgState.primary = PORTS.pgB;
  pgState.replica = null;
  await sleep(3000);
  await pgQuery(PORTS.pgB, 'SELECT pg_promote(true, 60)', 'postgres');
  return NOOP;
};

/** A red herring: the replica restarts (nothing the ticket is about). */
const restartReplica: PgFault = async () => {
  await lab('pg-stop', 'b', 'fast');
  await sleep(1500);
  await lab('pg-start', 'b');
  return NOOP;
};

/** A short burst of idle connections well below the limit (a red herring). */
const connectionBurst: PgFault = async () => holdSessions(() => pgClient(pgState.primary, 'lab', 'cron'), 15);

export const PG_FAULTS: Record<string, PgFault> = {
  'connection-exhaustion': connectionLeak,
  'lock-contention': lockHolder,
  deadlocks,
  'checkpoint-storm': bulkWrites,
  'batch-job': batchHeavy,
  'replication-lag-replica-capacity': replicaCapacity,
  'replication-lag-replica-query': replicaQuery,
  'storage-full-data': fillTablespace,
  'storage-full-temp': tempSorts,
  'cpu-statement': cpuStatements,
  'cpu-load': cpuLoad,
  'plan-regression': dropIndex,
  hotspot,
  restart: restartPrimary,
  failover,
};

/** Red herrings: something visible that is not what the ticket is about. */
export const PG_HERRINGS: Record<string, PgFault> = {
  'batch-job': batchLight,
  restart: restartReplica,
  'connection-exhaustion': connectionBurst,
};
