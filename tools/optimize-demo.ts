// `npm run optimize:demo`: the optimizer end to end on the embedded defaults, with no network.
// Judged demo tickets share a gap the judge found; the optimizer selects it, confirms it on a
// fresh baseline, the built-in proposer searches the declared tunables, the gate accepts a
// candidate, and it appears on optimizer.candidate-enqueued and as a commit in a temporary working copy.
// It runs on the demo deployment's data (see docs/optimizer.md, "Demo and benchmark").
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { useDemoDeployment } from './launcher/src/optimizer/demo-deployment';

async function main(): Promise<void> {
  // Before the chain loads: its modules read the versioned data once, at load.
  const data = useDemoDeployment();
  process.on('exit', () => rmSync(data, { recursive: true, force: true }));
  const { runOptimizeDemo } = await import('@aoc/launcher');
  const started = Date.now();
  const report = await runOptimizeDemo({ log: (line) => process.stdout.write(`${line}\n`) });
  const candidate = report.enqueued[0];
  if (!candidate) {
    process.stdout.write(`\nno candidate was enqueued (${report.steps.at(-1)?.outcome ?? 'nothing ran'}); done in ${Date.now() - started} ms\n`);
    process.exit(1);
  }
  process.stdout.write(`\n=== optimizer.candidate-enqueued ${candidate.candidateId} (focus ${candidate.focusId}, attempt ${candidate.attempt}) ===\n`);
  for (const e of candidate.edits) process.stdout.write(`edit  ${e.path} ${e.pointer} = ${e.valueJson}\n      because ${e.because}\n`);
  process.stdout.write(`gate  ${candidate.gate.reason}\n`);
  for (const r of candidate.gate.rows) process.stdout.write(`      ${r.caseId.padEnd(10)} ${r.role.padEnd(7)} ${r.criterionId.padEnd(20)} ${r.baseline} -> ${r.challenger} (${r.transition})\n`);
  process.stdout.write(`refs  ${candidate.evidenceRefs.join(', ')}\n`);
  if (candidate.commit) {
    process.stdout.write(`\n=== ${candidate.commit.branch} in ${report.workingCopy} ===\n`);
    process.stdout.write(execFileSync('git', ['-C', report.workingCopy, 'show', '--stat', '--format=commit %H%n%n%B', candidate.commit.sha], { encoding: 'utf8' }));
  }
  process.stdout.write(`\ndone in ${Date.now() - started} ms\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`optimize:demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
