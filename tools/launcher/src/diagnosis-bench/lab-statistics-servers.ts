// Diagnosis benchmark, suite L (bench/diagnosis/lab.ts): the cases' statement-statistics snapshots served to the platform's
// own read-only SQL connectors, from real servers:
//  - Postgres (DATABASE_URL, else postgres@127.0.0.1:5432): one database per case whose catalog
//    views read the snapshot (tools/launcher/src/diagnosis-bench/lab-statistics.ts);
//  - MariaDB (BENCH_LAB_MYSQL, else root@127.0.0.1:3306): one database per case, behind a
//    MySQL-protocol front (mysql2's server) that runs every statement on the real server after
//    naming the case's tables in place of performance_schema / information_schema ones.
// A server that is not reachable leaves its cases without statements, and the report says so.
import type { AddressInfo } from 'node:net';
import { errorMessageOf as errorText } from '@aoc/errors';
import { createConnection, createServer, type Connection, type FieldPacket, type QueryError, type RowDataPacket } from 'mysql2';
import { createConnection as createPromiseConnection } from 'mysql2/promise';
import { Client } from 'pg';
import type { LabCase } from './lab-case';
import { myReplayScript, pgReplayScript, replayDatabase, rewriteMySqlForReplay, type ReplayStatement } from './lab-statistics';

export interface SqlEndpoints {
  postgres?: { host: string; port: number; database: string; user: string; password: string };
  mysql?: { host: string; port: number; user: string; password: string };
}

export interface LabStatistics {
  /** Per lab cluster, the SQL settings of its endpoint entry. */
  endpoints: Map<string, SqlEndpoints>;
  notes: string[];
  stop: () => Promise<void>;
}

const STALE = /^aoc_lab_(pg|my)_\d{2,3}$/;

function pgAdminUrl(): URL {
  const url = new URL(process.env['DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = '/postgres';
  return url;
}

async function withPg<T>(url: URL, work: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url.toString(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function dropPgReplays(admin: URL, only: (name: string) => boolean): Promise<void> {
  await withPg(admin, async (c) => {
    const rows = (await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'aoc\\_lab\\_pg\\_%'`)).rows;
    for (const { datname } of rows) if (STALE.test(datname) && only(datname)) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  });
}

async function loadPostgres(cases: readonly { case: LabCase }[]): Promise<{ endpoints: Map<string, SqlEndpoints>; stop: () => Promise<void> }> {
  const admin = pgAdminUrl();
  await dropPgReplays(admin, () => true);
  await withPg(admin, async (c) => {
    for (const e of cases) await c.query(`CREATE DATABASE "${replayDatabase(e.case.cluster)}" TEMPLATE template0`);
  });
  const endpoints = new Map<string, SqlEndpoints>();
  for (const e of cases) {
    const db = replayDatabase(e.case.cluster);
    const url = new URL(admin.toString());
    url.pathname = `/${db}`;
    await withPg(url, async (c) => {
      for (const s of pgReplayScript(e.case)) await c.query(s.sql, s.params);
    });
    endpoints.set(e.case.cluster, { postgres: { host: url.hostname, port: Number(url.port || 5432), database: db, user: decodeURIComponent(url.username || 'postgres'), password: decodeURIComponent(url.password) } });
  }
  const names = new Set([...endpoints.keys()].map(replayDatabase));
  return { endpoints, stop: () => dropPgReplays(admin, (n) => names.has(n)) };
}

interface MyServer {
  host: string;
  port: number;
  user: string;
  password: string;
}

function myServer(): MyServer {
  const url = new URL(process.env['BENCH_LAB_MYSQL'] || 'mysql://root@127.0.0.1:3306');
  return { host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username || 'root'), password: decodeURIComponent(url.password) };
}

async function runMy(server: MyServer, statements: readonly ReplayStatement[]): Promise<void> {
  const c = await createPromiseConnection({ host: server.host, port: server.port, user: server.user, password: server.password, connectTimeout: 5000 });
  try {
    for (const s of statements) await c.query(s.sql, s.params);
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** The server side of a mysql2 connection (its typings describe the client side only). */
interface FrontClient {
  serverHandshake(args: Record<string, unknown>): void;
  on(event: 'query' | 'stmt_prepare', listener: (sql: string) => void): void;
  on(event: 'ping' | 'quit' | 'end' | 'error', listener: () => void): void;
  writeColumns(fields: FieldPacket[]): void;
  writeTextRow(row: (string | null)[]): void;
  writeEof(): void;
  writeOk(args?: { affectedRows: number }): void;
  writeError(args: { message: string; code: number }): void;
  close(): void;
}

interface FrontServer {
  on(event: 'connection', listener: (client: FrontClient) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
  listen(port: number, host: string, ready: () => void): void;
  close(done: () => void): void;
  _server: { address: () => AddressInfo };
}

/** The front: each client names its case by user (`lab_my_04`); statements go to the case's database. */
function startFront(server: MyServer, databases: ReadonlySet<string>): Promise<{ port: number; close: () => Promise<void> }> {
  const front = (createServer as unknown as () => FrontServer)();
  const open = new Set<Connection>();
  front.on('connection', (client) => {
    let backend: Connection | null = null;
    let database = '';
    client.serverHandshake({
      protocolVersion: 10,
      serverVersion: '10.11-lab-replay-MariaDB',
      connectionId: 1,
      statusFlags: 2,
      characterSet: 45,
      capabilityFlags: 0xffffff & ~0x800 /* no SSL */,
      authCallback: (params: { user: string }, done: (err: Error | null, mysqlError?: { message: string; code: number }) => void) => {
        database = `aoc_${params.user}`;
        if (!databases.has(database)) return done(null, { message: `no lab case for user ${params.user}`, code: 1045 });
        backend = createConnection({ host: server.host, port: server.port, user: server.user, password: server.password, database, dateStrings: true, supportBigNumbers: true, bigNumberStrings: true });
        open.add(backend);
        backend.on('error', () => client.close());
        done(null);
      },
    });
    const run = (sql: string) => {
      if (!backend) return client.writeError({ message: 'not signed in', code: 1045 });
      backend.query({ sql: rewriteMySqlForReplay(sql, database), rowsAsArray: true }, (err: QueryError | null, rows: unknown, fields: FieldPacket[] | undefined) => {
        if (err) return client.writeError({ message: err.message, code: err.errno ?? 1105 });
        if (!Array.isArray(rows) || !fields) return client.writeOk({ affectedRows: (rows as { affectedRows?: number } | null)?.affectedRows ?? 0 });
        client.writeColumns(fields);
        for (const row of rows as unknown[][]) client.writeTextRow(row.map((v) => (v === null || v === undefined ? null : String(v))));
        client.writeEof();
      });
    };
    client.on('query', run);
    // mysql2's server hands statements starting with SET to the prepare event.
    client.on('stmt_prepare', (sql: string) => (/^\s*SET\s/i.test(sql) ? run(sql) : client.writeError({ message: 'prepared statements are not served', code: 1295 })));
    client.on('ping', () => client.writeOk());
    const close = () => {
      if (backend) {
        open.delete(backend);
        backend.end();
        backend = null;
      }
    };
    client.on('quit', () => {
      close();
      client.close();
    });
    client.on('end', close);
    client.on('error', close);
  });
  return new Promise((resolve, reject) => {
    front.on('error', reject);
    front.listen(0, '127.0.0.1', () => {
      const { port } = front._server.address();
      resolve({
        port,
        close: async () => {
          for (const b of open) b.destroy();
          await new Promise<void>((r) => front.close(() => r()));
        },
      });
    });
  });
}

async function dropMyReplays(server: MyServer, only: (name: string) => boolean): Promise<void> {
  const c = await createPromiseConnection({ host: server.host, port: server.port, user: server.user, password: server.password, connectTimeout: 5000 });
  try {
    const [rows] = await c.query<({ name: string } & RowDataPacket)[]>(`SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'aoc\\_lab\\_my\\_%'`);
    for (const { name } of rows) if (STALE.test(name) && only(name)) await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function loadMariadb(cases: readonly { case: LabCase }[]): Promise<{ endpoints: Map<string, SqlEndpoints>; stop: () => Promise<void> }> {
  const server = myServer();
  await dropMyReplays(server, () => true);
  const names = new Set<string>();
  for (const e of cases) {
    const db = replayDatabase(e.case.cluster);
    await runMy(server, [{ sql: `CREATE DATABASE \`${db}\`` }, { sql: `USE \`${db}\`` }, ...myReplayScript(e.case)]);
    names.add(db);
  }
  const front = await startFront(server, names);
  const endpoints = new Map<string, SqlEndpoints>(cases.map((e) => [e.case.cluster, { mysql: { host: '127.0.0.1', port: front.port, user: e.case.cluster.replace(/-/g, '_'), password: 'lab' } }]));
  return {
    endpoints,
    stop: async () => {
      await front.close();
      await dropMyReplays(server, (n) => names.has(n));
    },
  };
}

export async function startLabStatistics(cases: readonly { case: LabCase }[], progress: (line: string) => void): Promise<LabStatistics> {
  const endpoints = new Map<string, SqlEndpoints>();
  const notes: string[] = [];
  const stops: (() => Promise<void>)[] = [];
  for (const [engine, load, where] of [
    ['postgres', loadPostgres, 'DATABASE_URL (else postgres@127.0.0.1:5432)'],
    ['mariadb', loadMariadb, 'BENCH_LAB_MYSQL (else root@127.0.0.1:3306)'],
  ] as const) {
    const mine = cases.filter((c) => c.case.engine === engine);
    if (mine.length === 0) continue;
    try {
      const loaded = await load(mine);
      for (const [k, v] of loaded.endpoints) endpoints.set(k, v);
      stops.push(loaded.stop);
      progress(`suite L: statement snapshots of ${mine.length} ${engine} cases served by a real ${engine} server`);
    } catch (error) {
      notes.push(`suite L: the ${mine.length} ${engine} cases ran without statement statistics: ${where} not usable (${errorText(error).slice(0, 200)})`);
      progress(notes[notes.length - 1]);
    }
  }
  return {
    endpoints,
    notes,
    stop: async () => {
      for (const s of stops) await s().catch((error: unknown) => progress(`suite L: could not drop replay databases: ${errorText(error)}`));
    },
  };
}
