import { z } from 'zod';

/**
 * Where a Kafka consumer group that has no committed offset on a partition starts reading it.
 * Committed offsets always win: this only matters the first time a group meets a partition (a new
 * role or group, a partition added later) or after the broker expired the group's offsets
 * (`offsets.retention.minutes`, 7 days by default, counted from when the group became empty).
 *
 * - `earliest` (default): every message the topic still holds. Nothing published before the group
 *   first joined is skipped; the inbox de-duplicates whatever was already handled, so the cost is
 *   reprocessing time, never a double effect. This was the only behaviour before the setting.
 * - `latest`: only messages produced after the group joined. Use it deliberately, e.g. to attach a
 *   fresh environment to topics whose backlog must not be processed; messages produced while no
 *   offset was committed are then skipped silently.
 */
export const KAFKA_START_FROM = ['earliest', 'latest'] as const;
export type KafkaStartFrom = (typeof KAFKA_START_FROM)[number];

/** The config key's schema (`AOC_KAFKA_START_FROM`), parsed at boot by the service host. */
export const KafkaStartFromSetting = z.enum(KAFKA_START_FROM, { error: 'earliest or latest' }).default('earliest');

let processDefault: KafkaStartFrom = 'earliest';

/**
 * Sets where this process's Kafka consumers start when their transport does not say (a role is one
 * process: the service host calls this once at boot with the parsed `AOC_KAFKA_START_FROM`).
 */
export function setKafkaStartFromDefault(value: KafkaStartFrom): void {
  processDefault = KafkaStartFromSetting.parse(value);
}

export function kafkaStartFromDefault(): KafkaStartFrom {
  return processDefault;
}
