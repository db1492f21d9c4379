/**
 * Diagnosis benchmark: how well the diagnosis engine names the leading mechanism on data we did
 * not write (suite A, DBSherlock TPC-C: real MySQL/OS telemetry with labelled causes) and on
 * reviewed managed-database scenarios (suite B, bench/diagnosis/test/cases/*.json: Postgres, MySQL,
 * TiDB, RDS/Aurora as their exporters name things), beside a reference ranker ("family of the
 * most anomalous metric") computed in the same run. Every ticket goes through the whole platform
 * in live mode against one real Prometheus (Debian package) holding both suites; suite L (the
 * incident lab's recorded cases, bench/lab/cases) replays into its own Prometheus and Loki API.
 *
 *   npm run bench:diagnosis                         # full run (176 + 39 tickets)
 *   BENCH_QUICK=1 npm run bench:diagnosis           # smoke run: 2 cases per cause, 10 suite-B cases
 *   npm run bench:diagnosis -- --json out.json      # also write every result as JSON
 *
 * Env knobs: BENCH_QUICK, BENCH_DIAGNOSIS_CONCURRENCY (4), BENCH_DIAGNOSIS_TIMEOUT_MS (180000),
 * BENCH_DIAGNOSIS_SUITES (A,B,L), BENCH_DIAGNOSIS_ONLY (regex on case ids), BENCH_DBSHERLOCK_DIR,
 * BENCH_LAB_FACTS=1 (suite L's JSON also holds each thread's facts per round, for reading a miss).
 * Rules (conversion, generator, scoring): bench/diagnosis/README.md.
 *
 * Exit code: 0 whatever the scores (targets are reported as PASS/MISS, never enforced here);
 * 1 only on a harness error (a bad case file, Prometheus or the platform not starting, ...).
 */
if (process.argv.includes('--quick')) process.env['BENCH_QUICK'] = '1';

void import('./diagnosis/main')
  .then(({ main }) => main())
  .catch((error: unknown) => {
    process.stderr.write(`bench:diagnosis failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  })
  .then((code) => {
    process.exitCode = code;
    setTimeout(() => {
      process.stderr.write('[bench:diagnosis] warning: handles still open 10 s after the end; forcing exit\n');
      process.exit(code);
    }, 10_000).unref();
  });
