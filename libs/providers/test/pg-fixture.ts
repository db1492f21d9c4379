import { createServer, type Server, type Socket } from 'node:net';
import { ProviderError } from '../src/core/provider-error';

/** Test helpers of the PostgreSQL statistics connector. */

/** The ProviderError a promise rejects with (fails the test when it resolves or rejects otherwise). */
export async function rejectionOf(promise: Promise<unknown>): Promise<ProviderError> {
  return providerErrorOrFail(await promise.then(() => undefined, (error: unknown) => error ?? null));
}

/** The ProviderError a call throws (fails the test when it returns or throws otherwise). */
export function thrownBy(call: () => unknown): ProviderError {
  try {
    call();
  } catch (error) {
    return providerErrorOrFail(error ?? null);
  }
  return providerErrorOrFail(undefined);
}

function providerErrorOrFail(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  throw new Error(error === undefined ? 'expected a ProviderError, nothing was thrown' : `expected a ProviderError, got ${String(error)}`);
}

/**
 * A TCP port that counts connections and drops them (proves a refusal happened before any
 * network use), or with `hold` keeps them open and silent (a server that never answers).
 */
export interface TrapServer {
  port: number;
  connections(): number;
  close(): Promise<void>;
}

export async function startTrapServer(options: { hold?: boolean } = {}): Promise<TrapServer> {
  let connections = 0;
  const held = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections++;
    if (!options.hold) return socket.destroy();
    held.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => connections,
    close: () => {
      for (const socket of held) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A minimal PostgreSQL wire-protocol server for failures the local (trust-auth) cluster cannot
 * produce: it asks for a cleartext password, records what it got, and answers with a FATAL
 * ErrorResponse carrying the given SQLSTATE and message.
 */
export interface PgAuthFixture {
  port: number;
  /** Passwords clients sent, in order. */
  passwords: string[];
  close(): Promise<void>;
}

const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

const message = (type: string, body: Buffer) => Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);

function errorResponse(sqlstate: string, text: string): Buffer {
  const field = (code: string, value: string) => Buffer.concat([Buffer.from(code), Buffer.from(value), Buffer.from([0])]);
  return message('E', Buffer.concat([field('S', 'FATAL'), field('V', 'FATAL'), field('C', sqlstate), field('M', text), Buffer.from([0])]));
}

export async function startPgAuthFixture(reply: { sqlstate: string; message: string }): Promise<PgAuthFixture> {
  const passwords: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = Buffer.alloc(0);
    let started = false;
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!started) {
        if (buffer.length < 4 || buffer.length < buffer.readInt32BE(0)) return;
        buffer = buffer.subarray(buffer.readInt32BE(0));
        started = true;
        socket.write(message('R', int32(3))); // AuthenticationCleartextPassword
      }
      if (buffer.length < 5 || buffer.length < 1 + buffer.readInt32BE(1)) return;
      if (buffer.toString('utf8', 0, 1) === 'p') passwords.push(buffer.toString('utf8', 5, buffer.readInt32BE(1)).replace(/\0$/, ''));
      socket.end(errorResponse(reply.sqlstate, reply.message));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    passwords,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
