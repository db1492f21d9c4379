import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A MySQL-protocol proxy in front of a real server that answers chosen statements with a server
 * error instead of forwarding them — the way TiDB (without noop functions) answers
 * `SET SESSION TRANSACTION READ ONLY`. It records every statement (COM_QUERY) it saw and which
 * ones it forwarded, so a test can prove what reached the server.
 */
export interface RefusingProxy {
  port: number;
  /** Statements the client sent, in order. */
  seen(): string[];
  /** Statements the real server received, in order. */
  forwarded(): string[];
  close(): Promise<void>;
}

const COM_QUERY = 0x03;

/** An ERR packet (sequence 1, the answer to a command) with the given error number and SQLSTATE. */
function errPacket(errno: number, sqlState: string, message: string): Buffer {
  const code = Buffer.alloc(2);
  code.writeUInt16LE(errno);
  const payload = Buffer.concat([Buffer.from([0xff]), code, Buffer.from(`#${sqlState}${message}`, 'utf8')]);
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  header[3] = 1;
  return Buffer.concat([header, payload]);
}

export async function startRefusingProxy(upstream: { host: string; port: number }, refuse: (sql: string) => { errno: number; sqlState: string; message: string } | null): Promise<RefusingProxy> {
  const seen: string[] = [];
  const forwarded: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const backend = connect(upstream);
    sockets.add(client).add(backend);
    let pending = Buffer.alloc(0);
    backend.on('data', (chunk) => client.write(chunk));
    client.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4) {
        const length = pending.readUIntLE(0, 3);
        if (pending.length < 4 + length) break;
        const packet = pending.subarray(0, 4 + length);
        pending = pending.subarray(4 + length);
        // Commands start a sequence at 0; handshake and auth packets never do.
        if (packet[3] === 0 && packet[4] === COM_QUERY) {
          const sql = packet.subarray(5).toString('utf8');
          seen.push(sql);
          const refusal = refuse(sql);
          if (refusal) {
            client.write(errPacket(refusal.errno, refusal.sqlState, refusal.message));
            continue;
          }
          forwarded.push(sql);
        }
        backend.write(packet);
      }
    });
    const end = () => {
      client.destroy();
      backend.destroy();
    };
    client.on('close', end).on('error', end);
    backend.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    seen: () => [...seen],
    forwarded: () => [...forwarded],
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
