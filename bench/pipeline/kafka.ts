// Pipeline benchmark, Kafka part: the six roles on the local broker (each with its own SASL
// principal) and a throw-away Postgres database, then bench/bus's Kafka floors sized to the same
// number of messages.
import { AssignerProtocol, Kafka, logLevel, type Admin, type Consumer } from 'kafkajs';
import { Client } from 'pg';
import { consumerGroupPrefix } from '@aoc/contracts';
import { ALL_SERVICES, startPlatform, type Platform } from '@aoc/launcher';
import { ADMIN_SASL, DATABASE_URL, KAFKA, KAFKA_BROKERS, RUN_TAG, progress } from '../bus/config';
import { hostPort, kafkaPart, redactUrl, tcpProbe } from '../bus/kafka';
import { Cleanup, errorText, inPhase, sleep, withTimeout, type Phase } from '../bus/phase';
import { DRAIN_TIMEOUT_MS, KAFKA_PIPELINE, SETTLE_QUIET_MS } from './config';
import { drivePipeline } from './drive';
import { startOrRelease } from './in-process';
import { ChainObserver, OBSERVED_TOPICS } from './observer';
import { measureFloors, type Part } from './part';
import type { TicketCycle } from './tickets';

/** Under the 20 s bound bench/bus's Cleanup puts on each step. */
const CLEANUP_DRAIN_MS = 15_000;
const PLATFORM_STOP_MS = 90_000;
const ROLE_GROUPS = ALL_SERVICES.map((d) => consumerGroupPrefix(d.role));

interface RoleGroup {
  groupId: string;
  members: number;
  /** what its members subscribed to (a role's grant may list topics it does not read) */
  topics: string[];
}

async function roleGroups(admin: Admin): Promise<RoleGroup[]> {
  const { groups } = await admin.describeGroups(ROLE_GROUPS);
  return groups.map((g) => ({
    groupId: g.groupId,
    members: g.members.length,
    topics: [...new Set(g.members.flatMap((m) => AssignerProtocol.MemberMetadata.decode(m.memberMetadata)?.topics ?? []))],
  }));
}

type EndOffsets = Map<string, { partition: number; high: string; low: string }[]>;

/** Messages up to `ends` the groups have not committed yet (a partition never committed counts from its start). */
async function lagOf(admin: Admin, groups: RoleGroup[], ends: EndOffsets): Promise<number> {
  let lag = 0;
  for (const group of groups) {
    if (group.topics.length === 0) continue;
    for (const { topic, partitions } of await admin.fetchOffsets({ groupId: group.groupId, topics: group.topics })) {
      if (!ends.has(topic)) ends.set(topic, await admin.fetchTopicOffsets(topic));
      for (const end of ends.get(topic) ?? []) {
        const committed = Number(partitions.find((p) => p.partition === end.partition)?.offset ?? -1);
        lag += Math.max(0, Number(end.high) - (committed >= 0 ? committed : Number(end.low)));
      }
    }
  }
  return lag;
}

/**
 * Waits until every running role has consumed what was on its topics when this was called: the
 * roles' consumer groups are shared with every deployment on this broker, so none may be left
 * with a backlog of this run.
 */
async function drain(admin: Admin, notes: string[], timeoutMs: number): Promise<void> {
  const groups = await roleGroups(admin);
  const shared = groups.filter((g) => g.members > 1);
  if (shared.length > 0) notes.push(`kafka pipeline: ${shared.map((g) => `${g.groupId} had ${g.members} members`).join(', ')} at the end: another consumer shared the role groups during the run`);
  const ends: EndOffsets = new Map();
  let lag = await lagOf(admin, groups, ends);
  if (lag === 0) return;
  progress(`kafka pipeline: waiting for every role's consumer group to catch up (${lag} messages, at most ${timeoutMs / 1000} s)`);
  const deadline = Date.now() + timeoutMs;
  while (lag > 0 && Date.now() < deadline) {
    await sleep(250);
    lag = await lagOf(admin, groups, ends);
  }
  if (lag > 0) notes.push(`kafka pipeline: ${lag} message(s) still unconsumed by the role groups after ${timeoutMs / 1000} s; the next consumer of those groups gets them`);
}

/**
 * The observer reads the chain topics as aoc-admin in a group of its own, from their end: it waits
 * for its first completed fetch, which comes after its start offsets were resolved, so no message
 * of the first ticket can slip past it. Short fetch waits keep that first fetch (and stopping) quick.
 */
async function startObserver(kafka: Kafka, groupId: string, observer: ChainObserver, phase: Phase): Promise<Consumer> {
  const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: 100 });
  const fetched = new Promise<void>((resolve) => consumer.on(consumer.events.FETCH, () => resolve()));
  await phase.wait(consumer.connect(), 'observer connect');
  await phase.wait(consumer.subscribe({ topics: [...OBSERVED_TOPICS], fromBeginning: false }), 'observer subscribe');
  await phase.wait(consumer.run({ eachMessage: async ({ topic, message }) => observer.arrive(topic, message.value) }), 'observer run');
  await phase.wait(fetched, "observer's first fetch");
  return consumer;
}

/**
 * Stopping takes a while on Kafka (each role's consumer leaves its group after its current fetch),
 * longer than bench/bus's Cleanup allows a step; a stop that still hangs is reported, not awaited.
 */
async function stopPlatform(platform: Platform): Promise<void> {
  progress('kafka pipeline: stopping the platform (each role leaves its consumer groups)');
  await withTimeout(platform.stop(), PLATFORM_STOP_MS, 'stop kafka platform').catch((error: unknown) => progress(`warning: ${errorText(error)}`));
}

function databaseUrlFor(name: string): string {
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function kafkaPipelinePart(cycle: TicketCycle): Promise<Part> {
  const part: Part = { transport: 'kafka', notes: [], failures: [] };
  const cleanup = new Cleanup();
  /** Run before the platform stops; the platform stops before `cleanup` drops its database. */
  const whileRunning = new Cleanup();
  let platform: Platform | undefined;
  try {
    const { host, port } = hostPort(KAFKA_BROKERS[0]);
    const down = await tcpProbe(host, port).then(
      () => null,
      (error: unknown) => errorText(error),
    );
    if (down) {
      part.notes.push(`kafka: SKIPPED (pipeline and floors): broker ${KAFKA_BROKERS.join(',')} unreachable: ${down}`);
      return part;
    }
    const kafka = new Kafka({ clientId: `aoc-bench-pipeline-${RUN_TAG}`, brokers: KAFKA_BROKERS, sasl: { mechanism: 'plain', ...ADMIN_SASL }, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    cleanup.add('disconnect kafka admin', () => admin.disconnect());
    await withTimeout(admin.connect(), 20_000, `kafka admin connect as ${ADMIN_SASL.username}`);

    // The roles join the same consumer groups as every other deployment on this broker: never
    // split partitions with a platform someone else is running.
    const busy = (await roleGroups(admin)).filter((g) => g.members > 0);
    if (busy.length > 0) {
      part.notes.push(`kafka: SKIPPED (pipeline and floors): ${busy.map((g) => `${g.groupId} has ${g.members} member(s)`).join(', ')}; another platform is consuming the role topics`);
      return part;
    }

    const database = `aoc_bench_pipeline_${RUN_TAG}`;
    const pg = new Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 5000 });
    try {
      await pg.connect();
    } catch (error) {
      part.notes.push(`kafka: SKIPPED (pipeline and floors): Postgres at ${redactUrl(DATABASE_URL)} unreachable: ${errorText(error)}`);
      return part;
    }
    cleanup.add('close postgres connection', () => pg.end());
    progress(`kafka pipeline: creating database ${database}`);
    await pg.query(`CREATE DATABASE "${database}"`);
    cleanup.add(`drop database ${database}`, () => pg.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));

    progress('kafka pipeline: starting all six roles (each as its own principal), built-in engine, replayed evidence');
    platform = await startOrRelease(
      'start kafka platform',
      startPlatform({
        databaseUrl: databaseUrlFor(database),
        transport: { kind: 'kafka', brokers: KAFKA_BROKERS },
        kafkaPasswordOf: (role) => process.env[`AOC_KAFKA_PASSWORD_${role.toUpperCase().replace(/-/g, '_')}`],
        logLevel: 'error',
      }),
    );
    // Also after a failure: leave no backlog of this run in groups other deployments share.
    whileRunning.add('drain role groups', () => drain(admin, part.notes, CLEANUP_DRAIN_MS));

    const observer = new ChainObserver();
    const groupId = `aoc.bench-pipeline.${RUN_TAG}`;
    whileRunning.add('delete observer group', () => admin.deleteGroups([groupId]));
    const consumer = await inPhase('kafka observer start', (phase) => startObserver(kafka, groupId, observer, phase));
    whileRunning.add('disconnect observer', () => consumer.disconnect());

    part.pipeline = await drivePipeline({
      transport: 'kafka',
      platform,
      observer,
      cycle,
      sizes: KAFKA_PIPELINE,
      settleQuietMs: SETTLE_QUIET_MS.kafka,
      beforeTally: () => drain(admin, part.notes, DRAIN_TIMEOUT_MS),
    });
  } catch (error) {
    part.failures.push(`kafka pipeline: ${errorText(error)}`);
  } finally {
    await whileRunning.runAll();
    if (platform) await stopPlatform(platform);
    await cleanup.runAll();
  }
  await measureFloors(part, KAFKA, [kafkaPart]);
  return part;
}
