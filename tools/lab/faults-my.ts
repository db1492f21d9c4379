// Incident lab recorder: real faults injected into the lab's MariaDB (docs/incident-lab.md).
import type { Connection } from 'mysql2/promise';
import { MNT } from './config';
import { all, lab, loop, myConnection, myQuery, NOOP, rand, sleep, type Handle } from './db';
import type { Intensity } from './faults-pg';

export type MyFault = (intensity: Intensity) => Promise<Handle>;

const held = (conns: Connection[]): Handle => ({ stop: async () => void (await Promise.all(conns.map((c) => c.end().catch(() => undefined)))) });

/** Sessions opened at a steady rate and never closed (a pool leak) until max_connections refuses. */
const connectionLeak: MyFault = async (intensity) => {
  const target = intensity === 'high' ? 70 : 50;
  const perSecond = intensity === 'high' ? 3 : 1;
  const conns: Connection[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped && conns.length < target) {
      for (let i = 0; i < perSecond && conns.length < target; i++) {
        try {
          const c = await myConnection();
          if (conns.length % 2 === 0) {
            await c.query('BEGIN');
            await c.query('SELECT 1 FROM inventory WHERE id = 1');
          }
          conns.push(c);
        } catch {
          // "Too many connections": the leak keeps trying, as the application does.
        }
      }
      await sleep(1000);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
      await held(conns).stop();
    },
  };
};

/** A transaction holds row locks on a hot range; updaters wait and time out (innodb_lock_wait_timeout = 8). */
const lockHolder: MyFault = async (intensity) => {
  const holder = await myConnection();
  await holder.query('BEGIN');
  await holder.query('SELECT id FROM accounts WHERE id BETWEEN 1 AND 2000 FOR UPDATE');
  const waiters = Array.from({ length: intensity === 'high' ? 12 : 4 }, () =>
    loop(async () => {
      const c = await myConnection();
      try {
        await c.execute('UPDATE accounts SET bal = bal + 1 WHERE id = ?', [rand(1, 2000)]);
      } finally {
        await c.end().catch(() => undefined);
      }
    }, 200),
  );
  return {
    stop: async () => {
      const stops = waiters.map((w) => w.stop());
      await holder.query('COMMIT').catch(() => undefined);
      await holder.end().catch(() => undefined);
      await Promise.all(stops);
    },
  };
};

const deadlockPairs: MyFault = async (intensity) => {
  const handles: Handle[] = [];
  for (let p = 0; p < (intensity === 'high' ? 4 : 1); p++) {
    for (const [first, second] of [
      [2 * p + 1, 2 * p + 2],
      [2 * p + 2, 2 * p + 1],
    ]) {
      let c: Connection | null = null;
      handles.push(
        loop(async () => {
          c ??= await myConnection();
          const conn = c;
          try {
            await conn.query('BEGIN');
            await conn.execute('UPDATE inventory SET qty = qty - 1 WHERE id = ?', [first]);
            await sleep(300);
            await conn.execute('UPDATE inventory SET qty = qty - 1 WHERE id = ?', [second]);
            await conn.query('COMMIT');
          } catch (error) {
            await conn.query('ROLLBACK').catch(() => undefined);
            throw error;
          }
          await sleep(rand(200, 800));
        }, 700),
      );
    }
  }
  return all(handles);
};

const cpuStatements: MyFault = async (intensity) =>
  all(
    Array.from({ length: intensity === 'high' ? 3 : 1 }, () =>
      loop(async () => {
        await myQuery('SELECT SUM(CRC32(CONCAT(MD5(CONCAT(pad, id, RAND())), SHA2(pad, 256)))) FROM orders');
      }),
    ),
  );

/** A migration drops the index the application's lookup uses (low: makes it IGNORED). */
const dropIndex: MyFault = async (intensity) => {
  await myQuery(intensity === 'high' ? 'ALTER TABLE orders DROP INDEX idx_customer' : 'ALTER TABLE orders ALTER INDEX idx_customer IGNORED', 'shop', true);
  return NOOP;
};

const hotRow: MyFault = async (intensity) =>
  all(
    Array.from({ length: intensity === 'high' ? 16 : 6 }, () => {
      let c: Connection | null = null;
      return loop(async () => {
        c ??= await myConnection();
        await c.query('BEGIN');
        await c.query('UPDATE counters SET n = n + 1 WHERE id = 1');
        await sleep(50);
        await c.query('COMMIT');
      });
    }),
  );

/** A heavy batch (mode batch-job): chunked rewrites of the orders table, binlog and all. */
const batchHeavy: MyFault = async (intensity) => {
  let from = 1;
  const chunk = intensity === 'high' ? 40000 : 15000;
  return loop(async () => {
    await myQuery(`UPDATE orders SET pad = MD5(CONCAT(pad, id)) WHERE id BETWEEN ${from} AND ${from + chunk}`);
    from = from > 300000 - chunk ? 1 : from + chunk;
    await sleep(200);
  });
};

const batchLight: MyFault = async () =>
  loop(async () => {
    await myQuery(`INSERT INTO report (day, total) SELECT CURDATE() - INTERVAL (seq % 30) DAY, seq FROM seq_1_to_20000`);
    await myQuery('DELETE FROM report WHERE id % 2 = 0');
    await sleep(3000);
  });

/** Sorts that spill to the 48 MB tmpdir until it is full (Errcode 28). */
const tempSorts: MyFault = async (intensity) =>
  all(
    Array.from({ length: intensity === 'high' ? 3 : 1 }, () =>
      loop(async () => {
        await myQuery(`SELECT id, body FROM events_archive ORDER BY body, id LIMIT ${intensity === 'high' ? 200000 : 100000}, 5`);
      }, 1000),
    ),
  );

/** Uploads into a table whose file lives on a 48 MB filesystem until it is full (error 1114). */
const fillDataDir: MyFault = async (intensity) => {
  await myQuery(`CREATE TABLE IF NOT EXISTS uploads (id BIGINT PRIMARY KEY AUTO_INCREMENT, payload TEXT) ENGINE=InnoDB DATA DIRECTORY = '${MNT}/mydata'`, 'shop', true);
  return loop(async () => {
    await myQuery(`INSERT INTO uploads (payload) SELECT REPEAT(MD5(RAND()), 30) FROM seq_1_to_${intensity === 'high' ? 2000 : 700}`);
    await sleep(intensity === 'high' ? 200 : 800);
  }, 1000);
};

const restart: MyFault = async () => {
  await lab('my-stop');
  await sleep(1500);
  await lab('my-start');
  return NOOP;
};

const connectionBurst: MyFault = async () => {
  const conns: Connection[] = [];
  for (let i = 0; i < 15; i++) conns.push(await myConnection());
  return held(conns);
};

export const MY_FAULTS: Record<string, MyFault> = {
  'connection-exhaustion': connectionLeak,
  'lock-contention': lockHolder,
  deadlocks: deadlockPairs,
  'cpu-statement': cpuStatements,
  'plan-regression': dropIndex,
  hotspot: hotRow,
  'batch-job': batchHeavy,
  'storage-full-temp': tempSorts,
  'storage-full-data': fillDataDir,
  restart,
};

export const MY_HERRINGS: Record<string, MyFault> = {
  'batch-job': batchLight,
  'connection-exhaustion': connectionBurst,
};
