import { MAX_MESSAGE_BYTES } from '@aoc/contracts';
import { createServiceDataSource, startEmbeddedPostgres, type EmbeddedPostgres } from '@aoc/persistence';
import type { DataSource } from 'typeorm';
import { InMemoryBroker } from '../transport/memory/in-memory-broker';
import { InMemoryTransport } from '../transport/memory/in-memory-transport';
import { MessagesRejectedError, type OutgoingMessage } from '../transport/transport';
import type { SetAside } from './bus-store';
import { PostgresBusStore, SET_ASIDE_HEADER, busTablesDdl, produceRequests } from './postgres-bus-store';

/** The outbox relay against a real (embedded) Postgres: bounded requests, and a refused row set aside. */
describe('outbox relay', () => {
  let pg: EmbeddedPostgres;
  let ds: DataSource;
  let store: PostgresBusStore;

  const append = (topic: string, value: string) => store.transaction((tx) => store.appendOutbox(tx, topic, { key: 'k', value, headers: {} }));

  beforeAll(async () => {
    pg = await startEmbeddedPostgres();
    ds = createServiceDataSource({ url: pg.url, schema: 'public', poolSize: 1 });
    await ds.initialize();
    for (const ddl of busTablesDdl('relay_test')) await ds.query(ddl);
    store = new PostgresBusStore(ds, 'relay_test');
  }, 120000);

  afterAll(async () => {
    await ds?.destroy();
    await pg?.stop();
  });

  beforeEach(async () => {
    await ds.query('TRUNCATE "relay_test"."bus_outbox"');
  });

  it('cuts consecutive rows of a topic into requests no larger than one bus message, in order', async () => {
    const big = 'x'.repeat(200 * 1024);
    for (let i = 0; i < 7; i++) await append('t.a', `${i}${big}`);
    await append('t.b', 'small');
    await append('t.a', 'last');
    const requests: { topic: string; bytes: number; first: string }[] = [];
    const sent = await store.relay(async (topic, messages) => {
      requests.push({ topic, bytes: messages.reduce((n, m) => n + Buffer.byteLength(m.value), 0), first: m0(messages) });
    });
    expect(sent).toBe(9);
    expect(requests.every((r) => r.bytes <= MAX_MESSAGE_BYTES)).toBe(true);
    expect(requests.map((r) => [r.topic, r.first])).toEqual([['t.a', '0'], ['t.a', '2'], ['t.a', '4'], ['t.a', '6'], ['t.b', 's'], ['t.a', 'l']]);
    expect(await store.pendingOutboxCount()).toBe(0);
  });

  it('sends a refused request again row by row and sets aside only the row the broker refuses on its own', async () => {
    const broker = new InMemoryBroker({ maxMessageBytes: 1000 });
    broker.createTopic('t.a', 1);
    const transport = new InMemoryTransport(broker);
    await append('t.a', 'before');
    await append('t.a', 'y'.repeat(1500));
    await append('t.a', 'after');
    const setAside: SetAside[] = [];
    expect(await store.relay((topic, messages) => transport.send(topic, messages), 200, (row) => setAside.push(row))).toBe(3);
    expect(setAside).toEqual([{ id: expect.any(String), topic: 't.a', reason: expect.stringContaining('exceeds 1000 bytes') }]);
    const received: string[] = [];
    broker.join('g', ['t.a'], async (m) => {
      received.push(m.value.toString());
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(received).toEqual(['before', 'after']);
    expect(await store.pendingOutboxCount()).toBe(0);
    const rows: { value: string; headers: Record<string, string> }[] = await ds.query(`SELECT "value", "headers" FROM "relay_test"."bus_outbox" WHERE "headers" ? $1`, [SET_ASIDE_HEADER]);
    expect(rows.map((r) => r.value.length)).toEqual([1500]);
    broker.close();
  });

  it('keeps every row pending when the broker is unreachable (an outage is retried, never set aside)', async () => {
    await append('t.a', 'one');
    await append('t.a', 'two');
    await expect(store.relay(async () => Promise.reject(new Error('connect ECONNREFUSED')))).rejects.toThrow('ECONNREFUSED');
    expect(await store.pendingOutboxCount()).toBe(2);
    const refused = await store.relay(async (_t, messages: OutgoingMessage[]) => {
      if (messages.length > 0) throw new MessagesRejectedError('MESSAGE_TOO_LARGE');
    });
    expect(refused).toBe(2);
    expect(await store.pendingOutboxCount()).toBe(0);
  });

  it('prunes sent rows past the outbox retention and inbox rows past the inbox retention, never a row still to be sent', async () => {
    await ds.query('TRUNCATE "relay_test"."bus_inbox"');
    const now = new Date('2026-12-03T12:00:00Z');
    const ago = (days: number) => new Date(now.getTime() - days * 86_400_000);
    for (const [value, published, headers] of [
      ['sent-old', ago(8), {}],
      ['sent-new', ago(2), {}],
      ['pending-old', null, {}],
      ['aside-8d', ago(8), { [SET_ASIDE_HEADER]: 'too large' }],
      ['aside-31d', ago(31), { [SET_ASIDE_HEADER]: 'too large' }],
    ] as const) {
      await ds.query(`INSERT INTO "relay_test"."bus_outbox" ("topic", "value", "headers", "created_at", "published_at") VALUES ('t', $1, $2::jsonb, $3, $4)`, [value, JSON.stringify(headers), ago(40), published]);
    }
    for (const [id, at] of [['m-old', ago(31)], ['m-new', ago(29)]] as const) {
      await ds.query(`INSERT INTO "relay_test"."bus_inbox" ("consumer_group", "message_id", "topic", "outcome", "processed_at") VALUES ('g', $1, 't', 'processed', $2)`, [id, at]);
    }
    expect(await store.prune({ outboxDays: 7, inboxDays: 30 }, now)).toEqual({ outbox: 2, inbox: 1 });
    const left: { value: string }[] = await ds.query('SELECT "value" FROM "relay_test"."bus_outbox" ORDER BY "value"');
    expect(left.map((r) => r.value)).toEqual(['aside-8d', 'pending-old', 'sent-new']);
    const inbox: { message_id: string }[] = await ds.query('SELECT "message_id" FROM "relay_test"."bus_inbox"');
    expect(inbox.map((r) => r.message_id)).toEqual(['m-new']);
  });

  it('starts a new request at each change of topic and at the size bound', () => {
    const rows = [1, 2, 3].map((n) => ({ id: String(n), topic: n === 3 ? 'b' : 'a', message_key: null, value: 'v', headers: {} }));
    expect(produceRequests(rows, 10, () => 6).map((r) => r.map((x) => x.id))).toEqual([['1'], ['2'], ['3']]);
    expect(produceRequests(rows, 100, () => 6).map((r) => r.map((x) => x.id))).toEqual([['1', '2'], ['3']]);
  });
});

function m0(messages: OutgoingMessage[]): string {
  return messages[0]?.value.slice(0, 1) ?? '';
}
