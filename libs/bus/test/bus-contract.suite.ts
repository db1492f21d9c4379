import { randomUUID } from 'node:crypto';
import { DeadLetterV1, dlqTopicOf, type Role, type TopicDefinition } from '@aoc/contracts';
import { PermanentError, TransientError } from '@aoc/errors';
import type { DataSource } from 'typeorm';
import { Bus, BusAclError, contractsViewOf, PostgresBusStore, busTablesDdl, type Transport, type OutgoingMessage, type RawMessage } from '../src';
import { testTopics } from './test-topics';

/** What each transport provides to the shared contract suite. */
export interface BusHarness {
  /** A new connection, as one service process would have. */
  transport(): Transport;
  /** Sends bytes as they are, bypassing the bus (to inject malformed input). */
  rawSend(topic: string, messages: OutgoingMessage[]): Promise<void>;
  /** Waits until `topic` holds messages satisfying `done`, returns all read so far. */
  readUntil(topic: string, done: (messages: RawMessage[]) => boolean, timeoutMs?: number): Promise<RawMessage[]>;
  createTopics(topics: TopicDefinition[]): Promise<void>;
  dataSource(): DataSource;
}

export async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function envelopeFor(topic: TopicDefinition, payload: unknown, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    messageId: randomUUID(),
    idempotencyKey: randomUUID(),
    schema: { topic: topic.name, version: topic.version },
    producedAt: new Date().toISOString(),
    producer: 'router',
    payload,
    ...overrides,
  });
}

function deadLetters(messages: RawMessage[]): DeadLetterV1[] {
  return messages.map((m) => DeadLetterV1.parse(JSON.parse(m.value.toString('utf8'))));
}

/** One suite, two transports: the in-process broker must behave like Kafka. */
export function busContractSuite(name: string, harness: () => BusHarness): void {
  describe(`bus contract: ${name}`, () => {
    const runTag = randomUUID().slice(0, 8);
    const topics = testTopics(runTag);
    const contracts = contractsViewOf(topics.all);
    const schema = `bus_test_${runTag}`;
    const buses: Bus[] = [];
    let h: BusHarness;

    beforeAll(async () => {
      h = harness();
      await h.createTopics(topics.all);
      for (const ddl of busTablesDdl(schema)) await h.dataSource().query(ddl);
      await h.dataSource().query(`CREATE TABLE IF NOT EXISTS "${schema}"."effects" ("id" serial PRIMARY KEY, "key" text NOT NULL, "seq" int NOT NULL)`);
    });

    afterEach(async () => {
      for (const b of buses.splice(0)) await b.stop();
    });

    function makeBus(role: Role = 'router', extra: Partial<ConstructorParameters<typeof Bus>[0]> = {}): Bus {
      const bus = new Bus({
        role,
        transport: h.transport(),
        store: new PostgresBusStore(h.dataSource(), schema),
        publishes: [topics.ping, topics.pong],
        contracts,
        retry: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 50 },
        relayIntervalMs: 100,
        ...extra,
      });
      buses.push(bus);
      return bus;
    }

    const groupSuffix = () => `g${randomUUID().slice(0, 6)}`;

    it('delivers a validated payload with its envelope, and validates on publish', async () => {
      const bus = makeBus();
      const seen: { key: string; producer: string; topic: string }[] = [];
      bus.subscribe(topics.ping, async (p, ctx) => {
        if (p.key === 'hello') seen.push({ key: p.key, producer: ctx.envelope.producer, topic: ctx.envelope.schema.topic });
      }, { groupSuffix: groupSuffix() });
      await bus.start();
      await bus.transaction((uow) => uow.publish(topics.ping, { key: 'hello', seq: 1 }));
      await eventually(() => seen.length === 1 || undefined, 20000, 'delivery');
      expect(seen[0]).toEqual({ key: 'hello', producer: 'router', topic: topics.ping.name });
      await expect(bus.transaction((uow) => uow.publish(topics.ping, { key: '', seq: -1 }))).rejects.toThrow(/payload\.key/);
    });

    it('keeps order per key', async () => {
      const bus = makeBus();
      const order = new Map<string, number[]>();
      bus.subscribe(topics.ping, async (p) => {
        if (!p.key.startsWith('ord-')) return;
        order.set(p.key, [...(order.get(p.key) ?? []), p.seq]);
      }, { groupSuffix: groupSuffix() });
      await bus.start();
      await bus.transaction(async (uow) => {
        for (let seq = 0; seq < 20; seq++) for (const key of ['ord-a', 'ord-b', 'ord-c']) await uow.publish(topics.ping, { key, seq });
      });
      await eventually(() => ([...order.values()].reduce((n, v) => n + v.length, 0) === 60 ? true : undefined), 30000, '60 messages');
      for (const seqs of order.values()) expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    });

    it('shares partitions between members of one consumer group and processes each message once', async () => {
      const group = groupSuffix();
      const counts = [0, 0];
      const seen = new Set<string>();
      let duplicates = 0;
      const members = [makeBus(), makeBus()];
      members.forEach((bus, i) =>
        bus.subscribe(topics.ping, async (p) => {
          if (!p.key.startsWith('share-')) return;
          const id = `${p.key}/${p.seq}`;
          if (seen.has(id)) duplicates++;
          seen.add(id);
          counts[i]++;
        }, { groupSuffix: group }),
      );
      await Promise.all(members.map((m) => m.start()));
      let round = 0;
      // Keep publishing small rounds until both members got work (a rebalance may still be settling).
      while ((counts[0] === 0 || counts[1] === 0) && round < 30) {
        await members[0].transaction(async (uow) => {
          for (let k = 0; k < 12; k++) await uow.publish(topics.ping, { key: `share-${round}-${k}`, seq: round });
        });
        round++;
        await eventually(() => (seen.size === round * 12 ? true : undefined), 30000, `round ${round}`);
      }
      expect(counts[0]).toBeGreaterThan(0);
      expect(counts[1]).toBeGreaterThan(0);
      expect(counts[0] + counts[1]).toBe(round * 12);
      expect(duplicates).toBe(0);
    });

    it('redelivers after transient failures and commits the effect exactly once', async () => {
      const bus = makeBus();
      let calls = 0;
      bus.subscribe(topics.ping, async (p, ctx) => {
        if (p.key !== 'flaky') return;
        calls++;
        await ctx.manager.query(`INSERT INTO "${schema}"."effects" ("key", "seq") VALUES ($1, $2)`, [p.key, p.seq]);
        if (ctx.attempt < 3) throw new TransientError('TEST.FLAKY', 'try again');
        await ctx.publish(topics.pong, { key: 'flaky', seq: p.seq });
      }, { groupSuffix: groupSuffix() });
      await bus.start();
      await bus.transaction((uow) => uow.publish(topics.ping, { key: 'flaky', seq: 7 }));
      const pongs = await h.readUntil(topics.pong.name, (ms) => ms.some((m) => m.key === 'flaky'));
      expect(pongs.filter((m) => m.key === 'flaky')).toHaveLength(1);
      expect(calls).toBe(3);
      const rows: unknown[] = await h.dataSource().query(`SELECT 1 FROM "${schema}"."effects" WHERE "key" = 'flaky'`);
      expect(rows).toHaveLength(1);
    });

    it('ignores a duplicate delivery of the same message id', async () => {
      const bus = makeBus();
      const handled: number[] = [];
      bus.subscribe(topics.ping, async (p) => {
        if (p.key === 'dup') handled.push(p.seq);
      }, { groupSuffix: groupSuffix() });
      await bus.start();
      const value = envelopeFor(topics.ping, { key: 'dup', seq: 1 });
      await h.rawSend(topics.ping.name, [{ key: 'dup', value, headers: {} }, { key: 'dup', value, headers: {} }]);
      await h.rawSend(topics.ping.name, [{ key: 'dup', value: envelopeFor(topics.ping, { key: 'dup', seq: 2 }), headers: {} }]);
      await eventually(() => (handled.includes(2) ? true : undefined), 20000, 'second message');
      expect(handled).toEqual([1, 2]);
    });

    it('dead-letters malformed JSON, invalid payloads, unknown versions and oversized messages, then moves on', async () => {
      const bus = makeBus('router', { maxMessageBytes: 4096 });
      const handled: number[] = [];
      bus.subscribe(topics.ping, async (p) => {
        if (p.key === 'bad') handled.push(p.seq);
      }, { groupSuffix: groupSuffix() });
      await bus.start();
      await h.rawSend(topics.ping.name, [
        { key: 'bad', value: '{"messageId": oops', headers: {} },
        { key: 'bad', value: envelopeFor(topics.ping, { key: 'bad', seq: 'one' }), headers: {} },
        { key: 'bad', value: envelopeFor(topics.ping, { key: 'bad', seq: 1 }, { schema: { topic: topics.ping.name.replace(/v1$/, 'v2'), version: 2 } }), headers: {} },
        { key: 'bad', value: envelopeFor(topics.ping, { key: 'bad', seq: 1, note: 'x'.repeat(5000) }), headers: {} },
        { key: 'bad', value: envelopeFor(topics.ping, { key: 'bad', seq: 99 }), headers: {} },
      ]);
      await eventually(() => (handled.includes(99) ? true : undefined), 20000, 'valid message after bad ones');
      const letters = deadLetters(await h.readUntil(dlqTopicOf(topics.ping.name), (ms) => ms.length >= 4));
      const codes = letters.map((l) => l.errorCode).sort();
      expect(codes).toEqual(['BUS.MALFORMED_JSON', 'BUS.MESSAGE_TOO_LARGE', 'BUS.SCHEMA_INVALID', 'BUS.UNKNOWN_SCHEMA_VERSION']);
      expect(letters.find((l) => l.errorCode === 'BUS.SCHEMA_INVALID')?.reason).toContain('payload.seq');
      expect(letters.find((l) => l.errorCode === 'BUS.UNKNOWN_SCHEMA_VERSION')?.reason).toContain('known versions: 1');
      expect(letters.every((l) => l.originalTopic === topics.ping.name)).toBe(true);
      expect(handled).toEqual([99]);
    });

    it('dead-letters permanent handler errors at once and transient ones after bounded retries, rolling back their writes', async () => {
      const bus = makeBus();
      const attempts = new Map<number, number>();
      bus.subscribe(topics.ping, async (p, ctx) => {
        if (p.key !== 'fail') return;
        attempts.set(p.seq, ctx.attempt);
        await ctx.manager.query(`INSERT INTO "${schema}"."effects" ("key", "seq") VALUES ($1, $2)`, [p.key, p.seq]);
        await ctx.publish(topics.pong, { key: 'fail', seq: p.seq });
        if (p.seq === 1) throw new PermanentError('TEST.BAD_INPUT', 'cannot handle seq 1');
        throw new TransientError('TEST.DOWN', 'dependency down');
      }, { groupSuffix: groupSuffix() });
      await bus.start();
      await bus.transaction(async (uow) => {
        await uow.publish(topics.ping, { key: 'fail', seq: 1 });
        await uow.publish(topics.ping, { key: 'fail', seq: 2 });
      });
      const letters = deadLetters(await h.readUntil(dlqTopicOf(topics.ping.name), (ms) => deadLetters(ms).filter((l) => l.reason.startsWith('TEST.')).length >= 2)).filter((l) => l.reason.startsWith('TEST.'));
      expect(letters.map((l) => [l.errorCode, l.attempts])).toEqual([
        ['BUS.HANDLER_REJECTED', 1],
        ['BUS.RETRIES_EXHAUSTED', 3],
      ]);
      expect(attempts.get(2)).toBe(3);
      const rows: unknown[] = await h.dataSource().query(`SELECT 1 FROM "${schema}"."effects" WHERE "key" = 'fail'`);
      expect(rows).toHaveLength(0);
      await bus.transaction((uow) => uow.publish(topics.pong, { key: 'marker-fail', seq: 0 }));
      const pongs = await h.readUntil(topics.pong.name, (ms) => ms.some((m) => m.key === 'marker-fail'));
      expect(pongs.filter((m) => m.key === 'fail')).toHaveLength(0);
    });

    it('runs a prepare step outside the transaction, retries it, and skips it for duplicates', async () => {
      const bus = makeBus();
      let prepares = 0;
      const seen: unknown[] = [];
      bus.subscribe(
        topics.ping,
        async (p, ctx) => {
          if (p.key === 'prep') seen.push(ctx.prepared);
        },
        {
          groupSuffix: groupSuffix(),
          prepare: async (payload) => {
            const p = payload as { key: string; seq: number };
            if (p.key !== 'prep') return null;
            prepares++;
            if (prepares === 1) throw new TransientError('TEST.SLOW_PROVIDER', 'provider blip');
            return { fetched: p.seq * 10 };
          },
        },
      );
      await bus.start();
      const value = envelopeFor(topics.ping, { key: 'prep', seq: 4 });
      await h.rawSend(topics.ping.name, [{ key: 'prep', value, headers: {} }]);
      await eventually(() => (seen.length === 1 ? true : undefined), 20000, 'prepared handler');
      await h.rawSend(topics.ping.name, [{ key: 'prep', value, headers: {} }, { key: 'prep', value: envelopeFor(topics.ping, { key: 'prep', seq: 5 }), headers: {} }]);
      await eventually(() => (seen.length === 2 ? true : undefined), 20000, 'second prepared handler');
      expect(seen).toEqual([{ fetched: 40 }, { fetched: 50 }]);
      expect(prepares).toBe(3);
    });

    it('keeps committed messages in the outbox until the transport takes them', async () => {
      const real = h.transport();
      let failSends = 3;
      const flaky: Transport = {
        kind: real.kind,
        connect: () => real.connect(),
        disconnect: () => real.disconnect(),
        subscribe: (o) => real.subscribe(o),
        send: async (topic, messages) => {
          if (failSends-- > 0) throw new Error('broker unavailable');
          await real.send(topic, messages);
        },
      };
      const bus = makeBus('router', { transport: flaky });
      await bus.start();
      await bus.transaction((uow) => uow.publish(topics.pong, { key: 'outbox', seq: 1 }));
      const pongs = await h.readUntil(topics.pong.name, (ms) => ms.some((m) => m.key === 'outbox'));
      expect(pongs.filter((m) => m.key === 'outbox')).toHaveLength(1);
    });

    it('refuses to start a role outside its grant, naming role and topic', async () => {
      const bus = makeBus();
      bus.subscribe(topics.forbidden, async () => undefined);
      await expect(bus.start()).rejects.toThrow(BusAclError);
      await expect(bus.start()).rejects.toThrow(`role "router" is not granted subscribe on topic "${topics.forbidden.name}"`);
      const publisher = makeBus('router', { publishes: [topics.forbidden] });
      await expect(publisher.start()).rejects.toThrow(`not granted publish on topic "${topics.forbidden.name}"`);
    });
  });
}
