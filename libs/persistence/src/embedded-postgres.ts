import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface EmbeddedPostgres {
  /** postgres:// URL of the embedded server on 127.0.0.1. */
  readonly url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function templatePath(): string {
  // The package does not export its package.json; read it beside the resolved entry point.
  const manifest = join(dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  const dir = process.env['AOC_CACHE_DIR'] ?? join(homedir(), '.cache', 'aoc');
  return join(dir, `pglite-${version}-template.tar.gz`);
}

/**
 * A fresh in-memory PGlite runs initdb in WASM, which takes seconds. The first start saves the
 * freshly initialised data directory as a template; later starts load it instead.
 */
async function freshInMemory(): Promise<PGlite> {
  const template = templatePath();
  if (existsSync(template)) {
    try {
      const db = new PGlite({ loadDataDir: new Blob([readFileSync(template)]) });
      await db.waitReady;
      return db;
    } catch {
      // A damaged template is rebuilt below.
    }
  }
  const db = new PGlite();
  await db.waitReady;
  try {
    const dump = await db.dumpDataDir('gzip');
    mkdirSync(join(template, '..'), { recursive: true });
    const tmp = `${template}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    renameSync(tmp, template);
  } catch {
    // The cache is an optimisation only.
  }
  return db;
}

/**
 * Starts PGlite (Postgres compiled to WASM) behind its wire-protocol socket server, so the
 * normal `pg` driver and TypeORM talk to it like to any Postgres. PGlite is a single session:
 * callers must use exactly one connection (pool size 1), otherwise transactions interleave.
 *
 * `dataDir` keeps data between runs; without it the database lives in memory.
 */
export async function startEmbeddedPostgres(options: { dataDir?: string } = {}): Promise<EmbeddedPostgres> {
  const db = options.dataDir ? new PGlite(options.dataDir) : await freshInMemory();
  await db.waitReady;
  const port = await freePort();
  // Several slots only so that a closing connection does not block the next one (the server frees a
  // slot late); callers still keep to one open connection at a time.
  const server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections: 4 });
  await server.start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}
