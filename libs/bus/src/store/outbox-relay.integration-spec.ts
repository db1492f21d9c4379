import { randomUUID } from 'node:crypto';
import { createServiceDataSource } from '@aoc/persistence';
import type { DataSource } from 'typeorm';
import type { OutgoingMessage } from '../transport/transport';
import { PostgresBusStore, busTablesDdl } from './postgres-bus-store';

/**
 * The relay on a real Postgres with a real pool: while the broker call is in flight no row lock
 * and no transaction is held, and a second relay of the same outbox (a replica) stands back.
 */
describe('outbox relay (real Postgres)', () => {
  const schema = `relay_${randomUUID().slice(0, 8)}`;
  let ds: DataSource;
  let store: PostgresBusStore;

  beforeAll(async () => {
    const url = process.env['DATABASE_URL'];
    if (!url) throw new Error('DATABASE_URL is not set');
    ds = createServiceDataSource({ url, schema: 'public', poolSize: 4 });
    await ds.initialize();
    for (const ddl of busTablesDdl(schema)) await ds.query(ddl);
    store = new PostgresBusStore(ds, schema);
  });

  afterAll(async () => {
    await ds?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await ds?.destroy();
  });

  it('holds no lock or transaction across the send, and a second relay returns at once without sending', async () => {
    for (const v of ['a', 'b', 'c']) await store.transaction((tx) => store.appendOutbox(tx, 't.x', { key: 'k', value: v, headers: {} }));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let entered: () => void = () => undefined;
    const inSend = new Promise<void>((r) => (entered = r));
    const sent: OutgoingMessage[] = [];
    const first = store.relay(async (_topic, messages) => {
      entered();
      await gate;
      sent.push(...messages);
    });
    await inSend;
    // Another session can lock the rows being sent right now: the relay holds none.
    const locked: unknown[] = await ds.transaction((m) => m.query(`SELECT "id" FROM "${schema}"."bus_outbox" FOR UPDATE NOWAIT`));
    expect(locked).toHaveLength(3);
    const idleInTx: { n: string }[] = await ds.query(`SELECT count(*)::text AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()`);
    expect(Number(idleInTx[0]?.n)).toBe(0);
    // A replica's relay finds the outbox's relay lock taken and sends nothing.
    const second = jest.fn(async () => undefined);
    expect(await store.relay(second)).toBe(0);
    expect(second).not.toHaveBeenCalled();
    release();
    expect(await first).toBe(3);
    expect(sent.map((m) => m.value)).toEqual(['a', 'b', 'c']);
    expect(await store.pendingOutboxCount()).toBe(0);
    // The lock went with the pass: the next relay runs (and finds nothing left).
    expect(await store.relay(second)).toBe(0);
  });
});
