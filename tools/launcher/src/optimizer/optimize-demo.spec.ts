import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { OptimizerCandidateEnqueuedV2 } from '@aoc/contracts';
import { useDemoDeployment } from './demo-deployment';
import type { DemoReport } from './optimize-demo';

const FAILURE_MODES = 'services/router/data/failure-modes.json';

/**
 * `npm run optimize:demo` as a test: the real chain answers and judges the demo tickets on the demo
 * deployment's data, and the real optimizer turns the judge's gap into an accepted data change.
 * The assertions check what came out; nothing in the demo names the change.
 */
describe('optimizer demo (embedded, no network)', () => {
  let report: DemoReport;
  let data: string;
  const lines: string[] = [];

  beforeAll(async () => {
    // The chain reads its versioned data when its modules load, so it is imported only after this.
    data = useDemoDeployment();
    const { runOptimizeDemo } = await import('./optimize-demo');
    report = await runOptimizeDemo({ log: (line) => lines.push(line) });
  }, 240000);
  afterAll(() => {
    if (report) rmSync(report.workingCopy, { recursive: true, force: true });
    if (data) rmSync(data, { recursive: true, force: true });
  });

  it("starts from the demo deployment, says so, and its working copy holds that deployment's catalogue", () => {
    expect(lines[0]).toMatch(/^starting point: .*ranks causes by onset order alone/);
    const git = (...args: string[]) => execFileSync('git', ['-C', report.workingCopy, ...args], { encoding: 'utf8' });
    const catalogue = JSON.parse(git('show', `main:${FAILURE_MODES}`)) as { modes: { id: string }[] };
    expect(catalogue.modes.map((m) => m.id)).toEqual(['healthy']);
    expect(git('show', `main:${FAILURE_MODES}`)).toBe(readFileSync(join(data, FAILURE_MODES), 'utf8'));
  });

  it('judges every demo ticket human_better on the cause the customer confirmed', () => {
    expect(report.verdicts.map((v) => v.verdict)).toEqual(['human_better', 'human_better', 'human_better']);
    for (const v of report.verdicts) expect(v.gaps[0]).toMatch(/^named "CPU utilisation"; the customer confirmed .*lock/);
  });

  it('creates a Focus on all three targets and enqueues a candidate that fixes each of them', () => {
    expect(report.steps.map((s) => s.outcome)).toEqual(expect.arrayContaining(['focus_candidate_selected', 'focus_created', 'candidate_enqueued']));
    expect(report.enqueued).toHaveLength(1);
    const c = OptimizerCandidateEnqueuedV2.parse(report.enqueued[0]);
    expect(c.edits.every((e) => e.path === 'services/router/data/family-rules.json')).toBe(true);
    expect(c.gate.rows.filter((r) => r.blocking && r.role === 'target').map((r) => r.transition)).toEqual(['fixed', 'fixed', 'fixed']);
    expect(c.gate.regressions).toBe(0);
    expect(c.evidenceRefs).toHaveLength(3);
  });

  it('writes the candidate as a commit on its own branch of the working copy, leaving main as it was', () => {
    const c = report.enqueued[0];
    const git = (...args: string[]) => execFileSync('git', ['-C', report.workingCopy, ...args], { encoding: 'utf8' }).trim();
    expect(git('rev-parse', `refs/heads/${c.commit?.branch ?? 'none'}`)).toBe(c.commit?.sha);
    expect(git('diff', '--name-only', 'main', c.commit?.sha ?? 'HEAD')).toBe('services/router/data/family-rules.json');
    // The operator's checkout is untouched: its file is still the base version.
    const base = JSON.parse(readFileSync(join(report.workingCopy, 'services/router/data/family-rules.json'), 'utf8')) as unknown;
    const committed = JSON.parse(git('show', `${c.commit?.sha}:services/router/data/family-rules.json`)) as unknown;
    expect(committed).not.toEqual(base);
    expect(git('branch', '--show-current')).toBe('main');
  });

  it('repairs one ticket through the single-ticket lane from a /ticket comment, without backfilling the feed', () => {
    expect(lines).toContain('single-ticket feed: first activation: cursor set at the head, no backfill of earlier signals');
    expect(lines.find((l) => l.startsWith('single-ticket finding:'))).toMatch(/^single-ticket finding: local_repair/);
    expect(lines.find((l) => l.startsWith('single-ticket record:'))).toMatch(/^single-ticket record: opt-[0-9a-f]{16} \(lane single_ticket/);
    expect(report.singleTicket).toMatchObject({ jobId: expect.stringMatching(/^stj-[0-9a-f]{24}$/), status: 'optimized_verified', outcome: 'optimized_verified' });
  });
});
