import { DLQ_REPLAY_GROUP_HEADER, DLQ_REPLAY_OF_HEADER, type OutgoingMessage, type RawMessage } from '@aoc/bus';
import type { DeadLetterV1 } from '@aoc/contracts';
import { parseDlqArgs, runDlqCommand, sinceOf, type DlqKafka } from './cli-dlq';

const TICKET_TEXT = 'Customer says: the payments cluster falls over whenever finance runs the month-end report';
const NOW = new Date('2026-12-03T12:00:00Z');
const ENV = { KAFKA_BROKERS: '127.0.0.1:19092', AOC_KAFKA_ADMIN_PASSWORD: 'pw' };

/** Topics in memory: what the command reads and what it sends. */
class FakeKafka implements DlqKafka {
  readonly topics = new Map<string, RawMessage[]>();
  constructor(names: string[]) {
    for (const n of names) this.topics.set(n, []);
  }
  async listTopics() {
    return [...this.topics.keys()];
  }
  async readTopics(topics: readonly string[]) {
    return topics.flatMap((t) => this.topics.get(t) ?? []);
  }
  async send(topic: string, messages: readonly (OutgoingMessage & { partition?: number })[]) {
    const log = this.topics.get(topic);
    if (!log) throw new Error(`no topic ${topic}`);
    for (const m of messages) log.push({ topic, partition: m.partition ?? 0, offset: String(log.length), key: m.key, value: Buffer.from(m.value), headers: m.headers });
  }
  async disconnect() {}
  deadLetter(topic: string, letter: Partial<DeadLetterV1>) {
    const full: DeadLetterV1 = {
      originalTopic: topic,
      originalKey: 'SUP-7',
      originalValue: JSON.stringify({ messageId: 'm', payload: { ticket: { description: TICKET_TEXT } } }),
      originalValueTruncated: false,
      originalHeaders: { 'aoc-schema': topic },
      messageId: 'b3c1f3a2-0000-4000-8000-000000000001',
      consumerGroup: 'aoc.judge',
      errorCode: 'BUS.HANDLER_REJECTED',
      reason: `JUDGE.INPUT_INVALID: cannot read "${TICKET_TEXT}"`,
      attempts: 1,
      deadLetteredAt: '2026-12-03T10:00:00.000Z',
      runId: 'run-20261203-abc',
      ...letter,
    };
    const log = this.topics.get(`${topic}.dlq`) as RawMessage[];
    log.push({ topic: `${topic}.dlq`, partition: 0, offset: String(log.length), key: full.originalKey, value: Buffer.from(JSON.stringify(full)), headers: { 'aoc-schema': 'aoc.dead-letter.v1' } });
  }
}

const args = (...a: string[]) => parseDlqArgs(a, ENV, NOW);

describe('aoc dlq: arguments', () => {
  it('parses list and replay, the admin principal from the environment, and names a bad option', () => {
    expect(args('list')).toEqual({ action: 'list', brokers: ['127.0.0.1:19092'], username: 'aoc-admin', password: 'pw', topic: undefined, since: undefined, json: false });
    expect(args('list', '--topic', 'aoc.run.published.v1', '--since', '24h', '--json')).toMatchObject({ topic: 'aoc.run.published.v1', since: new Date('2026-12-02T12:00:00Z'), json: true });
    expect(args('replay', 'aoc.run.published.v1.dlq:0:3', '--dry-run')).toMatchObject({ action: 'replay', id: 'aoc.run.published.v1.dlq:0:3', dryRun: true });
    expect(args('replay', '--topic', 'aoc.run.published.v1', '--since', '2026-12-01')).toMatchObject({ action: 'replay', id: undefined, topic: 'aoc.run.published.v1', since: new Date('2026-12-01T00:00:00Z') });
    expect(() => args('replay')).toThrow(/<id>: name one dead letter .* or one topic/);
    expect(() => args('replay', 'x:1', '--dry-run')).toThrow(/<id>: a dead letter id/);
    expect(() => args('replay', 'aoc.a.v1.dlq:0:1', '--topic', 'aoc.a.v1')).toThrow(/name one dead letter/);
    expect(() => args('list', '--since', 'yesterday')).toThrow(/--since: an ISO date or time, or a duration/);
    expect(() => args('purge')).toThrow(/action \(list or replay\)/);
    expect(() => parseDlqArgs(['list'], { KAFKA_BROKERS: 'b:1' }, NOW)).toThrow(/AOC_KAFKA_ADMIN_PASSWORD: set AOC_KAFKA_ADMIN_PASSWORD/);
    expect(sinceOf('90m', NOW)?.toString()).toBe(new Date('2026-12-03T10:30:00Z').toString());
    expect(sinceOf('2026-12-03T11:00:00Z', NOW)).toEqual(new Date('2026-12-03T11:00:00Z'));
  });
});

describe('aoc dlq: list and replay', () => {
  const published = 'aoc.run.published.v1';
  const judged = 'aoc.evaluation.judged.v1';
  let kafka: FakeKafka;

  beforeEach(() => {
    kafka = new FakeKafka([published, `${published}.dlq`, judged, `${judged}.dlq`, 'aoc.unrelated.v1']);
    kafka.deadLetter(published, {});
    kafka.deadLetter(published, { errorCode: 'BUS.MALFORMED_JSON', messageId: null, reason: 'value is not valid JSON: syntax error', attempts: 0, deadLetteredAt: '2026-12-01T08:00:00.000Z', runId: null });
    kafka.deadLetter(judged, { consumerGroup: 'aoc.reporter', originalValueTruncated: true, deadLetteredAt: '2026-12-03T11:00:00.000Z' });
  });

  it('lists every letter with its topic, coordinates, code, reason and time, never the ticket text', async () => {
    const { lines, json, exitCode } = await runDlqCommand(args('list'), kafka, NOW);
    const text = lines.join('\n');
    expect(exitCode).toBe(0);
    expect(text).toContain(`${published}.dlq:0:1  2026-12-01T08:00:00.000Z  ${published}  partition 0 offset 1  BUS.MALFORMED_JSON  group aoc.judge  run -  attempts 0  not replayable: the value is not a bus envelope`);
    expect(text).toContain(`${published}.dlq:0:0  2026-12-03T10:00:00.000Z  ${published}  partition 0 offset 0  BUS.HANDLER_REJECTED  group aoc.judge  run run-20261203-abc  attempts 1  replayable`);
    expect(text).toContain('    reason: JUDGE.INPUT_INVALID: cannot read "…(89 chars)"');
    expect(text).toContain('not replayable: only the first 64 KiB of the value were kept');
    expect(text).toContain('3 dead letters on 2 DLQ topics (0 replayed)');
    for (const out of [text, JSON.stringify(json)]) {
      expect(out).not.toContain('payments cluster');
      expect(out).not.toContain('SUP-7');
    }
    const since = await runDlqCommand(args('list', '--topic', published, '--since', '2026-12-02'), kafka, NOW);
    expect(since.lines.filter((l) => l.startsWith('aoc.'))).toHaveLength(1);
    await expect(runDlqCommand(args('list', '--topic', 'aoc.unrelated.v1'), kafka, NOW)).rejects.toThrow(/no dead-letter topic aoc.unrelated.v1.dlq/);
  });

  it('replays a letter to its topic once, marks it, and skips it the second time', async () => {
    const id = `${published}.dlq:0:0`;
    const dry = await runDlqCommand(args('replay', id, '--dry-run'), kafka, NOW);
    expect(dry.lines).toEqual([`would replay ${id} to ${published} (message b3c1f3a2-0000-4000-8000-000000000001, handled again by aoc.judge only)`, '1 to replay, 0 skipped (dry run: nothing sent)']);
    expect(kafka.topics.get(published)).toHaveLength(0);

    const first = await runDlqCommand(args('replay', id), kafka, NOW);
    expect(first.lines[0]).toBe(`replayed ${id} to ${published} (message b3c1f3a2-0000-4000-8000-000000000001, handled again by aoc.judge only)`);
    const [sent] = kafka.topics.get(published) as RawMessage[];
    expect(JSON.parse(sent.value.toString())).toEqual({ messageId: 'm', payload: { ticket: { description: TICKET_TEXT } } });
    expect(sent.key).toBe('SUP-7');
    expect(sent.headers).toEqual({ 'aoc-schema': published, [DLQ_REPLAY_OF_HEADER]: id, [DLQ_REPLAY_GROUP_HEADER]: 'aoc.judge' });
    expect(first.lines.join('\n')).not.toContain('payments cluster');

    const second = await runDlqCommand(args('replay', id), kafka, NOW);
    expect(second.lines).toEqual([`skipped ${id}: already replayed at 2026-12-03T12:00:00.000Z`, '0 replayed, 1 skipped']);
    expect(kafka.topics.get(published)).toHaveLength(1);
    const listed = await runDlqCommand(args('list', '--topic', published), kafka, NOW);
    expect(listed.lines.join('\n')).toContain('replayed 2026-12-03T12:00:00.000Z');
    expect(listed.lines.join('\n')).toContain('(1 replayed)');

    const missing = await runDlqCommand(args('replay', `${published}.dlq:0:99`), kafka, NOW);
    expect(missing).toMatchObject({ lines: [`no dead letter ${published}.dlq:0:99`], exitCode: 1 });
  });

  it('replays a whole topic, skipping what cannot be replayed', async () => {
    const result = await runDlqCommand(args('replay', '--topic', `${published}.dlq`), kafka, NOW);
    expect(result.lines).toEqual([
      `skipped ${published}.dlq:0:1: the value is not a bus envelope (no message id): the same bytes would be dead-lettered again`,
      `replayed ${published}.dlq:0:0 to ${published} (message b3c1f3a2-0000-4000-8000-000000000001, handled again by aoc.judge only)`,
      '1 replayed, 1 skipped',
    ]);
    const again = await runDlqCommand(args('replay', '--topic', published), kafka, NOW);
    expect(again.lines.at(-1)).toBe('0 replayed, 2 skipped');
    const truncated = await runDlqCommand(args('replay', '--topic', judged), kafka, NOW);
    expect(truncated.lines[0]).toBe(`skipped ${judged}.dlq:0:0: only the first 64 KiB of the value were kept`);
  });
});
