/**
 * Pipeline benchmark: the orchestration cost per ticket of the whole diagnosis chain (intake ->
 * router -> evidence -> provider-executor in replay mode -> router reconcile -> run.published),
 * with the built-in engine and the bundled recorded evidence, compared with the bare bus carrying
 * the same number of messages ("floor", measured in the same run with bench/bus's code).
 *
 *   npm run bench:pipeline                       # full run
 *   npm run bench:pipeline -- --quick            # smaller sizes (same as BENCH_QUICK=1; CI smoke)
 *   BENCH_SKIP_KAFKA=1 npm run bench:pipeline    # in-process part only
 *
 * Parts (in this order, one at a time):
 *   in-process  all six roles in this process as `npm start` runs them: in-process broker, embedded
 *               PGlite; then bench/bus's in-process floors (raw InMemoryBroker, and the bus on PGlite)
 *   kafka       all six roles on the local broker, each as its own SASL principal, in the roles'
 *               own consumer groups, with a throw-away Postgres database (aoc_bench_pipeline_<run>,
 *               dropped at the end) on DATABASE_URL's server; then bench/bus's Kafka floors (raw
 *               kafkajs, and the bus on Postgres) on private topics. Skipped, with a note, when the
 *               broker or Postgres is unreachable or another platform is consuming in the role groups.
 *
 * All six roles run, as `npm start` runs them: the judge, reporter and optimizer work beside the
 * chain (on the same CPUs), and on Kafka every role group consumes what the run produced (the bench
 * waits for them before stopping), so no deployment sharing those groups inherits a backlog.
 *
 * Each part: warm-up tickets, then tickets one at a time (unloaded latency), then the throughput
 * run (N tickets, at most F in flight). A ticket is timed from the intake call until an observer
 * sees its run.published. The example tickets with recorded evidence are cycled, each copy under its
 * own ticket key. The chain messages of the throughput run's tickets are counted on the topics;
 * the floors push that many messages through the bare transport / the bus with a no-op handler,
 * one message per transaction or send (each handler of the chain commits its own), and their
 * per-hop latency times the chain's messages per ticket gives the latency floor of one ticket.
 *
 * Env knobs: BENCH_QUICK, BENCH_SKIP_KAFKA, BENCH_PIPELINE_N, BENCH_PIPELINE_IN_FLIGHT,
 * BENCH_PIPELINE_WARMUP, BENCH_PIPELINE_UNLOADED, the same with BENCH_PIPELINE_KAFKA_ for Kafka,
 * BENCH_PIPELINE_DRAIN_TIMEOUT_MS; for the floors those of bench/bus (BENCH_N, BENCH_KAFKA_N,
 * BENCH_BATCH (default 1 here), BENCH_STORE_WARMUP, ...); BENCH_PHASE_TIMEOUT_MS (default 120000),
 * DATABASE_URL, KAFKA_BROKERS, AOC_KAFKA_ADMIN_PASSWORD, AOC_KAFKA_PASSWORD_<ROLE>.
 *
 * Exit code: 0 when every part ran or was skipped for a missing service; 1 when a phase stalled or failed.
 */
// bench/bus reads its knobs when first loaded, so they are settled before anything is imported.
if (process.argv.includes('--quick')) process.env['BENCH_QUICK'] = '1';
process.env['BENCH_BATCH'] ??= '1';

void import('./pipeline/main')
  .then(({ main }) => main())
  .catch((error: unknown) => {
    process.stderr.write(`bench:pipeline failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  })
  .then((code) => {
    process.exitCode = code;
    // Everything is closed above; if some library still holds a handle, do not hang.
    setTimeout(() => {
      process.stderr.write('[bench] warning: handles still open 10 s after the end; forcing exit\n');
      process.exit(code);
    }, 10_000).unref();
  });
