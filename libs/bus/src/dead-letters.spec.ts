import { randomUUID } from 'node:crypto';
import { HEADER_SCHEMA, dlqTopicOf, type DeadLetterV1 } from '@aoc/contracts';
import { PermanentError } from '@aoc/errors';
import { eventually } from '../test/bus-contract.suite';
import { MemoryHarness } from '../test/memory-harness';
import { testTopics } from '../test/test-topics';
import { Bus, PostgresBusStore, busTablesDdl, contractsViewOf } from './index';
import {
  DEAD_LETTER_REPLAY_SCHEMA,
  DLQ_REPLAY_GROUP_HEADER,
  DLQ_REPLAY_OF_HEADER,
  deadLetterId,
  jsonErrorWithoutInput,
  parseDeadLetterId,
  redactReason,
  replayMarkerOf,
  replayMessageOf,
  replayRefusal,
  shelveDeadLetters,
  summarizeDeadLetter,
} from './dead-letters';
import type { RawMessage } from './transport/transport';

const TICKET_TEXT = 'Our checkout database melts down every night at 02:00 and the CEO is furious about it';

function letter(overrides: Partial<DeadLetterV1> = {}): DeadLetterV1 {
  return {
    originalTopic: 'aoc.run.published.v1',
    originalKey: 'SUP-1',
    originalValue: JSON.stringify({ messageId: 'm-1', payload: { description: TICKET_TEXT } }),
    originalValueTruncated: false,
    originalHeaders: { 'aoc-schema': 'aoc.run.published.v1', traceparent: '00-abc-def-01' },
    messageId: 'm-1',
    consumerGroup: 'aoc.reporter',
    errorCode: 'BUS.HANDLER_REJECTED',
    reason: 'REPORTER.BAD: cannot record',
    attempts: 1,
    deadLetteredAt: '2026-12-01T10:00:00.000Z',
    runId: 'run-1',
    ...overrides,
  };
}

const raw = (topic: string, offset: number, value: unknown, headers: Record<string, string> = { [HEADER_SCHEMA]: 'aoc.dead-letter.v1' }): RawMessage => ({
  topic,
  partition: 0,
  offset: String(offset),
  key: 'k',
  value: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
  headers,
});

describe('dead letters: reading and marking', () => {
  const dlq = 'aoc.run.published.v1.dlq';

  it('names a letter by where it is stored', () => {
    expect(deadLetterId(dlq, 0, '17')).toBe('aoc.run.published.v1.dlq:0:17');
    expect(parseDeadLetterId('aoc.run.published.v1.dlq:0:17')).toEqual({ dlqTopic: dlq, partition: 0, offset: '17' });
    expect(parseDeadLetterId('aoc.run.published.v1:0:17')).toBeNull();
    expect(parseDeadLetterId('17')).toBeNull();
  });

  it('shelves letters with their replay record, counts unreadable records, and summarises without the value', () => {
    const marker = replayMarkerOf({ id: deadLetterId(dlq, 0, '0'), dlqTopic: dlq, partition: 0, offset: '0', letter: letter(), replay: null }, new Date('2026-12-01T11:00:00Z'));
    const shelf = shelveDeadLetters([
      raw(dlq, 0, letter()),
      raw(dlq, 1, letter({ messageId: 'm-2', deadLetteredAt: '2026-12-01T09:00:00.000Z' })),
      raw(dlq, 2, 'not json'),
      raw(dlq, 3, marker.message.value, marker.message.headers),
    ]);
    expect(shelf.letters.map((l) => [l.id, l.replay?.replayedAt ?? null])).toEqual([
      [`${dlq}:0:1`, null],
      [`${dlq}:0:0`, '2026-12-01T11:00:00.000Z'],
    ]);
    expect(shelf.unreadable).toEqual([`${dlq}:0:2`]);
    const summary = summarizeDeadLetter(shelf.letters[1]);
    expect(summary).toEqual({
      id: `${dlq}:0:0`,
      topic: 'aoc.run.published.v1',
      dlqTopic: dlq,
      partition: 0,
      offset: '0',
      errorCode: 'BUS.HANDLER_REJECTED',
      reason: 'REPORTER.BAD: cannot record',
      deadLetteredAt: '2026-12-01T10:00:00.000Z',
      consumerGroup: 'aoc.reporter',
      messageId: 'm-1',
      runId: 'run-1',
      attempts: 1,
      replayedAt: '2026-12-01T11:00:00.000Z',
      notReplayable: null,
    });
    expect(JSON.stringify(summary)).not.toContain('CEO');
    expect(replayRefusal(shelf.letters[1])).toBe('already replayed at 2026-12-01T11:00:00.000Z');
    expect(replayRefusal(shelf.letters[0])).toBeNull();
  });

  it('re-publishes the original bytes with the letter and its group named, and refuses what cannot be replayed', () => {
    const stored = { id: `${dlq}:0:4`, dlqTopic: dlq, partition: 0, offset: '4', letter: letter(), replay: null };
    const { topic, message } = replayMessageOf(stored);
    expect(topic).toBe('aoc.run.published.v1');
    expect(message.value).toBe(letter().originalValue);
    expect(message.key).toBe('SUP-1');
    expect(message.headers).toEqual({ 'aoc-schema': 'aoc.run.published.v1', traceparent: '00-abc-def-01', [DLQ_REPLAY_OF_HEADER]: `${dlq}:0:4`, [DLQ_REPLAY_GROUP_HEADER]: 'aoc.reporter' });
    const truncated = { ...stored, letter: letter({ originalValueTruncated: true }) };
    expect(replayRefusal(truncated)).toMatch(/first 64 KiB/);
    expect(() => replayMessageOf(truncated)).toThrow(/cannot be replayed/);
    expect(replayRefusal({ ...stored, letter: letter({ messageId: null, errorCode: 'BUS.MALFORMED_JSON' }) })).toMatch(/not a bus envelope/);
    const marker = replayMarkerOf(stored, new Date('2026-12-02T00:00:00Z'));
    expect(marker).toMatchObject({ topic: dlq, partition: 0, message: { key: `${dlq}:0:4`, headers: { [HEADER_SCHEMA]: DEAD_LETTER_REPLAY_SCHEMA } } });
    expect(marker.message.value).not.toContain('CEO');
  });

  it('never shows long quoted input in a reason, nor a JSON parser quoting the value', () => {
    expect(redactReason(`JUDGE.BAD: cannot parse "${TICKET_TEXT}"`)).toBe('JUDGE.BAD: cannot parse "…(85 chars)"');
    expect(redactReason('BUS.X: field "ticket.title" missing')).toBe('BUS.X: field "ticket.title" missing');
    expect(redactReason('x'.repeat(400))).toHaveLength(300);
    expect(redactReason(`value is not valid JSON: Unexpected token 'O', "Our "big" ch"... is not valid JSON`)).toBe('value is not valid JSON: Unexpected token (input not shown)');
    let parseError: unknown;
    try {
      JSON.parse(TICKET_TEXT);
    } catch (error) {
      parseError = error;
    }
    expect(String(parseError)).toContain('Our checko'); // what V8 would have put in the reason
    expect(jsonErrorWithoutInput(parseError)).toBe('syntax error');
    try {
      JSON.parse('{"a": 1} trailing');
    } catch (error) {
      expect(jsonErrorWithoutInput(error)).toBe('syntax error at position 9');
    }
    try {
      JSON.parse('{"a": ');
    } catch (error) {
      expect(jsonErrorWithoutInput(error)).toBe('unexpected end of input');
    }
  });
});

describe('dead letters: a replay is handled again by the group that dead-lettered it, once per letter', () => {
  const harness = new MemoryHarness();
  const tag = randomUUID().slice(0, 8);
  const topics = testTopics(tag);
  const schema = `bus_dlq_${tag}`;
  const buses: Bus[] = [];

  beforeAll(async () => {
    await harness.setup();
    await harness.createTopics(topics.all);
    for (const ddl of busTablesDdl(schema)) await harness.dataSource().query(ddl);
  }, 120_000);

  afterAll(async () => {
    for (const b of buses) await b.stop();
    await harness.teardown();
  });

  function makeBus(): Bus {
    const bus = new Bus({
      role: 'router',
      transport: harness.transport(),
      store: new PostgresBusStore(harness.dataSource(), schema),
      publishes: [topics.ping, topics.pong],
      contracts: contractsViewOf(topics.all),
      retry: { maxAttempts: 2, initialDelayMs: 5, maxDelayMs: 10 },
      relayIntervalMs: 50,
    });
    buses.push(bus);
    return bus;
  }

  it('replays to the failing group only, ignores a second replay of the same letter, and a failed replay becomes a new letter', async () => {
    let broken = true;
    const failing: number[] = [];
    const healthy: number[] = [];
    const bus = makeBus();
    bus.subscribe(topics.ping, async (p) => {
      if (broken) throw new PermanentError('TEST.BROKEN', `cannot handle "${TICKET_TEXT}"`);
      failing.push(p.seq);
    }, { groupSuffix: 'failing' });
    bus.subscribe(topics.ping, async (p) => void healthy.push(p.seq), { groupSuffix: 'healthy' });
    await bus.start();
    await bus.transaction((uow) => uow.publish(topics.ping, { key: 'k', seq: 1 }));
    const dlq = dlqTopicOf(topics.ping.name);
    const letters = () => shelveDeadLetters(harness.broker.messages(dlq)).letters;
    await eventually(() => (letters().length === 1 && healthy.length === 1 ? true : undefined), 20_000, 'the dead letter');
    const first = letters()[0];
    expect(first.letter.consumerGroup).toBe('aoc.router.failing');
    expect(summarizeDeadLetter(first).reason).toBe('TEST.BROKEN: cannot handle "…(85 chars)"');

    // Still broken: the replay fails again and becomes a letter of its own (not silently dropped).
    const again = replayMessageOf(first);
    await harness.rawSend(again.topic, [again.message]);
    await eventually(() => (letters().length === 2 ? true : undefined), 20_000, 'the second dead letter');
    const second = letters()[1];
    expect(second.letter.messageId).toBe(first.letter.messageId);

    // Fixed: the replay of the second letter is handled once; the healthy group ignores it.
    broken = false;
    const replay = replayMessageOf(second);
    await harness.rawSend(replay.topic, [replay.message, replay.message]);
    await eventually(() => (failing.length === 1 ? true : undefined), 20_000, 'the replay handled');
    // The same letter replayed once more, and a forged replay naming the healthy group: both duplicates.
    await harness.rawSend(replay.topic, [replay.message, { ...replay.message, headers: { ...replay.message.headers, [DLQ_REPLAY_GROUP_HEADER]: 'aoc.router.healthy' } }]);
    await bus.transaction((uow) => uow.publish(topics.ping, { key: 'k', seq: 2 }));
    await eventually(() => (failing.includes(2) && healthy.includes(2) ? true : undefined), 20_000, 'the next message');
    expect(failing).toEqual([1, 2]);
    expect(healthy).toEqual([1, 2]);
    expect(letters()).toHaveLength(2);
  }, 60_000);
});
