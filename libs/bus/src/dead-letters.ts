import { DeadLetterV1, HEADER_SCHEMA } from '@aoc/contracts';
import { z } from 'zod';
import type { OutgoingMessage, RawMessage } from './transport/transport';

/*
 * Dead letters as an operator reads and replays them (`aoc dlq`). A dead letter is one
 * `DeadLetterV1` record on `<topic>.dlq`, written by the bus through the consumer's outbox. It
 * embeds the original value (the first 64 KiB), which may hold ticket text: it is kept for replay
 * and never shown; what may be shown is `summarizeDeadLetter`.
 *
 * Replay re-publishes the original value to the original topic with two headers naming the letter
 * and the consumer group that dead-lettered it. Consumers de-duplicate by message id, so every
 * group that processed the original ignores the copy; the group named, whose inbox holds the
 * message as dead-lettered, handles it once per letter (see `Bus.inboxIdOf`). A replayed letter is
 * marked by a replay record on its own DLQ topic (schema header `aoc.dead-letter-replay.v1`), so
 * it is not replayed twice.
 */

/** Header of a re-published dead letter: the letter's id (`<dlq topic>:<partition>:<offset>`). */
export const DLQ_REPLAY_OF_HEADER = 'aoc-dlq-replay-of';
/** Header of a re-published dead letter: the consumer group that dead-lettered it (the one that handles it again). */
export const DLQ_REPLAY_GROUP_HEADER = 'aoc-dlq-replay-group';
/** `aoc-schema` of a dead letter, as the bus writes it. */
export const DEAD_LETTER_SCHEMA = 'aoc.dead-letter.v1';
/** `aoc-schema` of the record that marks a dead letter replayed (on the same DLQ topic). */
export const DEAD_LETTER_REPLAY_SCHEMA = 'aoc.dead-letter-replay.v1';

const DLQ_SUFFIX = '.dlq';
const ID = /^(.+\.dlq):(\d{1,9}):(\d{1,19})$/;

export function isDeadLetterTopic(topic: string): boolean {
  return topic.endsWith(DLQ_SUFFIX) && topic.length > DLQ_SUFFIX.length;
}

/** A dead letter's id: where it is stored, `<dlq topic>:<partition>:<offset>`. */
export function deadLetterId(dlqTopic: string, partition: number, offset: string): string {
  return `${dlqTopic}:${partition}:${offset}`;
}

export function parseDeadLetterId(id: string): { dlqTopic: string; partition: number; offset: string } | null {
  const m = ID.exec(id);
  return m ? { dlqTopic: m[1], partition: Number(m[2]), offset: m[3] } : null;
}

/** The inbox id under which the group that dead-lettered a message handles its replay: once per letter. */
export function replayInboxId(messageId: string, letterId: string): string {
  return `${messageId}|replay:${letterId}`;
}

/** The record that marks a dead letter replayed. */
export const DeadLetterReplayV1 = z
  .object({
    replayOf: z.string().regex(ID),
    replayedAt: z.iso.datetime(),
    originalTopic: z.string(),
    messageId: z.string(),
    consumerGroup: z.string(),
  })
  .strict();
export type DeadLetterReplayV1 = z.infer<typeof DeadLetterReplayV1>;

export interface StoredDeadLetter {
  id: string;
  dlqTopic: string;
  partition: number;
  offset: string;
  letter: DeadLetterV1;
  /** The first replay record naming this letter, if any. */
  replay: DeadLetterReplayV1 | null;
}

export interface DeadLetterShelf {
  letters: StoredDeadLetter[];
  /** Records on a DLQ topic that are neither a dead letter nor a replay record (by id; never their content). */
  unreadable: string[];
}

function parseJson(value: Buffer): unknown {
  try {
    return JSON.parse(value.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Sorts the records of DLQ topics into dead letters (each with its replay record, if any) and unreadable records. */
export function shelveDeadLetters(messages: readonly RawMessage[]): DeadLetterShelf {
  const replays = new Map<string, DeadLetterReplayV1>();
  const letters: StoredDeadLetter[] = [];
  const unreadable: string[] = [];
  for (const m of messages) {
    const id = deadLetterId(m.topic, m.partition, m.offset);
    if (m.headers[HEADER_SCHEMA] === DEAD_LETTER_REPLAY_SCHEMA) {
      const marker = DeadLetterReplayV1.safeParse(parseJson(m.value));
      if (marker.success) {
        if (!replays.has(marker.data.replayOf)) replays.set(marker.data.replayOf, marker.data);
      } else unreadable.push(id);
      continue;
    }
    const letter = DeadLetterV1.safeParse(parseJson(m.value));
    if (letter.success) letters.push({ id, dlqTopic: m.topic, partition: m.partition, offset: m.offset, letter: letter.data, replay: null });
    else unreadable.push(id);
  }
  for (const l of letters) l.replay = replays.get(l.id) ?? null;
  letters.sort((a, b) => a.letter.deadLetteredAt.localeCompare(b.letter.deadLetteredAt) || a.id.localeCompare(b.id));
  return { letters, unreadable };
}

const MAX_REASON = 300;
const LONG_QUOTE = /"[^"\n]{33,}"|'[^'\n]{33,}'|«[^»\n]{33,}»/g;

/**
 * A reason as it may be shown. Reasons name fields and codes, but a handler's error message can
 * quote its input: quoted passages longer than 32 characters are elided (their length kept), a
 * JSON parser's quote of the value is dropped, and the whole is cut to 300 characters.
 */
export function redactReason(reason: string): string {
  // Letters written before the bus stopped quoting the parser (`Unexpected token 'T', "The custom"... is not valid JSON`).
  const unquoted = reason.replace(/ '.', ".*"(\.\.\.)? is not valid JSON/s, ' (input not shown)');
  const elided = unquoted.replace(LONG_QUOTE, (q) => `${q[0]}…(${q.length - 2} chars)${q[q.length - 1]}`).replace(/[\r\n\t]+/g, ' ');
  return elided.length > MAX_REASON ? `${elided.slice(0, MAX_REASON - 1)}…` : elided;
}

/** What may be shown of a dead letter: where it is, why, when, and whether it can be (or was) replayed. Never its key, value or headers. */
export interface DeadLetterSummary {
  id: string;
  topic: string;
  dlqTopic: string;
  partition: number;
  offset: string;
  errorCode: string;
  reason: string;
  deadLetteredAt: string;
  consumerGroup: string;
  messageId: string | null;
  runId: string | null;
  attempts: number;
  replayedAt: string | null;
  /** Why it cannot be replayed, when it cannot. */
  notReplayable: string | null;
}

export function summarizeDeadLetter(s: StoredDeadLetter): DeadLetterSummary {
  return {
    id: s.id,
    topic: s.letter.originalTopic,
    dlqTopic: s.dlqTopic,
    partition: s.partition,
    offset: s.offset,
    errorCode: s.letter.errorCode,
    reason: redactReason(s.letter.reason),
    deadLetteredAt: s.letter.deadLetteredAt,
    consumerGroup: s.letter.consumerGroup,
    messageId: s.letter.messageId,
    runId: s.letter.runId,
    attempts: s.letter.attempts,
    replayedAt: s.replay?.replayedAt ?? null,
    notReplayable: unreplayable(s),
  };
}

/** Why the letter's original can never be re-published as it was kept (independent of an earlier replay). */
function unreplayable(s: StoredDeadLetter): string | null {
  if (s.letter.originalValueTruncated) return 'only the first 64 KiB of the value were kept';
  if (s.letter.messageId === null) return 'the value is not a bus envelope (no message id): the same bytes would be dead-lettered again';
  return null;
}

/** Why the letter is not replayed now, or null when it may be. */
export function replayRefusal(s: StoredDeadLetter): string | null {
  if (s.replay) return `already replayed at ${s.replay.replayedAt}`;
  return unreplayable(s);
}

/** The original message, re-published to the original topic, naming the letter and the group that handles it again. */
export function replayMessageOf(s: StoredDeadLetter): { topic: string; message: OutgoingMessage } {
  const refusal = unreplayable(s);
  if (refusal) throw new Error(`dead letter ${s.id} cannot be replayed: ${refusal}`);
  return {
    topic: s.letter.originalTopic,
    message: {
      key: s.letter.originalKey,
      value: s.letter.originalValue,
      headers: { ...s.letter.originalHeaders, [DLQ_REPLAY_OF_HEADER]: s.id, [DLQ_REPLAY_GROUP_HEADER]: s.letter.consumerGroup },
    },
  };
}

/** The record that marks the letter replayed, for its own DLQ topic and partition. */
export function replayMarkerOf(s: StoredDeadLetter, now: Date): { topic: string; partition: number; message: OutgoingMessage } {
  const marker: DeadLetterReplayV1 = { replayOf: s.id, replayedAt: now.toISOString(), originalTopic: s.letter.originalTopic, messageId: s.letter.messageId ?? '', consumerGroup: s.letter.consumerGroup };
  return { topic: s.dlqTopic, partition: s.partition, message: { key: s.id, value: JSON.stringify(DeadLetterReplayV1.parse(marker)), headers: { [HEADER_SCHEMA]: DEAD_LETTER_REPLAY_SCHEMA } } };
}

/**
 * A JSON parser's error without the input it quotes (V8 says `Unexpected token 'T', "The custom"...
 * is not valid JSON`): only its kind and position survive.
 */
export function jsonErrorWithoutInput(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/unexpected end of JSON input/i.test(message)) return 'unexpected end of input';
  const position = /at position (\d+)/.exec(message);
  return position ? `syntax error at position ${position[1]}` : 'syntax error';
}
