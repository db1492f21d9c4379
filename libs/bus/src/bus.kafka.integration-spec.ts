import { randomUUID } from 'node:crypto';
import { busContractSuite, eventually } from '../test/bus-contract.suite';
import { KafkaHarness } from '../test/kafka-harness';

const harness = new KafkaHarness();
beforeAll(() => harness.setup(), 60000);
afterAll(() => harness.teardown(), 60000);

busContractSuite('Kafka transport + Postgres', () => harness);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Kafka transport: slow handlers', () => {
  it('keeps its group membership while a handler works past the session timeout, so nothing is handled twice', async () => {
    const topic = `aoc.test.slow-${randomUUID().slice(0, 8)}`;
    await harness.createTopics([{ name: topic, partitions: 1 }]);
    const transport = harness.transport(); // session timeout 6 s
    await transport.connect();
    const seen: string[] = [];
    const sub = await transport.subscribe({
      groupId: `aoc.test.slow-${randomUUID().slice(0, 8)}`,
      topics: [topic],
      handle: async (m) => {
        seen.push(m.value.toString());
        // Longer than the session timeout: without heartbeats during the work the group evicts the member and the message comes again.
        if (m.value.toString() === 'slow') await sleep(10_000);
      },
    });
    await eventually(() => sub.joined() || undefined, 30_000, 'the consumer to join its group');
    await harness.rawSend(topic, [
      { key: 'k', value: 'slow', headers: {} },
      { key: 'k', value: 'next', headers: {} },
    ]);
    await eventually(() => (seen.includes('next') ? true : undefined), 60_000, 'both messages handled');
    await sleep(2_000);
    expect(seen).toEqual(['slow', 'next']);
    expect(sub.joined()).toBe(true);
    await sub.stop();
    expect(sub.joined()).toBe(false);
  }, 90_000);
});
