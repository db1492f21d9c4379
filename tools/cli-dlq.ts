import {
  KafkaInspector,
  isDeadLetterTopic,
  parseDeadLetterId,
  replayMarkerOf,
  replayMessageOf,
  replayRefusal,
  shelveDeadLetters,
  summarizeDeadLetter,
  type DeadLetterSummary,
  type OutgoingMessage,
  type RawMessage,
  type StoredDeadLetter,
} from '@aoc/bus';
import { z } from 'zod';

// `aoc dlq list|replay`: the dead letters of a deployment's Kafka, read and replayed with the admin
// principal. A dead letter keeps the original value (it may hold ticket text) for replay; nothing
// here ever prints or logs it: only `summarizeDeadLetter` fields are shown.

const DURATION = /^(\d{1,6})([mhd])$/;
const TOPIC = /^[A-Za-z0-9._-]{1,249}$/;

const Connection = {
  brokers: z.array(z.string().min(1)).min(1),
  username: z.string().min(1),
  password: z.string().min(1, 'set AOC_KAFKA_ADMIN_PASSWORD (locally: . deploy/local/.kafka/credentials.env)'),
};

export const DlqArgs = z.discriminatedUnion('action', [
  z.object({ action: z.literal('list'), ...Connection, topic: z.string().regex(TOPIC, 'a topic name').optional(), since: z.date().optional(), json: z.boolean() }),
  z
    .object({
      action: z.literal('replay'),
      ...Connection,
      id: z.string().optional(),
      topic: z.string().regex(TOPIC, 'a topic name').optional(),
      since: z.date().optional(),
      dryRun: z.boolean(),
      json: z.boolean(),
    })
    .superRefine((a, ctx) => {
      if ((a.id === undefined) === (a.topic === undefined)) ctx.addIssue({ code: 'custom', path: ['id'], message: 'name one dead letter (<id>, see `aoc dlq list`) or one topic (--topic T)' });
      if (a.id !== undefined && !parseDeadLetterId(a.id)) ctx.addIssue({ code: 'custom', path: ['id'], message: 'a dead letter id, <topic>.dlq:<partition>:<offset> (see `aoc dlq list`)' });
      if (a.id !== undefined && a.since !== undefined) ctx.addIssue({ code: 'custom', path: ['since'], message: 'only with --topic' });
    }),
]);
export type DlqArgs = z.output<typeof DlqArgs>;

const FLAGS: Record<string, string> = { brokers: '--brokers (or KAFKA_BROKERS)', username: 'AOC_KAFKA_ADMIN_USERNAME', password: 'AOC_KAFKA_ADMIN_PASSWORD', topic: '--topic', since: '--since', id: '<id>' };

function value(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** `--since`: an ISO date or time, or a duration back from now (`30m`, `12h`, `7d`). */
export function sinceOf(text: string | undefined, now: Date): Date | undefined | 'invalid' {
  if (text === undefined) return undefined;
  const d = DURATION.exec(text);
  if (d) return new Date(now.getTime() - Number(d[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[d[2] as 'm' | 'h' | 'd']);
  if (!/^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) return 'invalid';
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? 'invalid' : at;
}

/** Parses `list [--topic T] [--since D] [--json]` and `replay <id> | --topic T [--since D] [--dry-run] [--json]`; the admin principal comes from the environment. */
export function parseDlqArgs(args: readonly string[], env: Record<string, string | undefined> = process.env, now: Date = new Date()): DlqArgs {
  const [action, ...rest] = args;
  const since = sinceOf(value(rest, '--since'), now);
  const positional = rest.filter((a, i) => !a.startsWith('--') && !['--topic', '--since', '--brokers'].includes(rest[i - 1] ?? ''));
  const parsed = DlqArgs.safeParse({
    action,
    brokers: (value(rest, '--brokers') ?? env['KAFKA_BROKERS'] ?? env['AOC_KAFKA_BROKERS'] ?? '127.0.0.1:19092').split(',').map((b) => b.trim()).filter(Boolean),
    username: env['AOC_KAFKA_ADMIN_USERNAME'] ?? 'aoc-admin',
    password: env['AOC_KAFKA_ADMIN_PASSWORD'] ?? '',
    topic: value(rest, '--topic'),
    since: since === 'invalid' ? 'invalid' : since,
    id: action === 'replay' ? positional[0] : undefined,
    dryRun: rest.includes('--dry-run'),
    json: rest.includes('--json'),
  });
  if (!parsed.success) {
    throw new Error(
      parsed.error.issues
        .map((i) => {
          const field = String(i.path[0]);
          if (field === 'since') return `--since: ${since === 'invalid' ? 'an ISO date or time, or a duration like 30m, 12h or 7d' : i.message}`;
          return `${FLAGS[field] ?? 'action (list or replay)'}: ${i.message}`;
        })
        .join('; '),
    );
  }
  return parsed.data;
}

/** What the command needs from Kafka (KafkaInspector in a deployment, a fake in unit tests). */
export interface DlqKafka {
  listTopics(): Promise<string[]>;
  readTopics(topics: readonly string[]): Promise<RawMessage[]>;
  send(topic: string, messages: readonly (OutgoingMessage & { partition?: number })[]): Promise<void>;
  disconnect(): Promise<void>;
}

export function dlqKafkaOf(args: Pick<DlqArgs, 'brokers' | 'username' | 'password'>): DlqKafka {
  return new KafkaInspector({ brokers: args.brokers, sasl: { username: args.username, password: args.password }, clientId: 'aoc-cli-dlq', readerGroupPrefix: 'aoc.cli-dlq' });
}

/** The DLQ topics a command reads: every one, or the one of `--topic` (given as the topic or as its DLQ). */
async function dlqTopics(kafka: DlqKafka, topic: string | undefined): Promise<string[]> {
  const all = (await kafka.listTopics()).filter(isDeadLetterTopic);
  if (topic === undefined) return all;
  const dlq = isDeadLetterTopic(topic) ? topic : `${topic}.dlq`;
  if (!all.includes(dlq)) throw new Error(`no dead-letter topic ${dlq} (topics with one: ${all.map((t) => t.replace(/\.dlq$/, '')).join(', ') || 'none'})`);
  return [dlq];
}

function line(s: DeadLetterSummary): string[] {
  const state = s.replayedAt ? `replayed ${s.replayedAt}` : s.notReplayable ? `not replayable: ${s.notReplayable}` : 'replayable';
  return [
    `${s.id}  ${s.deadLetteredAt}  ${s.topic}  partition ${s.partition} offset ${s.offset}  ${s.errorCode}  group ${s.consumerGroup}  run ${s.runId ?? '-'}  attempts ${s.attempts}  ${state}`,
    `    reason: ${s.reason}`,
  ];
}

export interface DlqResult {
  lines: string[];
  json: unknown;
  /** Non-zero when a named letter does not exist. */
  exitCode: number;
}

/** Runs one dlq command. Prints (returns) only summaries: never a key, value or header of a letter. */
export async function runDlqCommand(args: DlqArgs, kafka: DlqKafka, now: Date = new Date()): Promise<DlqResult> {
  const named = args.action === 'replay' && args.id ? parseDeadLetterId(args.id) : null;
  const topics = named ? await dlqTopics(kafka, named.dlqTopic) : await dlqTopics(kafka, args.topic);
  const shelf = shelveDeadLetters(topics.length > 0 ? await kafka.readTopics(topics) : []);
  const since = args.since;
  const letters = shelf.letters.filter((l) => !since || Date.parse(l.letter.deadLetteredAt) >= since.getTime());

  if (args.action === 'list') {
    const summaries = letters.map(summarizeDeadLetter);
    const replayed = summaries.filter((s) => s.replayedAt).length;
    const lines = [
      ...summaries.flatMap(line),
      `${summaries.length} dead letter${summaries.length === 1 ? '' : 's'} on ${topics.length} DLQ topic${topics.length === 1 ? '' : 's'}${since ? ` since ${since.toISOString()}` : ''} (${replayed} replayed)`,
      ...(shelf.unreadable.length ? [`${shelf.unreadable.length} unreadable record(s), not dead letters: ${shelf.unreadable.slice(0, 10).join(', ')}`] : []),
    ];
    return { lines, json: { deadLetters: summaries, unreadable: shelf.unreadable }, exitCode: 0 };
  }

  const chosen: StoredDeadLetter[] = named ? letters.filter((l) => l.id === args.id) : letters;
  if (named && chosen.length === 0) return { lines: [`no dead letter ${args.id}`], json: { replayed: [], skipped: [], missing: [args.id] }, exitCode: 1 };
  const replayed: DeadLetterSummary[] = [];
  const skipped: { id: string; why: string }[] = [];
  const lines: string[] = [];
  for (const l of chosen) {
    const refusal = replayRefusal(l);
    if (refusal) {
      skipped.push({ id: l.id, why: refusal });
      lines.push(`skipped ${l.id}: ${refusal}`);
      continue;
    }
    const { topic, message } = replayMessageOf(l);
    if (!args.dryRun) {
      // Original first, mark second: a crash in between leaves a letter that is replayed again,
      // which its group ignores (same letter, same inbox id); the reverse could lose it.
      await kafka.send(topic, [message]);
      const marker = replayMarkerOf(l, now);
      await kafka.send(marker.topic, [{ ...marker.message, partition: marker.partition }]);
    }
    replayed.push(summarizeDeadLetter(l));
    lines.push(`${args.dryRun ? 'would replay' : 'replayed'} ${l.id} to ${topic} (message ${l.letter.messageId}, handled again by ${l.letter.consumerGroup} only)`);
  }
  lines.push(`${replayed.length} ${args.dryRun ? 'to replay' : 'replayed'}, ${skipped.length} skipped${args.dryRun ? ' (dry run: nothing sent)' : ''}`);
  return { lines, json: { dryRun: args.dryRun, replayed, skipped }, exitCode: 0 };
}
