import { loadConfig } from '@aoc/config';
import { z } from 'zod';
import { KafkaStartFromSetting, kafkaStartFromDefault, setKafkaStartFromDefault } from './kafka-start-from';
import { KafkaTransport } from './kafka-transport';

// A fake kafkajs: records what each consumer subscribes with; no broker.
const subscriptions: { topic: string; fromBeginning?: boolean }[] = [];
jest.mock('kafkajs', () => {
  const events = { GROUP_JOIN: 'join', REBALANCING: 'rebalancing', CRASH: 'crash', STOP: 'stop', DISCONNECT: 'disconnect', START_BATCH_PROCESS: 'start', END_BATCH_PROCESS: 'end' };
  class Kafka {
    consumer() {
      return {
        events,
        on: () => undefined,
        connect: async () => undefined,
        subscribe: async (s: { topic: string; fromBeginning?: boolean }) => void subscriptions.push(s),
        run: async () => undefined,
        disconnect: async () => undefined,
      };
    }
    producer() {
      return { connect: async () => undefined, disconnect: async () => undefined, send: async () => undefined };
    }
  }
  return { Kafka, logLevel: { NOTHING: 0, ERROR: 1, WARN: 2, INFO: 4, DEBUG: 5 } };
});

const transport = (startFrom?: 'earliest' | 'latest') => new KafkaTransport({ clientId: 'aoc-test', brokers: ['127.0.0.1:1'], ...(startFrom ? { startFrom } : {}) });

async function subscribedFromBeginning(t: KafkaTransport): Promise<boolean[]> {
  subscriptions.length = 0;
  const handle = await t.subscribe({ groupId: 'aoc.router', topics: ['aoc.a.v1', 'aoc.b.v1'], handle: async () => undefined });
  await handle.stop();
  return subscriptions.map((s) => s.fromBeginning === true);
}

describe('AOC_KAFKA_START_FROM', () => {
  afterEach(() => setKafkaStartFromDefault('earliest'));

  it('parses at boot with zod: earliest by default, latest on request, anything else refused naming the key', () => {
    const schema = z.object({ AOC_KAFKA_START_FROM: KafkaStartFromSetting });
    expect(loadConfig('aoc-router', schema, {}).AOC_KAFKA_START_FROM).toBe('earliest');
    expect(loadConfig('aoc-router', schema, { AOC_KAFKA_START_FROM: '' }).AOC_KAFKA_START_FROM).toBe('earliest');
    expect(loadConfig('aoc-router', schema, { AOC_KAFKA_START_FROM: 'latest' }).AOC_KAFKA_START_FROM).toBe('latest');
    expect(() => loadConfig('aoc-router', schema, { AOC_KAFKA_START_FROM: 'beginning' })).toThrow('aoc-router: invalid configuration: AOC_KAFKA_START_FROM: earliest or latest');
  });

  it('subscribes every topic from the beginning by default (the behaviour before the setting)', async () => {
    expect(kafkaStartFromDefault()).toBe('earliest');
    expect(await subscribedFromBeginning(transport())).toEqual([true, true]);
  });

  it('follows the process setting, and a transport option overrides it', async () => {
    setKafkaStartFromDefault('latest');
    expect(await subscribedFromBeginning(transport())).toEqual([false, false]);
    expect(await subscribedFromBeginning(transport('earliest'))).toEqual([true, true]);
    setKafkaStartFromDefault('earliest');
    expect(await subscribedFromBeginning(transport('latest'))).toEqual([false, false]);
    expect(() => setKafkaStartFromDefault('newest' as never)).toThrow();
  });
});
