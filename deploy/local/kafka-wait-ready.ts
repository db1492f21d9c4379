/**
 * Health check used by kafka-start.sh: waits until the admin principal can authenticate over
 * SASL/PLAIN and describe the cluster (broker registered, controller elected), and until the group
 * coordinator answers: on a fresh broker, __consumer_offsets is created by the first FindCoordinator
 * and consumers get NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS until it is loaded.
 *
 *   node -r ./tools/register.js deploy/local/kafka-wait-ready.ts [--timeout SECONDS] [--pid PID]
 *
 * Exits 0 when healthy; 1 on timeout, or as soon as --pid is no longer alive.
 * Env: AOC_KAFKA_BROKERS | AOC_KAFKA_PORT, AOC_KAFKA_ADMIN_PASSWORD.
 */
import { Kafka, logLevel } from 'kafkajs';
import { adminCredentials, brokerAddresses } from './kafka-matrix';

const WARMUP_GROUP = 'aoc.admin.kafka-wait-ready';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function probe(): Promise<string | null> {
  const creds = adminCredentials(undefined);
  const kafka = new Kafka({
    clientId: 'aoc-kafka-wait-ready',
    brokers: brokerAddresses(),
    sasl: { mechanism: 'plain', username: creds.username, password: creds.password },
    ssl: false,
    connectionTimeout: 1_000,
    authenticationTimeout: 2_000,
    requestTimeout: 3_000,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    if (cluster.brokers.length === 0 || cluster.controller === null) return 'no broker/controller in metadata yet';
    await admin.fetchOffsets({ groupId: WARMUP_GROUP, topics: [] });
    return null;
  } catch (err) {
    return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

async function main(argv: string[]): Promise<number> {
  let timeoutS = 90;
  let pid: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--timeout') timeoutS = Number(argv[++i]);
    else if (argv[i] === '--pid') pid = Number(argv[++i]);
    else if (argv[i] !== '--') {
      process.stderr.write(`kafka-wait-ready: unknown argument ${argv[i]}\n`);
      return 2;
    }
  }
  const deadline = Date.now() + timeoutS * 1000;
  let last = 'not tried';
  while (Date.now() < deadline) {
    if (pid !== undefined && !alive(pid)) {
      process.stderr.write(`kafka-wait-ready: broker process ${pid} exited\n`);
      return 1;
    }
    const problem = await probe();
    if (problem === null) return 0;
    last = problem;
    await sleep(500);
  }
  process.stderr.write(`kafka-wait-ready: not healthy after ${timeoutS}s (last error: ${last})\n`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`kafka-wait-ready: ${String(err)}\n`);
    process.exit(1);
  },
);
