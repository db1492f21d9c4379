import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Topics, dlqTopicOf } from '@aoc/contracts';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { Client } from 'pg';

/**
 * Kills the evidence service (the production build, plain node) with SIGKILL while it works through a stream of requests, restarts
 * it, and checks that every request produced exactly one effect (row) and one message, none was
 * lost and none was dead-lettered: the inbox + outbox hold across crashes at arbitrary points.
 */
const ROOT = join(__dirname, '..', '..', '..');
const brokers = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:19092').split(',');
const admin = { username: 'aoc-admin', password: process.env['AOC_KAFKA_ADMIN_PASSWORD'] ?? 'admin-local-secret' };
const N = 150;

/** The evidence role as it is deployed: compiled by the production build, started with plain node. */
function buildEvidence(): void {
  const built = spawnSync(process.execPath, ['-r', './tools/register.js', 'tools/build/build-services.ts', 'evidence'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  if (built.status !== 0) throw new Error(`the evidence build failed: ${built.stderr || built.stdout}`);
}

function startEvidence(): ChildProcess {
  return spawn(process.execPath, ['--enable-source-maps', 'dist/services/evidence/main.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      AOC_TRANSPORT: 'kafka',
      KAFKA_BROKERS: brokers.join(','),
      KAFKA_SASL_USERNAME: 'aoc-evidence',
      KAFKA_SASL_PASSWORD: process.env['AOC_KAFKA_PASSWORD_EVIDENCE'] ?? 'evidence-local-secret',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('crash recovery on Kafka and Postgres', () => {
  const tag = `crash${randomUUID().slice(0, 8)}`;
  const kafka = new Kafka({ clientId: 'aoc-crash-test', brokers, sasl: { mechanism: 'plain', ...admin }, logLevel: logLevel.NOTHING });
  const pg = new Client({ connectionString: process.env['DATABASE_URL'] });
  const outputs: { batchId: string; messageId: string }[] = [];
  const dead: string[] = [];
  const consumers: Consumer[] = [];
  let child: ChildProcess | null = null;

  beforeAll(async () => {
    buildEvidence();
    await pg.connect();
    for (const [topic, sink] of [
      [Topics.evidenceBatchPlanned.name, 'out'],
      [dlqTopicOf(Topics.evidenceRequested.name), 'dlq'],
    ] as const) {
      const consumer = kafka.consumer({ groupId: `aoc.test-reader.${randomUUID()}` });
      consumers.push(consumer);
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          const text = message.value?.toString('utf8') ?? '';
          if (!text.includes(tag)) return;
          if (sink === 'dlq') dead.push(text);
          else {
            const env = JSON.parse(text) as { messageId: string; payload: { batchId: string } };
            outputs.push({ batchId: env.payload.batchId, messageId: env.messageId });
          }
        },
      });
    }
  }, 60000);

  afterAll(async () => {
    child?.kill('SIGKILL');
    for (const c of consumers) await c.disconnect();
    await pg.end();
  }, 60000);

  it('loses and duplicates nothing when the consumer is killed mid-stream', async () => {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: Topics.evidenceRequested.name,
      messages: Array.from({ length: N }, (_, i) => {
        const runId = `${tag}-${i}`;
        const payload = {
          runId,
          scenarioId: 'cpu-saturation',
          requestId: `${runId}:cpu-saturation:0`,
          question: 'What were CPU utilisation per component and the statements consuming most CPU during the window?',
          stopCondition: 'CPU series per component are available, or the provider reports none.',
          // A provider without discovery: the Evidence Agent plans at once, with no executor running.
          provider: 'manus',
          target: 'vida',
          window: { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' },
          refinement: false,
        };
        return {
          key: runId,
          value: JSON.stringify({ messageId: randomUUID(), idempotencyKey: payload.requestId, schema: { topic: Topics.evidenceRequested.name, version: 1 }, runId, producedAt: new Date().toISOString(), producer: 'router', payload }),
        };
      }),
    });
    await producer.disconnect();

    const rows = async () => Number((await pg.query(`SELECT count(*)::int AS n FROM evidence.planned_batches WHERE run_id LIKE $1`, [`${tag}-%`]).catch(() => ({ rows: [{ n: 0 }] }))).rows[0].n);
    // Crash twice at whatever point the service has reached, then let a third instance finish.
    const atKill: number[] = [];
    for (const threshold of [3, 60]) {
      child = startEvidence();
      await waitFor(async () => ((await rows()) >= threshold ? true : undefined), 90000, `${threshold} processed requests`);
      child.kill('SIGKILL');
      await new Promise((r) => child?.once('exit', r));
      atKill.push(await rows());
    }
    // The kills really happened mid-stream.
    expect(atKill[0]).toBeLessThan(N);
    child = startEvidence();
    await waitFor(async () => ((await rows()) === N ? true : undefined), 120000, `all ${N} requests processed`);
    await waitFor(async () => (new Set(outputs.map((o) => o.batchId)).size === N ? true : undefined), 60000, `${N} planned batches on the topic`);
    await new Promise((r) => setTimeout(r, 2000));

    expect(await rows()).toBe(N);
    const messageIdsPerBatch = new Map<string, Set<string>>();
    for (const o of outputs) messageIdsPerBatch.set(o.batchId, (messageIdsPerBatch.get(o.batchId) ?? new Set()).add(o.messageId));
    // A relay crash between send and mark may resend a row, but always with the same message id.
    expect([...messageIdsPerBatch.values()].every((ids) => ids.size === 1)).toBe(true);
    expect(messageIdsPerBatch.size).toBe(N);
    expect(dead).toEqual([]);
  }, 360000);
});
