/**
 * Reports benchmark: how long the reporter takes to compute the daily and weekly reports over a
 * realistic volume, on the real Postgres.
 *
 *   npm run bench:reports                    # 100k runs
 *   BENCH_QUICK=1 npm run bench:reports      # 10k runs (CI smoke)
 *
 * What it does:
 *   1. builds a private copy of the reporter schema (`reporter_bench_<pid>`) with the reporter's
 *      own migrations, on DATABASE_URL (default postgres://postgres@127.0.0.1:5432/aoc_test);
 *   2. inserts N synthetic runs published over one Asia/Shanghai week, with executions (5 logical
 *      queries, 6 HTTP attempts, some 5xx episodes), evaluations, timeline comments, bound /ao
 *      feedback and the per-run projection, all with set-based SQL (generate_series, INSERT ...
 *      SELECT), then ANALYZE;
 *   3. times SqlReportsReader.daily (a mid-week day) and .weekly (the whole week): warm-up, then
 *      BENCH_ITERATIONS runs each; prints p50/min/max and the rows of the period the report reads
 *      per second at p50;
 *   4. drops the schema. A SKIPPED line (exit 0) when Postgres is unreachable.
 *
 * Env knobs: BENCH_QUICK, BENCH_RUNS (overrides N), BENCH_ITERATIONS (default 7, quick 5),
 * DATABASE_URL, BENCH_KEEP_SCHEMA=1 (keep the schema to EXPLAIN the report queries; drop it by hand).
 */
import { connect as netConnect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createServiceDataSource } from '@aoc/persistence';
import { createReporterSchemaCopy, dropReporterSchemaCopy, ReporterTables, SqlReportsReader } from '@aoc/service-reporter';
import type { DataSource } from 'typeorm';

const QUICK = process.env['BENCH_QUICK'] === '1';
const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/aoc_test';
const RUNS = intEnv('BENCH_RUNS', QUICK ? 10_000 : 100_000);
const ITERATIONS = Math.max(1, intEnv('BENCH_ITERATIONS', QUICK ? 5 : 7));
const SCHEMA = `reporter_bench_${process.pid}`;
/** The benchmark week (a Monday) and the day the daily report is timed on. */
const WEEK_START = '2026-11-16';
const DAY = '2026-11-18';
const WEEK_START_INSTANT = '2026-11-16T00:00:00+08:00';

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

function progress(message: string): void {
  process.stderr.write(`[bench:reports] ${message}\n`);
}

function reachable(url: string): Promise<boolean> {
  let host = '127.0.0.1';
  let port = 5432;
  try {
    const parsed = new URL(url);
    host = parsed.hostname || host;
    port = Number(parsed.port || 5432);
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const socket = netConnect({ host, port, timeout: 3000 }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** Set-based inserts; the runs take $1 = number of runs, $2 = start of the week (instant). */
function seedStatements(t: ReporterTables): { label: string; sql: string }[] {
  // A run's hash decides its variety deterministically (same data on every bench run).
  const hash = `abs(hashtext(r."run_id"))`;
  const counted = `r."trigger" IN ('initial', 'bot_assignment')`;
  return [
    {
      label: 'runs',
      sql: `INSERT INTO ${t.runs} ("run_id", "ticket_key", "trigger", "decision", "answer_fingerprint", "published_at", "customer_reply", "internal_handoff", "mode", "cutoff")
            SELECT 'bench-' || i, 'BENCH-' || (i % greatest($1::int / 2, 1)),
                   CASE WHEN i % 20 = 0 THEN 'continuation' WHEN i % 20 = 1 THEN 'replay' WHEN i % 20 < 5 THEN 'bot_assignment' ELSE 'initial' END,
                   (ARRAY['internal_only', 'human_required', 'clarification_needed'])[1 + i % 3],
                   encode(sha256(convert_to('answer-' || (i / 2), 'UTF8')), 'hex'),
                   $2::timestamptz + (i - 1) * (interval '7 days' / $1::int),
                   'Customer reply for run ' || i, 'Internal handoff for run ' || i,
                   CASE WHEN i % 20 = 1 THEN 'read' ELSE 'write' END, NULL
              FROM generate_series(1, $1::int) AS i`,
    },
    {
      label: 'executions',
      sql: `INSERT INTO ${t.executions} ("run_id", "evidence_status", "response_status", "failure_codes", "ticket_key", "recorded_at", "response_engine",
                                        "evidence_capability", "evidence_providers", "payload_digest")
            SELECT r."run_id",
                   CASE WHEN ${hash} % 10 < 2 THEN 'degraded' WHEN ${hash} % 10 = 2 THEN 'failed' ELSE 'complete' END,
                   CASE WHEN ${hash} % 50 = 0 THEN 'failed' ELSE 'succeeded' END,
                   CASE WHEN ${hash} % 10 < 3 THEN '["CLINIC.TIMEOUT"]'::jsonb ELSE '[]'::jsonb END,
                   r."ticket_key", r."published_at" + interval '30 seconds', 'bench', 'full',
                   CASE ${hash} % 7 WHEN 0 THEN ARRAY['none'] WHEN 1 THEN ARRAY['manus'] WHEN 2 THEN ARRAY['clinic', 'manus'] ELSE ARRAY['clinic'] END,
                   md5(r."run_id")
              FROM ${t.runs} r`,
    },
    {
      label: 'provider query events (5 per run)',
      sql: `INSERT INTO ${t.queryEvents} ("run_id", "scenario_id", "query_id", "ticket_key", "provider", "outcome", "supplemental", "at", "day", "counted")
            SELECT r."run_id", 's' || (q % 2), 'q' || q, r."ticket_key", CASE WHEN q % 3 = 0 THEN 'manus' ELSE 'clinic' END,
                   CASE WHEN (${hash} + q) % 17 = 0 THEN 'failed' WHEN (${hash} + q) % 5 = 0 THEN 'empty' ELSE 'complete' END,
                   q = 5, e.at, (e.at AT TIME ZONE 'Asia/Shanghai')::date, ${counted}
              FROM ${t.runs} r CROSS JOIN generate_series(1, 5) AS q
             CROSS JOIN LATERAL (SELECT r."published_at" - interval '2 minutes' + q * interval '1 second' AS at) e`,
    },
    {
      label: 'provider HTTP attempts (6 per run)',
      sql: `INSERT INTO ${t.httpAttempts} ("run_id", "ordinal", "ticket_key", "scenario_id", "query_id", "provider", "status_class", "at", "day", "counted")
            SELECT r."run_id", a, r."ticket_key", 's' || (a % 2), 'q' || least(a, 5), CASE WHEN a % 3 = 0 THEN 'manus' ELSE 'clinic' END,
                   CASE WHEN (${hash} + a) % 23 = 0 THEN '502' WHEN (${hash} + a) % 19 = 0 THEN '500' WHEN (${hash} + a) % 13 = 0 THEN '400'
                        WHEN (${hash} + a) % 29 = 0 THEN 'other' ELSE '200' END,
                   e.at, (e.at AT TIME ZONE 'Asia/Shanghai')::date, ${counted}
              FROM ${t.runs} r CROSS JOIN generate_series(1, 6) AS a
             CROSS JOIN LATERAL (SELECT r."published_at" - interval '2 minutes' + a * interval '1 second' AS at) e`,
    },
    {
      label: 'provider 5xx episodes (1 in 25 runs)',
      sql: `INSERT INTO ${t.systemEvents} ("run_id", "ordinal", "ticket_key", "scenario_id", "query_id", "provider", "status_sequence", "result",
                                          "upstream_error", "request_id", "at", "day", "counted")
            SELECT r."run_id", 1, r."ticket_key", 's1', 'q' || (1 + ${hash} % 5), 'clinic',
                   CASE WHEN ${hash} % 2 = 0 THEN ARRAY[502, 502, 200] ELSE ARRAY[500, 500, 500] END,
                   CASE WHEN ${hash} % 2 = 0 THEN 'recovered' ELSE 'failed' END,
                   CASE WHEN ${hash} % 2 = 0 THEN 'Bad Gateway' ELSE 'upstream timeout' END,
                   'req-' || r."run_id", e.at, (e.at AT TIME ZONE 'Asia/Shanghai')::date, ${counted}
              FROM ${t.runs} r CROSS JOIN LATERAL (SELECT r."published_at" - interval '1 minute' AS at) e
             WHERE ${hash} % 25 = 0`,
    },
    {
      label: 'evaluations (8 in 10 versions, some judged twice)',
      sql: `INSERT INTO ${t.evaluations} ("evaluation_id", "run_id", "verdict", "verdict_reason", "ai_gaps", "judged_at", "ticket_key", "answer_fingerprint", "judge_engine")
            SELECT 'ev-' || r."run_id" || '-' || k, r."run_id",
                   (ARRAY['ai_better', 'equivalent', 'different_but_valid', 'human_better', 'not_compared'])[1 + (${hash} + k) % 5],
                   'bench verdict',
                   jsonb_build_array('gap ' || (${hash} % 12), 'gap ' || ((${hash} / 12) % 12)),
                   r."published_at" + k * interval '1 day', r."ticket_key", r."answer_fingerprint", 'bench-judge'
              FROM ${t.runs} r CROSS JOIN generate_series(1, 2) AS k
             WHERE ${hash} % 10 < 8 AND (k = 1 OR ${hash} % 10 = 0)`,
    },
    {
      label: 'timeline comments (bot reply, Support reply, /ao)',
      sql: `INSERT INTO ${t.comments} ("ticket_key", "comment_id", "position", "author_role", "visibility", "created_at", "updated_at", "body", "visible_to_ai", "is_feedback")
            SELECT r."ticket_key", 'c-' || r."run_id" || '-' || c.kind, c.position, c.role, c.visibility, r."published_at" + c.delay, r."published_at" + c.delay,
                   c.body, false, c.kind = 'ao'
              FROM ${t.runs} r
             CROSS JOIN LATERAL (VALUES
               ('bot', 1, 'bot', 'public', interval '1 minute', 'Auto-oncall reply', ${hash} % 3 = 0),
               ('support', 2, 'support', 'public', interval '1 hour', 'Support answer', ${hash} % 2 = 0),
               ('ao', 3, 'support', 'internal', interval '2 hours', '/ao wrong: bench feedback', ${hash} % 10 = 5)
             ) AS c(kind, position, role, visibility, delay, body, present)
             WHERE c.present`,
    },
    {
      label: 'feedback bindings',
      sql: `INSERT INTO ${t.bindings} ("ticket_key", "comment_id", "run_id", "answer_fingerprint", "action", "reason", "comment_created_at", "comment_updated_at", "author_role", "visibility")
            SELECT c."ticket_key", c."comment_id", r."run_id", r."answer_fingerprint", 'wrong', 'bench feedback', c."created_at", c."updated_at", 'support', 'internal'
              FROM ${t.comments} c JOIN ${t.runs} r ON c."comment_id" = 'c-' || r."run_id" || '-ao'`,
    },
    {
      label: 'answer feedback',
      sql: `INSERT INTO ${t.answerFeedback} ("run_id", "comment_id", "ticket_key", "action", "inherited")
            SELECT b."run_id", b."comment_id", b."ticket_key", b."action", false FROM ${t.bindings} b`,
    },
    {
      label: 'answer projections',
      sql: `INSERT INTO ${t.projections} ("run_id", "ticket_key", "published_at", "counted", "anchor_kind", "anchor_at", "human_reply_at", "evaluation_id",
                                         "verdict", "quality_score", "quality_source", "judge_review_requested", "has_feedback")
            SELECT r."run_id", r."ticket_key", r."published_at", ${counted},
                   CASE WHEN r."trigger" = 'replay' AND r."mode" = 'read' THEN 'none' WHEN bot."created_at" IS NOT NULL THEN 'public_reply' ELSE 'internal_comment' END,
                   CASE WHEN r."trigger" = 'replay' AND r."mode" = 'read' THEN NULL ELSE coalesce(bot."created_at", r."published_at") END,
                   sup."created_at", e."evaluation_id", e."verdict",
                   CASE WHEN fb."run_id" IS NOT NULL THEN 0 WHEN e."verdict" IS NULL OR e."verdict" = 'not_compared' THEN NULL
                        WHEN e."verdict" = 'human_better' THEN 0 ELSE 1 END,
                   CASE WHEN fb."run_id" IS NOT NULL THEN 'feedback' WHEN e."verdict" IS NULL THEN 'none' ELSE 'judge' END,
                   false, fb."run_id" IS NOT NULL
              FROM ${t.runs} r
              LEFT JOIN ${t.comments} bot ON bot."ticket_key" = r."ticket_key" AND bot."comment_id" = 'c-' || r."run_id" || '-bot'
              LEFT JOIN ${t.comments} sup ON sup."ticket_key" = r."ticket_key" AND sup."comment_id" = 'c-' || r."run_id" || '-support'
              LEFT JOIN ${t.answerFeedback} fb ON fb."run_id" = r."run_id"
              LEFT JOIN LATERAL (
                SELECT v."evaluation_id", v."verdict" FROM ${t.evaluations} v
                 WHERE v."ticket_key" = r."ticket_key" AND v."answer_fingerprint" = r."answer_fingerprint"
                 ORDER BY v."judged_at" DESC, v."evaluation_id" DESC LIMIT 1
              ) e ON true`,
    },
  ];
}

/** Rows of the period a report reads: counted runs (projection rows) with their latest evaluation, execution and feedback, plus the provider facts of counted runs on the period's days. */
async function rowsInPeriod(ds: DataSource, t: ReporterTables, from: string, dayAfter: string): Promise<number> {
  const [row]: { n: string }[] = await ds.query(
    `WITH counted AS (
       SELECT p."run_id", p."evaluation_id" FROM ${t.projections} p
        WHERE p."counted"
          AND p."published_at" >= ($1::date)::timestamp AT TIME ZONE 'Asia/Shanghai' AND p."published_at" < ($2::date)::timestamp AT TIME ZONE 'Asia/Shanghai'
     )
     SELECT (SELECT count(*) FROM counted)
          + (SELECT count(*) FROM counted WHERE "evaluation_id" IS NOT NULL)
          + (SELECT count(*) FROM ${t.executions} x JOIN counted c USING ("run_id"))
          + (SELECT count(*) FROM ${t.answerFeedback} f JOIN counted c USING ("run_id"))
          + (SELECT count(*) FROM ${t.queryEvents} q WHERE q."counted" AND q."day" >= $1::date AND q."day" < $2::date)
          + (SELECT count(*) FROM ${t.httpAttempts} a WHERE a."counted" AND a."day" >= $1::date AND a."day" < $2::date)
          + (SELECT count(*) FROM ${t.systemEvents} s WHERE s."counted" AND s."day" >= $1::date AND s."day" < $2::date) AS n`,
    [from, dayAfter],
  );
  return Number(row.n);
}

interface Timing {
  p50: number;
  min: number;
  max: number;
}

async function time(iterations: number, work: () => Promise<unknown>): Promise<Timing> {
  await work(); // warm-up: plans, caches
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor((samples.length - 1) / 2)], min: samples[0], max: samples[samples.length - 1] };
}

const fmtMs = (ms: number) => `${ms.toFixed(1)} ms`;
const fmtInt = (n: number) => n.toLocaleString('en-US');

async function main(): Promise<number> {
  if (!(await reachable(DATABASE_URL))) {
    process.stdout.write(`bench:reports SKIPPED: Postgres at ${redactUrl(DATABASE_URL)} is unreachable\n`);
    return 0;
  }
  const ds = createServiceDataSource({ url: DATABASE_URL, schema: 'public', poolSize: 2, applicationName: 'aoc-bench-reports' });
  try {
    await ds.initialize();
  } catch (error) {
    process.stdout.write(`bench:reports SKIPPED: cannot connect to ${redactUrl(DATABASE_URL)}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 0;
  }
  try {
    progress(`schema ${SCHEMA}: running the reporter migrations`);
    const t = await createReporterSchemaCopy(ds, SCHEMA);
    const seedStarted = performance.now();
    let inserted = 0;
    for (const step of seedStatements(t)) {
      const started = performance.now();
      // Only the first step is parameterised (N and the week); the others derive from the runs.
      const params = step.sql.includes('$2') ? [RUNS, WEEK_START_INSTANT] : [];
      const result: unknown = await ds.query(`WITH ins AS (${step.sql} RETURNING 1) SELECT count(*)::int AS n FROM ins`, params);
      const n = (result as { n: number }[])[0]?.n ?? 0;
      inserted += n;
      progress(`${step.label}: ${fmtInt(n)} rows in ${fmtMs(performance.now() - started)}`);
    }
    // As autovacuum would: statistics for the planner, visibility map for index-only scans.
    await ds.query(`VACUUM ANALYZE ${t.all.join(', ')}`);
    const seedMs = performance.now() - seedStarted;

    const reader = new SqlReportsReader(ds, t);
    const weekly = await reader.weekly(WEEK_START);
    const daily = await reader.daily(DAY);
    const checks = [
      ['daily verdicts sum to runsCounted', daily.verdicts.reduce((s, v) => s + v.count, 0) === daily.runsCounted],
      ['weekly verdicts sum to runsCounted', weekly.verdicts.reduce((s, v) => s + v.count, 0) === weekly.runsCounted],
      ['weekly counts every initial/bot_assignment run', weekly.runsCounted === (await ds.query(`SELECT count(*)::int AS n FROM ${t.runs} WHERE "trigger" IN ('initial', 'bot_assignment')`))[0].n],
    ] as const;
    for (const [name, ok] of checks) if (!ok) throw new Error(`sanity check failed: ${name}`);

    const dailyRows = await rowsInPeriod(ds, t, DAY, '2026-11-19');
    const weeklyRows = await rowsInPeriod(ds, t, WEEK_START, '2026-11-23');
    progress(`timing ${ITERATIONS} iterations each (after one warm-up)`);
    const dailyTiming = await time(ITERATIONS, () => reader.daily(DAY));
    const weeklyTiming = await time(ITERATIONS, () => reader.weekly(WEEK_START));

    const line = (name: string, timing: Timing, rows: number, counted: number) =>
      `${name.padEnd(22)} p50 ${fmtMs(timing.p50).padStart(10)}  min ${fmtMs(timing.min).padStart(10)}  max ${fmtMs(timing.max).padStart(10)}  ` +
      `runs counted ${fmtInt(counted).padStart(7)}  rows read ${fmtInt(rows).padStart(9)}  ${fmtInt(Math.round(rows / (timing.p50 / 1000)))} rows/s`;
    process.stdout.write(
      [
        `bench:reports  ${fmtInt(RUNS)} runs over the Shanghai week of ${WEEK_START}${QUICK ? ' (BENCH_QUICK=1)' : ''}; Postgres ${redactUrl(DATABASE_URL)}, schema ${SCHEMA}`,
        `seeded ${fmtInt(inserted)} rows in ${(seedMs / 1000).toFixed(1)} s (${fmtInt(Math.round(inserted / (seedMs / 1000)))} rows/s, set-based SQL)`,
        line(`daily  ${DAY}`, dailyTiming, dailyRows, daily.runsCounted),
        line(`weekly ${WEEK_START}`, weeklyTiming, weeklyRows, weekly.runsCounted),
        `weekly: ${fmtInt(weekly.runtimeSignals.length)} runtime signals, ${weekly.provider5xx.length} provider/query 5xx rows, ${weekly.providerHealth.length} provider-day health rows, quality good/bad/unknown ${weekly.quality.good}/${weekly.quality.bad}/${weekly.quality.unknown}`,
        '',
      ].join('\n'),
    );
    return 0;
  } finally {
    if (process.env['BENCH_KEEP_SCHEMA'] === '1') {
      progress(`BENCH_KEEP_SCHEMA=1: schema ${SCHEMA} kept for inspection; drop it with DROP SCHEMA ${SCHEMA} CASCADE`);
    } else {
      progress(`dropping schema ${SCHEMA}`);
      await dropReporterSchemaCopy(ds, SCHEMA).catch((error: unknown) => progress(`cleanup failed: ${error instanceof Error ? error.message : String(error)}`));
    }
    await ds.destroy();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench:reports failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
