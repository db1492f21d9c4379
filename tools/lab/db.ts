// Incident lab recorder: database clients, background loops and the lab script.
import { execFile } from 'node:child_process';
import { Client } from 'pg';
import { createConnection, type Connection } from 'mysql2/promise';
import { LAB_SCRIPT, PORTS } from './config';

export const PG_USER = 'aoclab';
export const PG_DB = 'lab';
export const MY_DB = 'shop';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs deploy/lab/lab.sh with the given arguments. */
export function lab(...args: string[]): Promise<string> {
  return run('bash', [LAB_SCRIPT, ...args], 180_000);
}

export function run(command: string, args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: timeoutMs, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${String(stderr).slice(-1500)}`));
      else resolve(String(stdout));
    });
  });
}

/** The application's role: not a superuser, so a leak leaves the reserved slots to the admin and exporters. */
export const PG_APP_USER = 'app';

export async function pgClient(port: number = PORTS.pgA, database: string = PG_DB, appName = 'lab', user: string = PG_APP_USER): Promise<Client> {
  const c = new Client({ host: '127.0.0.1', port, user, database, application_name: appName, connectionTimeoutMillis: 5000 });
  // A terminated backend emits 'error' on the idle client; the loops notice on their next query.
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

export async function pgQuery<T = Record<string, unknown>>(port: number, sql: string, database: string = PG_DB): Promise<T[]> {
  const c = await pgClient(port, database, 'lab-admin', PG_USER);
  try {
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end().catch(() => undefined);
  }
}

/**
 * The application's connection (user app, no SUPER); `admin`: the lab's own, on MariaDB's
 * extra_port, which a full max_connections does not refuse (the exporter uses it too).
 */
export async function myConnection(database: string = MY_DB, admin = false): Promise<Connection> {
  const c = await createConnection({
    host: '127.0.0.1',
    port: admin ? PORTS.mariadbExtra : PORTS.mariadb,
    user: admin ? 'lab' : 'app',
    password: admin ? 'lab' : 'app',
    database,
    connectTimeout: 5000,
    multipleStatements: false,
  });
  c.on('error', () => undefined);
  return c;
}

export async function myQuery<T = Record<string, unknown>>(sql: string, database: string = MY_DB, admin = false): Promise<T[]> {
  const c = await myConnection(database, admin);
  try {
    const [rows] = await c.query(sql);
    return rows as T[];
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** A background activity; stop() ends it and waits for it. */
export interface Handle {
  stop(): Promise<void>;
}

export const NOOP: Handle = { stop: async () => undefined };

/**
 * Runs `step` over and over until stopped; a failing step (the fault's own errors: deadlocks,
 * full disks, refused connections) waits `pauseOnErrorMs` and goes on.
 */
export function loop(step: () => Promise<void>, pauseOnErrorMs = 500): Handle & { errors: () => number } {
  let stopped = false;
  let errors = 0;
  const done = (async () => {
    while (!stopped) {
      try {
        await step();
      } catch {
        errors++;
        await sleep(pauseOnErrorMs);
      }
    }
  })();
  return {
    errors: () => errors,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

export function all(handles: Handle[]): Handle {
  return { stop: async () => void (await Promise.all(handles.map((h) => h.stop()))) };
}

export const rand = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo + 1));
