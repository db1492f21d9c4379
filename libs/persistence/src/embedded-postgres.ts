import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { createServer } from 'node:net';

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

/**
 * Starts PGlite (Postgres compiled to WASM) behind its wire-protocol socket server, so the
 * normal `pg` driver and TypeORM talk to it like to any Postgres. PGlite is a single session:
 * callers must use exactly one connection (pool size 1), otherwise transactions interleave.
 *
 * `dataDir` keeps data between runs; without it the database lives in memory.
 */
export async function startEmbeddedPostgres(options: { dataDir?: string } = {}): Promise<EmbeddedPostgres> {
  const db = options.dataDir ? new PGlite(options.dataDir) : new PGlite();
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
