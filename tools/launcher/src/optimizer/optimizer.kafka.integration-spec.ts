import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OptimizerCandidateEnqueuedV2, Topics } from '@aoc/contracts';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import type { Platform } from '../embedded-platform';
import { useDemoDeployment } from './demo-deployment';

const brokers = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:19092').split(',');
const admin = { username: 'aoc-admin', password: process.env['AOC_KAFKA_ADMIN_PASSWORD'] ?? 'admin-local-secret' };

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Keeps what is a candidate envelope. The topic is shared with other suites (the ACL suite writes
 * plain-text probes to every topic), and a throwing handler would stall this reader on that message.
 */
function readCandidate(text: string, into: OptimizerCandidateEnqueuedV2[]): void {
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    return;
  }
  const parsed = OptimizerCandidateEnqueuedV2.safeParse((envelope as { payload?: unknown } | null)?.payload);
  if (parsed.success) into.push(parsed.data);
}

/** The chain's modules, loaded after the demo deployment is set: they read the versioned data at load. */
async function loadChain() {
  return import('./demo-chain');
}

/**
 * The optimizer on real parts: every role on real Kafka (each with its own principal and ACLs)
 * and real Postgres. Judged demo tickets reach the optimizer over the broker, it selects, baselines
 * and iterates, and the accepted candidate arrives on `optimizer.candidate-enqueued` through the
 * optimizer's own principal. It runs on the demo deployment's data, as `npm run optimize:demo`
 * does (docs/optimizer.md): on the bundled data these tickets are answered right.
 */
describe('optimizer on Kafka and Postgres', () => {
  let chain: Awaited<ReturnType<typeof loadChain>>;
  let data: string;
  let platform: Platform;
  let consumer: Consumer;
  let dir: string;
  const seen: OptimizerCandidateEnqueuedV2[] = [];
  // Keys of their own: the shared test database holds other runs of the demo tickets.
  const base = (Date.now() % 100_000) * 10;

  beforeAll(async () => {
    const databaseUrl = process.env['DATABASE_URL'];
    if (!databaseUrl) throw new Error('DATABASE_URL is required');
    data = useDemoDeployment();
    chain = await loadChain();
    const { startPlatform, loadRecordings, OPTIMIZER_DEMO_RECORDINGS } = chain;
    platform = await startPlatform({
      databaseUrl,
      transport: { kind: 'kafka', brokers },
      kafkaPasswordOf: (role) => process.env[`AOC_KAFKA_PASSWORD_${role.toUpperCase().replace(/-/g, '_')}`],
      executor: { mode: 'replay', recordings: [...loadRecordings(), ...loadRecordings(OPTIMIZER_DEMO_RECORDINGS)], prometheusTargets: [] },
      logLevel: 'error',
    });
    // Focuses and signals of earlier runs on this shared database would compete with this one.
    await platform.dataSource.query(`TRUNCATE "optimizer"."checkpoints", "optimizer"."focuses", "optimizer"."focus_rejections", "optimizer"."signal_refs", "optimizer"."leases"`);
    const kafka = new Kafka({ clientId: 'aoc-optimizer-test', brokers, sasl: { mechanism: 'plain', ...admin }, logLevel: logLevel.NOTHING });
    consumer = kafka.consumer({ groupId: `aoc.test-reader.${randomUUID()}` });
    await consumer.connect();
    await consumer.subscribe({ topic: Topics.optimizerCandidateEnqueued.name, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void readCandidate(message.value?.toString('utf8') ?? '', seen) });
    dir = mkdtempSync(join(tmpdir(), 'aoc-opt-kafka-'));
  }, 120000);

  afterAll(async () => {
    await consumer?.disconnect();
    await platform?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (data) rmSync(data, { recursive: true, force: true });
  });

  it('turns judged answers into an accepted candidate on the topic, through the optimizer principal', async () => {
    const { FocusController, FocusIteration, OPTIMIZER_DEMO_RECORDINGS, OPTIMIZER_DEMO_TICKETS, loadExample, runExample, localOptimizerPorts, optimizerTransact } = chain;
    const files = new Map<string, string>();
    for (const [i, f] of readdirSync(OPTIMIZER_DEMO_TICKETS).filter((x) => x.endsWith('.json')).sort().entries()) {
      const raw = JSON.parse(readFileSync(join(OPTIMIZER_DEMO_TICKETS, f), 'utf8')) as { ticket: { key: string } };
      raw.ticket.key = `OPTK-${base + i + 1}`;
      const file = join(dir, f);
      writeFileSync(file, JSON.stringify(raw));
      files.set(raw.ticket.key, file);
    }
    for (const file of files.values()) {
      const { summary } = await runExample(platform, loadExample(file), 90000);
      expect(summary.verdict).toBe('human_better');
    }
    const keys = [...files.keys()];
    await until('signals of the three tickets', () => platform.dataSource.query(`SELECT DISTINCT "ticket_key" FROM "optimizer"."signal_refs" WHERE "ticket_key" = ANY($1)`, [keys]) as Promise<unknown[]>, (rows) => rows.length === 3);
    const deps = { ...localOptimizerPorts({ ticketFiles: files, recordings: [OPTIMIZER_DEMO_RECORDINGS] }), transact: optimizerTransact(platform) };
    const controller = new FocusController(deps);
    const selected = await controller.select();
    expect(selected.candidate?.targets.map((t) => t.ticketKey).sort()).toEqual(keys);
    expect(await controller.baseline()).toMatchObject({ outcome: 'focus_created' });
    const result = await new FocusIteration(deps).iterate();
    expect(result.outcome).toBe('candidate_enqueued');
    // Two waits tell the failures apart: the optimizer's relay not sending, or the topic not delivering.
    await until('the relay of the candidate', () => platform.dataSource.query(`SELECT count(*)::int AS n FROM "optimizer"."bus_outbox" WHERE "published_at" IS NULL`) as Promise<{ n: number }[]>, (rows) => rows[0]?.n === 0);
    const candidate = await until('the candidate on Kafka', async () => seen.find((c) => c.focusId === result.focusId), (c) => c !== undefined);
    expect(candidate?.gate.rows.filter((r) => r.blocking).map((r) => r.transition)).toEqual(['fixed', 'fixed', 'fixed']);
    expect(candidate?.evidenceRefs).toHaveLength(3);
  }, 240000);
});
