import { z } from 'zod';
import { defineTopic, type TopicDefinition } from '@aoc/contracts';

/** Topics private to one test run, so runs on a shared broker never see each other. */
export function testTopics(runTag: string) {
  const ping = defineTopic({
    baseName: `t${runTag}.ping`,
    version: 1,
    description: 'test ping',
    keyField: 'key',
    key: z.string(),
    value: z.object({ key: z.string().min(1), seq: z.number().int().nonnegative(), note: z.string().max(10000).optional(), runId: z.string().optional() }),
    producers: ['router'],
    consumers: ['router'],
    partitions: 6,
  });
  const pong = defineTopic({
    baseName: `t${runTag}.pong`,
    version: 1,
    description: 'test pong',
    keyField: 'key',
    key: z.string(),
    value: z.object({ key: z.string().min(1), seq: z.number().int().nonnegative() }),
    producers: ['router'],
    consumers: ['router'],
    partitions: 3,
  });
  const forbidden = defineTopic({
    baseName: `t${runTag}.forbidden`,
    version: 1,
    description: 'a topic the router role is not granted',
    keyField: 'key',
    key: z.string(),
    value: z.object({ key: z.string() }),
    producers: ['judge'],
    consumers: ['judge'],
    partitions: 1,
  });
  const all: TopicDefinition[] = [ping, pong, forbidden];
  return { ping, pong, forbidden, all };
}
