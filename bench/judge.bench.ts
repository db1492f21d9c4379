/**
 * Judge benchmark: how well the configured Judge (built-in rubric judge by default,
 * AOC_MODEL_ENGINE_JUDGE=openai for an OpenAI-compatible model) compares a published AI answer
 * with the later human Support answer, on labelled timelines of our own
 * (bench/judge/cases/*.json) that follow evaluation-system.md section 3.
 *
 *   npm run bench:judge                       # every case
 *   BENCH_QUICK=1 npm run bench:judge         # one case per rule (CI)
 *   npm run bench:judge -- --json out.json    # also write every case's result as JSON
 *
 * Env knobs: BENCH_QUICK, BENCH_JUDGE_CONCURRENCY (4), BENCH_JUDGE_ONLY (regex on case ids),
 * BENCH_JUDGE_CASES_DIR. Labelling rules and metrics: bench/judge/README.md.
 *
 * Exit code: 0 whatever the scores (goals are reported as PASS/MISS, never enforced here);
 * 1 only on a harness error (a bad case file, a bad judge configuration, ...).
 */
if (process.argv.includes('--quick')) process.env['BENCH_QUICK'] = '1';

void import('./judge/main')
  .then(({ main }) => main())
  .catch((error: unknown) => {
    process.stderr.write(`bench:judge failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  })
  .then((code) => {
    process.exitCode = code;
    setTimeout(() => {
      process.stderr.write('[bench:judge] warning: handles still open 10 s after the end; forcing exit\n');
      process.exit(code);
    }, 10_000).unref();
  });
