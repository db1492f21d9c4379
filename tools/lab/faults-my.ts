// Incident lab recorder: real faults injected into the lab's MariaDB (docs/incident-lab.md).
import { MNT } from './config';
import { lab, loop, myConnection, myQuery, NOOP, rand, sleep, type Handle } from './db';
import { deadlockPairs, holdSessions, hotRow, leakSessions, lockQueue, statementLoops, type Intensity } from './faults-common';

export type MyFault = (intensity: Intensity) => Promise<Handle>;

const open = () => myConnection();

/** Sessions opened at a steady rate and never closed (a pool leak) until max_connections refuses. */
const connectionLeak: MyFault = async (intensity) => leakSessions(open, intensity, [['BEGIN', []], ['SELECT 1 FROM inventory WHERE id = 1', []]]);

/** A transaction holds row locks on a hot range; updaters wait and time out (innodb_lock_wait_timeout = 8). */
const lockHolder: MyFault = async (intensity) => lockQueue(open, intensity, ['SELECT id FROM accounts WHERE id BETWEEN 1 AND 2000 FOR UPDATE', []], () => ['UPDATE accounts SET bal = bal + 1 WHERE id = ?', [rand(1, 2000)]]);

const deadlocks: MyFault = async (intensity) => deadlockPairs(open, intensity, (id) => ['UPDATE inventory SET qty = qty - 1 WHERE id = ?', [id]]);

const cpuStatements: MyFault = async (intensity) => statementLoops(intensity === 'high' ? 3 : 1, () => myQuery('SELECT SUM(CRC32(CONCAT(MD5(CONCAT(pad, id, RAND())), SHA2(pad, 256)))) FROM orders'));

/** A migration drops the index the application's lookup uses (low: makes it IGNORED). */
const dropIndex: MyFault = async (intensity) => {
  await myQuery(intensity === 'high' ? 'ALTER TABLE orders DROP INDEX idx_customer' : 'ALTER TABLE orders ALTER INDEX idx_customer IGNORED', 'shop', true);
  return NOOP;
};

const hotspot: MyFault = async (intensity) => hotRow(open, intensity, 'UPDATE counters SET n = n + 1 WHERE id = 1');

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
const tempSorts: MyFault = async (intensity) => statementLoops(intensity === 'high' ? 3 : 1, () => myQuery(`SELECT id, body FROM events_archive ORDER BY body, id LIMIT ${intensity === 'high' ? 200000 : 100000}, 5`), 1000);

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

const connectionBurst: MyFault = async () => holdSessions(open, 15);

export const MY_FAULTS: Record<string, MyFault> = {
  'connection-exhaustion': connectionLeak,
  'lock-contention': lockHolder,
  deadlocks,
  'cpu-statement': cpuStatements,
  'plan-regression': dropIndex,
  hotspot,
  'batch-job': batchHeavy,
  'storage-full-temp': tempSorts,
  'storage-full-data': fillDataDir,
  restart,
};

export const MY_HERRINGS: Record<string, MyFault> = {
  'batch-job': batchLight,
  'connection-exhaustion': connectionBurst,
};
