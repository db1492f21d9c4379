/**
 * Bus benchmark: what the bus (validation, inbox/outbox in Postgres, relay) costs per hop and in
 * throughput, compared with the raw transport underneath it ("floor").
 *
 *   npm run bench:bus                        # full run
 *   BENCH_QUICK=1 npm run bench:bus          # ~10x smaller N and M (CI smoke)
 *   BENCH_SKIP_KAFKA=1 npm run bench:bus     # in-process part only
 *
 * Parts:
 *   in-process  floor: InMemoryBroker.append -> consumer-group handler (private topic, 6 partitions)
 *               bus:   Bus on InMemoryTransport + PostgresBusStore on embedded PGlite (pool size 1)
 *   kafka       floor: kafkajs producer.send -> consumer.eachMessage (private topic, 6 partitions)
 *               bus:   Bus on KafkaTransport + PostgresBusStore on DATABASE_URL (private schema)
 *
 * Metrics: per-hop latency (sequential: publish one, wait until its handler ran, repeat) p50/p99,
 * and throughput (M messages published in batches/transactions of 50, until all are consumed).
 *
 * Env knobs: BENCH_QUICK, BENCH_SKIP_KAFKA, BENCH_N, BENCH_WARMUP, BENCH_M, BENCH_KAFKA_N,
 * BENCH_KAFKA_WARMUP, BENCH_KAFKA_M, BENCH_BATCH, BENCH_STORE_WARMUP (store cycles run before the bus
 * is measured; PGlite is WebAssembly and needs them), BENCH_PHASE_TIMEOUT_MS (default 120000),
 * DATABASE_URL, KAFKA_BROKERS / AOC_KAFKA_BROKERS, AOC_KAFKA_ADMIN_PASSWORD.
 *
 * Exit code: 0 when every part ran or was skipped because its broker/database is unreachable;
 * 1 when a phase stalled or failed.
 */
import { RUN_TAG, SKIP_KAFKA, progress } from './bus/config';
import { errorText } from './bus/phase';
import type { Result } from './bus/measure';
import { inProcessBus, inProcessFloor } from './bus/in-process';
import { PartialFailure, kafkaPart } from './bus/kafka';
import { report } from './bus/report';

async function main(): Promise<number> {
  const results: Result[] = [];
  const notes: string[] = [];
  const failures: string[] = [];

  progress(`run ${RUN_TAG}: in-process part`);
  try {
    results.push(await inProcessFloor());
  } catch (error) {
    failures.push(`in-process floor: ${errorText(error)}`);
  }
  try {
    results.push(await inProcessBus());
  } catch (error) {
    failures.push(`in-process bus: ${errorText(error)}`);
  }

  if (SKIP_KAFKA) {
    notes.push('kafka: SKIPPED (floor and bus): BENCH_SKIP_KAFKA=1');
  } else {
    progress('kafka part');
    try {
      const outcome = await kafkaPart();
      results.push(...outcome.results);
      notes.push(...outcome.notes);
    } catch (error) {
      if (error instanceof PartialFailure) {
        results.push(...error.results);
        notes.push(...error.notes);
        failures.push(`kafka: ${errorText(error.reason)}`);
      } else {
        failures.push(`kafka: ${errorText(error)}`);
      }
    }
  }

  report(results, notes, failures);
  return failures.length > 0 ? 1 : 0;
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`bench failed: ${errorText(error)}\n`);
    return 1;
  })
  .then((code) => {
    process.exitCode = code;
    // Everything is disconnected above; if some library still holds a handle, do not hang.
    setTimeout(() => {
      progress('warning: handles still open 10 s after the end; forcing exit');
      process.exit(code);
    }, 10_000).unref();
  });
