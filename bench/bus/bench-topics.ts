// Bus benchmark: private topics.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineTopic, type Role } from '@aoc/contracts';
import { PARTITIONS, RUN_TAG } from './config';

export const ROLE: Role = 'router';

export function benchTopic(part: string) {
  return defineTopic({
    baseName: `bench${RUN_TAG}.${part}.ping`,
    version: 1,
    description: 'bus benchmark ping',
    keyField: 'key',
    key: z.string(),
    value: z.object({ key: z.string().min(1), seq: z.number().int().nonnegative() }),
    producers: [ROLE],
    consumers: [ROLE],
    partitions: PARTITIONS,
  });
}

export type BenchTopic = ReturnType<typeof benchTopic>;

export const keyOf = (seq: number): string => `k${seq % 60}`;

/** The floor's message: an envelope-like JSON of the same shape a real consumer would parse. */
export function floorValue(seq: number): string {
  return JSON.stringify({ messageId: randomUUID(), producedAt: new Date().toISOString(), payload: { key: keyOf(seq), seq } });
}

export function floorSeq(value: Buffer | null): number {
  const parsed = JSON.parse((value ?? Buffer.alloc(0)).toString('utf8')) as { payload?: { seq?: unknown } };
  const seq = parsed.payload?.seq;
  if (typeof seq !== 'number') throw new Error('floor message without payload.seq');
  return seq;
}
