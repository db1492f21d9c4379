// `npm run bench:optimizer`: a baseline and a challenger replay of 1,000 frozen cases (the bundled
// examples and the optimizer demo's tickets, re-keyed), each pass in its own process as the
// optimizer runs them, judged on a Focus's criteria; against the floor measured in the same run:
// the same cases through the same chain in this process, no child process, no judging. Goal: both
// passes within 0.6 s per case on 2 cores (60 s per 100). `BENCH_QUICK=1` replays 20 cases;
// `BENCH_OPTIMIZER_CASES=<n>` any other count.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

const QUICK = process.env['BENCH_QUICK'] === '1';
const CASES = Number(process.env['BENCH_OPTIMIZER_CASES'] ?? (QUICK ? 20 : 1000));
if (!Number.isInteger(CASES) || CASES < 1 || CASES > 5000) throw new Error('BENCH_OPTIMIZER_CASES: a whole number of cases from 1 to 5000');
const log = (line: string) => process.stdout.write(`${line}\n`);

/** A key of the same project with a copy number appended (APID keys stay APID keys for Wetech). */
const rekey = (key: string, copy: number) => key.replace(/-(\d+)$/, (_m, n: string) => `-${n}${String(copy).padStart(2, '0')}`);

async function main(): Promise<void> {
  const { childReplayPort, startPlatform, loadExample, runExample, OPTIMIZER_DEMO_TICKETS, OPTIMIZER_DEMO_RECORDINGS } = await import('@aoc/launcher');
  const { loadRecordings, providerExecutorDefinition } = await import('@aoc/service-provider-executor');
  const { routerDefinition } = await import('@aoc/service-router');
  const { evidenceDefinition } = await import('@aoc/service-evidence');
  const { reporterDefinition } = await import('@aoc/service-reporter');
  const { builtinProposals, localDataAccess, judgeCase, Criterion } = await import('@aoc/service-optimizer');
  const { applyCandidate } = await import('@aoc/versioned-data');

  // The frozen cases: every source ticket (no-target asks and plans nothing: left out) copied under new keys.
  const sources = [join(__dirname, '..', 'services', 'router', 'examples', 'tickets'), OPTIMIZER_DEMO_TICKETS].flatMap((d) =>
    readdirSync(d)
      .filter((f) => f.endsWith('.json') && f !== 'no-target.json')
      .sort()
      .map((f) => join(d, f)),
  );
  const dir = mkdtempSync(join(tmpdir(), 'aoc-bench-optimizer-'));
  const files = new Map<string, string>();
  for (let i = 0; files.size < CASES; i += 1) {
    const source = sources[i % sources.length];
    const raw = JSON.parse(readFileSync(source, 'utf8')) as { ticket: { key: string } };
    raw.ticket.key = rekey(raw.ticket.key, Math.floor(i / sources.length));
    const file = join(dir, `${raw.ticket.key}.json`);
    writeFileSync(file, JSON.stringify(raw));
    files.set(raw.ticket.key, file);
  }
  const requests = [...files.keys()].map((key) => ({ caseId: key, role: 'target' as const, ticketKey: key, cutoff: null, runId: `run-${key}` }));
  const criteria = [Criterion.parse({ id: 'lead-lock-waits', kind: 'leading_mechanism_family', family: 'lock_waits' }), Criterion.parse({ id: 'queried-cpu', kind: 'evidence_family_queried', family: 'cpu' })];
  log(`bench:optimizer: ${CASES} frozen cases from ${sources.length} tickets; ${cpus().length} cores${QUICK ? ' (quick)' : ''}`);

  // Floor: the same chain in this process, the same concurrency, nothing else.
  const recordings = [...loadRecordings(), ...loadRecordings(OPTIMIZER_DEMO_RECORDINGS)];
  const platform = await startPlatform({ services: [routerDefinition, evidenceDefinition, providerExecutorDefinition, reporterDefinition], executor: { mode: 'replay', recordings, prometheusTargets: [] }, logLevel: 'error' });
  let floorMs = 0;
  try {
    await runExample(platform, { ...loadExample([...files.values()][0]), trigger: 'replay' }, 90_000, 'published');
    const queue = [...files.values()];
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let f = queue.shift(); f; f = queue.shift()) await runExample(platform, { ...loadExample(f), trigger: 'replay' }, 90_000, 'published');
      }),
    );
    floorMs = Date.now() - started;
  } finally {
    await platform.stop();
  }

  // The optimizer's passes: current data, then a candidate the built-in proposer would try first.
  const data = localDataAccess();
  const [candidate] = builtinProposals({ wantedFamily: 'lock_waits', ledFamilies: ['cpu'], manifest: data.manifest, read: data.read, tried: new Set(), limit: 1 });
  const overlay = applyCandidate(candidate, data.read);
  const port = childReplayPort({ ticketFiles: files, recordings: [OPTIMIZER_DEMO_RECORDINGS] });
  const unexecuted: string[] = [];
  const pass = async (name: string, o: ReadonlyMap<string, string> | null) => {
    const started = Date.now();
    const results = await port.replay(requests, o);
    const replayMs = Date.now() - started;
    const judgedStarted = Date.now();
    const judged = results.map((r) => (r.answer ? judgeCase(r.caseId, criteria, r.answer, r.execution) : null));
    const judgeMs = Date.now() - judgedStarted;
    const executed = results.filter((r) => r.answer !== null).length;
    const met = judged.filter((j) => j?.results[0].status === 'met').length;
    log(`${name.padEnd(10)} ${(replayMs / 1000).toFixed(1)} s for ${results.length} cases (${executed} executed, lead-lock-waits met on ${met}); judging ${judgeMs} ms`);
    // A pass whose cases did not execute measured nothing: it fails the bench, whatever its time.
    if (executed < CASES) {
      unexecuted.push(`${name}: ${CASES - executed} of ${CASES} cases did not execute (${results.find((r) => r.answer === null)?.error ?? 'no result'})`);
    }
    return replayMs + judgeMs;
  };
  const baselineMs = await pass('baseline', null);
  const challengerMs = await pass('challenger', overlay);
  rmSync(dir, { recursive: true, force: true });

  const perCase = (ms: number) => ms / CASES;
  log('');
  log(`floor      ${(floorMs / 1000).toFixed(1)} s: ${perCase(floorMs).toFixed(0)} ms per case (same chain in this process, 4 in flight)`);
  log(`baseline   ${perCase(baselineMs).toFixed(0)} ms per case = ${(baselineMs / floorMs).toFixed(2)}x the floor`);
  log(`challenger ${perCase(challengerMs).toFixed(0)} ms per case = ${(challengerMs / floorMs).toFixed(2)}x the floor`);
  const total = (baselineMs + challengerMs) / 1000;
  const goalS = (60 * CASES) / 100;
  log(`baseline + challenger: ${total.toFixed(1)} s for ${CASES} cases (goal <= ${goalS.toFixed(0)} s, 0.6 s per case on 2 cores): ${unexecuted.length > 0 ? 'FAIL' : QUICK ? 'quick run, goal not assessed' : total <= goalS ? 'PASS' : 'MISS'}`);
  if (unexecuted.length > 0) {
    for (const line of unexecuted) log(`FAIL ${line}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:optimizer failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
