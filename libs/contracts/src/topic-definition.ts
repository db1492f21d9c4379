import type { z } from 'zod';
import type { Role } from './roles';

export const TOPIC_PREFIX = 'aoc.';

/** One registry entry: a versioned topic, its key and value schemas and who may use it. */
export interface TopicDefinition<K extends z.ZodType = z.ZodType, V extends z.ZodType = z.ZodType> {
  /** Full versioned name, e.g. `aoc.run.published.v1`. */
  readonly name: string;
  /** Base name without prefix and version, e.g. `run.published`. */
  readonly baseName: string;
  readonly version: number;
  readonly description: string;
  /** Which field of the payload is the Kafka key (ordering is per key). */
  readonly keyField: string;
  readonly key: K;
  readonly value: V;
  readonly producers: readonly Role[];
  readonly consumers: readonly Role[];
  /** Partitions provisioned on the broker and in the in-process transport. */
  readonly partitions: number;
}

export function defineTopic<K extends z.ZodType, V extends z.ZodType>(def: {
  baseName: string;
  version: number;
  description: string;
  keyField: string;
  key: K;
  value: V;
  producers: readonly Role[];
  consumers: readonly Role[];
  partitions?: number;
}): TopicDefinition<K, V> {
  return {
    ...def,
    name: `${TOPIC_PREFIX}${def.baseName}.v${def.version}`,
    partitions: def.partitions ?? 6,
  };
}

export type PayloadOf<T> = T extends TopicDefinition<z.ZodType, infer V> ? z.infer<V> : never;
export type KeyOf<T> = T extends TopicDefinition<infer K, z.ZodType> ? z.infer<K> : never;
