import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Topics, type OptimizerCandidateEnqueuedV2, type RunPublishedV1 } from '@aoc/contracts';
import { FocusController, FocusIteration, type JobProgress, type StepResult } from '@aoc/service-optimizer';
import { loadRecordings } from '@aoc/service-provider-executor';
import { loadManifest, MANIFEST_PATH, repoRoot, resolveDataPath, VERSIONED_DATA_DIR_ENV } from '@aoc/versioned-data';
import { startPlatform, type Platform } from '../embedded-platform';
import { OPTIMIZER_DEMO_RECORDINGS, OPTIMIZER_DEMO_TICKETS } from '../examples/example-series';
import { loadExample, runExample } from '../run-example';
import { DEMO_DEPLOYMENT, onDemoDeployment } from './demo-deployment';
import { gitCandidateWriter } from './git-writer';
import { frozenCaseFiles, localOptimizerPorts, optimizerTransact } from './local-optimizer';
import { runSingleTicketDemo } from './single-ticket-demo';

export { embeddedRepairPublisher, runSingleTicketDemo } from './single-ticket-demo';

export interface DemoReport {
  verdicts: { ticketKey: string; verdict: string | null; gaps: string[] }[];
  steps: (StepResult & { step: string })[];
  enqueued: OptimizerCandidateEnqueuedV2[];
  workingCopy: string;
  /** The single-ticket repair after the Focus part (null when it did not run). */
  singleTicket: JobProgress | null;
}

/**
 * A git working copy holding the versioned data files as this process reads them (the operator's
 * repository in production): on the demo deployment, its catalogue is what main holds.
 */
export function demoWorkingCopy(): string {
  const root = repoRoot();
  const dir = mkdtempSync(join(tmpdir(), 'aoc-optimizer-wc-'));
  const files = [MANIFEST_PATH, ...loadManifest(root).files.map((f) => f.path)];
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    copyFileSync(f === MANIFEST_PATH ? join(root, f) : resolveDataPath(f, process.env, root), join(dir, f));
  }
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
  git('init', '--quiet', '-b', 'main');
  git('add', '--', ...files);
  git('-c', 'user.name=demo', '-c', 'user.email=demo@auto-oncall.invalid', 'commit', '--quiet', '-m', 'base: versioned data');
  return dir;
}

/** Waits until the optimizer has derived signals from the judged demo tickets (the topics are asynchronous). */
async function waitForSignals(platform: Platform, tickets: readonly string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows: { n: string }[] = await platform.dataSource.query(`SELECT count(DISTINCT "ticket_key") AS n FROM "optimizer"."signal_refs" WHERE "ticket_key" = ANY($1)`, [tickets]);
    if (Number(rows[0]?.n ?? 0) >= tickets.length) return;
    if (Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The optimizer end to end with no network: the demo tickets are answered and judged by the real
 * chain, the optimizer service turns the judge's gaps into signals, the selector groups them, the
 * baseline replays the cases, the built-in proposer searches the declared tunables, the challenger
 * replays on the candidate's data and the gate decides. Nothing here names the answer.
 *
 * It runs on the demo deployment's data (`useDemoDeployment()`, called before the chain's modules
 * load): the bundled engine answers these tickets right, so on the bundled data there is nothing to
 * optimize. The replays read the same data, with a candidate's files on top.
 */
export async function runOptimizeDemo(options: { log?: (line: string) => void; maxAttempts?: number } = {}): Promise<DemoReport> {
  const log = options.log ?? (() => undefined);
  if (!onDemoDeployment()) throw new Error(`the optimizer demo runs on the demo deployment's data: call useDemoDeployment() before the chain's modules load (${VERSIONED_DATA_DIR_ENV} is ${process.env[VERSIONED_DATA_DIR_ENV] || 'not set'})`);
  log(`starting point: ${DEMO_DEPLOYMENT}`);
  const tickets = frozenCaseFiles([OPTIMIZER_DEMO_TICKETS]);
  const workingCopy = demoWorkingCopy();
  const platform = await startPlatform({ executor: { mode: 'replay', recordings: [...loadRecordings(), ...loadRecordings(OPTIMIZER_DEMO_RECORDINGS)], prometheusTargets: [] }, logLevel: 'error' });
  const report: DemoReport = { verdicts: [], steps: [], enqueued: [], workingCopy, singleTicket: null };
  try {
    for (const [key, file] of tickets) {
      const { summary } = await runExample(platform, loadExample(file), 90_000);
      report.verdicts.push({ ticketKey: key, verdict: summary.verdict, gaps: summary.aiGaps });
      log(`${key}: judged ${summary.verdict}${summary.aiGaps[0] ? ` — ${summary.aiGaps[0]}` : ''}`);
    }
    await waitForSignals(platform, [...tickets.keys()]);
    const deps = { ...localOptimizerPorts({ ticketFiles: tickets, recordings: [OPTIMIZER_DEMO_RECORDINGS], writer: gitCandidateWriter(workingCopy) }), transact: optimizerTransact(platform) };
    const step = (name: string, r: StepResult) => {
      report.steps.push({ step: name, ...r });
      log(`${name}: ${r.outcome} — ${r.reason}`);
      return r;
    };
    const controller = new FocusController(deps);
    const selected = step('select', await controller.select());
    if (selected.outcome !== 'focus_candidate_selected') return report;
    const created = step('baseline', await controller.baseline());
    if (created.outcome !== 'focus_created') return report;
    const iteration = new FocusIteration(deps);
    for (let i = 0; i < (options.maxAttempts ?? 3); i += 1) {
      const r = step(`iterate ${i + 1}`, await iteration.iterate());
      if (r.outcome === 'candidate_enqueued' || r.outcome === 'daily_attempt_limit_reached' || r.outcome.startsWith('focus_')) break;
    }
    // The outbox relay sends after commit; give it a moment to reach the in-process broker.
    for (let i = 0; i < 50 && (platform.broker?.messages(Topics.optimizerCandidateEnqueued.name) ?? []).length === 0; i += 1) await new Promise((r) => setTimeout(r, 100));
    report.enqueued = (platform.broker?.messages(Topics.optimizerCandidateEnqueued.name) ?? []).map((m) => (JSON.parse(m.value.toString('utf8')) as { payload: OptimizerCandidateEnqueuedV2 }).payload);
    const published = (platform.broker?.messages(Topics.runPublished.name) ?? []).map((m) => (JSON.parse(m.value.toString('utf8')) as { payload: RunPublishedV1 }).payload);
    report.singleTicket = await runSingleTicketDemo(deps, [...tickets.keys()][0], published, log);
    return report;
  } finally {
    await platform.stop();
  }
}
