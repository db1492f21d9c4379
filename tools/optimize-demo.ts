// `npm run optimize:demo`: the optimizer end to end on the embedded defaults, with no network.
// Judged demo tickets share a gap the judge found; the optimizer selects it, confirms it on a
// fresh baseline, the built-in proposer searches the declared tunables, the gate accepts a
// candidate, and it appears on optimizer.candidate-enqueued, as a commit in a temporary working
// copy and as an optimisation record (its problems `candidate`). Then the deployment is simulated
// (answers carrying the candidate's data version reach the optimizer: `optimized_unverified`), the
// verification replays the record's cases at their cutoffs on that data (`optimized_verified`), the
// record is exported as a docs/opts-style file and the week's attribution names it. Last, the
// single-ticket lane repairs one ticket end to end from a `/ticket` comment.
// It runs on the demo deployment's data (see docs/optimizer.md, "Demo and benchmark").
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HandlerContext } from '@aoc/bus';
import { DEMO_DEPLOYMENT, onDemoDeployment, useDemoDeployment } from './launcher/src/optimizer/demo-deployment';

const out = (line: string) => process.stdout.write(`${line}\n`);

/** The Monday (YYYY-MM-DD) of the Asia/Shanghai week an instant falls in: the reporter's weeks. */
function shanghaiMonday(at: Date): string {
  const local = new Date(at.getTime() + 8 * 3600_000);
  return new Date(local.getTime() - ((local.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
}

async function main(): Promise<number> {
  // Before the chain loads: its modules read the versioned data once, at load.
  const data = useDemoDeployment();
  const exportDir = mkdtempSync(join(tmpdir(), 'aoc-opts-'));
  process.on('exit', () => rmSync(data, { recursive: true, force: true }));
  const { Topics } = await import('@aoc/contracts');
  type Enqueued = import('@aoc/contracts').OptimizerCandidateEnqueuedV2;
  type Published = import('@aoc/contracts').RunPublishedV1;
  const { startPlatform, runExample, loadExample, frozenCaseFiles, localOptimizerPorts, optimizerTransact, gitCandidateWriter, demoWorkingCopy, runSingleTicketDemo, OPTIMIZER_DEMO_TICKETS, OPTIMIZER_DEMO_RECORDINGS } = await import('@aoc/launcher');
  const { loadRecordings } = await import('@aoc/service-provider-executor');
  const { FocusController, FocusIteration, RecordVerifier, CollectSignalsHandler, allRecords, allNotifications, recordFileName, recordMarkdown, parseRecordMarkdown, weeklyAttribution } = await import('@aoc/service-optimizer');
  if (!onDemoDeployment()) throw new Error('the optimizer demo runs on the demo deployment data');

  const started = Date.now();
  out(`starting point: ${DEMO_DEPLOYMENT}`);
  const tickets = frozenCaseFiles([OPTIMIZER_DEMO_TICKETS]);
  const workingCopy = demoWorkingCopy();
  const platform = await startPlatform({ executor: { mode: 'replay', recordings: [...loadRecordings(), ...loadRecordings(OPTIMIZER_DEMO_RECORDINGS)], prometheusTargets: [] }, logLevel: 'error' });
  try {
    // 1. The real chain answers and judges the demo tickets; the optimizer turns the gaps into signals.
    for (const [key, file] of tickets) {
      const { summary } = await runExample(platform, loadExample(file), 90_000);
      out(`${key}: judged ${summary.verdict}${summary.aiGaps[0] ? ` — ${summary.aiGaps[0]}` : ''}`);
    }
    for (let i = 0; i < 300; i += 1) {
      const rows: { n: string }[] = await platform.dataSource.query(`SELECT count(DISTINCT "ticket_key") AS n FROM "optimizer"."signal_refs" WHERE "ticket_key" = ANY($1)`, [[...tickets.keys()]]);
      if (Number(rows[0]?.n ?? 0) >= tickets.size) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const deps = { ...localOptimizerPorts({ ticketFiles: tickets, recordings: [OPTIMIZER_DEMO_RECORDINGS], writer: gitCandidateWriter(workingCopy) }), transact: optimizerTransact(platform) };
    const step = (name: string, r: { outcome: string; reason: string }) => (out(`${name}: ${r.outcome} — ${r.reason}`), r);

    // 2. Select, baseline, iterate until a candidate is accepted.
    const controller = new FocusController(deps);
    if (step('select', await controller.select()).outcome !== 'focus_candidate_selected') return 1;
    if (step('baseline', await controller.baseline()).outcome !== 'focus_created') return 1;
    const iteration = new FocusIteration(deps);
    for (let i = 0; i < 3; i += 1) {
      const r = step(`iterate ${i + 1}`, await iteration.iterate());
      if (r.outcome === 'candidate_enqueued' || r.outcome === 'daily_attempt_limit_reached' || r.outcome.startsWith('focus_')) break;
    }
    // The outbox relay sends after commit; give it a moment to reach the in-process broker.
    const messages = (topic: string) => platform.broker?.messages(topic) ?? [];
    for (let i = 0; i < 50 && messages(Topics.optimizerCandidateEnqueued.name).length === 0; i += 1) await new Promise((r) => setTimeout(r, 100));
    const candidate = messages(Topics.optimizerCandidateEnqueued.name).map((m) => (JSON.parse(m.value.toString('utf8')) as { payload: Enqueued }).payload)[0];
    if (!candidate) {
      out(`\nno candidate was enqueued; done in ${Date.now() - started} ms`);
      return 1;
    }
    out(`\n=== optimizer.candidate-enqueued ${candidate.candidateId} (focus ${candidate.focusId}, attempt ${candidate.attempt}) ===`);
    for (const e of candidate.edits) out(`edit  ${e.path} ${e.pointer} = ${e.valueJson}\n      because ${e.because}`);
    out(`gate  ${candidate.gate.reason}`);
    for (const r of candidate.gate.rows) out(`      ${r.caseId.padEnd(10)} ${r.role.padEnd(7)} ${r.criterionId.padEnd(20)} ${r.baseline} -> ${r.challenger} (${r.transition})`);
    out(`refs  ${candidate.evidenceRefs.join(', ')}`);
    if (candidate.commit) {
      out(`\n=== ${candidate.commit.branch} in ${workingCopy} ===`);
      process.stdout.write(execFileSync('git', ['-C', workingCopy, 'show', '--stat', '--format=commit %H%n%n%B', candidate.commit.sha], { encoding: 'utf8' }));
    }

    // 3. The optimisation record of the accepted candidate, its problems `candidate`.
    const records = () => deps.transact(({ manager }) => allRecords(manager));
    const statusLines = async (title: string) => {
      const [stored] = await records();
      out(`\n--- ${title} ---`);
      for (const s of stored?.statuses ?? []) out(`${(stored?.record.problems.find((p) => p.ref === s.ref)?.ticketKey ?? s.ref).padEnd(10)} ${s.status.padEnd(20)} ${s.reason}`);
      return stored;
    };
    const [stored] = await records();
    if (!stored) {
      out('no optimisation record was written');
      return 1;
    }
    const { record } = stored;
    out(`\n=== optimisation record ${record.recordId} (${record.format}, schema ${record.schemaVersion}) ===`);
    out(`data  ${record.data.baseVersion} -> ${record.data.dataVersion}`);
    for (const c of record.data.changes) out(`      ${c.surface}: ${c.path} ${c.pointer} ${JSON.stringify(c.before)} -> ${JSON.stringify(c.after)}`);
    out(`scope ${record.applicability.summary}`);
    await statusLines('problem statuses: recorded, not deployed');

    // 4. Simulated deployment: the deployed data version becomes the candidate's, and the tickets'
    // answers reach the optimizer carrying it (what run.published will carry once the contract has it).
    out(`\nsimulated deployment: the deployed data version is now ${record.data.dataVersion} (the candidate's); the target tickets are answered on it`);
    const published = messages(Topics.runPublished.name).map((m) => (JSON.parse(m.value.toString('utf8')) as { payload: Published }).payload);
    const handler = new CollectSignalsHandler();
    for (const p of record.problems) {
      const answer = published.find((r) => r.ticketKey === p.ticketKey);
      if (!answer) continue;
      const deployed = { ...answer, runId: `${answer.runId}-deployed`, publishedAt: new Date().toISOString(), dataVersion: record.data.dataVersion };
      await deps.transact(({ manager }) => handler.onPublished(deployed, { manager } as unknown as HandlerContext));
    }
    await statusLines('problem statuses: deployed');

    // 5. Verification: the record's target cases at their cutoffs, replayed on the deployed data.
    const report = await new RecordVerifier(deps).verify();
    out(`\nverify: ${report.outcome} — ${report.reason}`);
    const verified = await statusLines('problem statuses: verified');

    // 6. The record as a docs/opts-style file, read back; the week's attribution.
    if (verified) {
      const file = join(exportDir, recordFileName(verified.record));
      writeFileSync(file, recordMarkdown({ ...verified.record, statuses: verified.statuses }));
      const doc = parseRecordMarkdown(readFileSync(file, 'utf8'), file);
      out(`\nexported ${file} (${doc.statuses.map((s) => s.status).join(', ')}); \`npm run aoc -- optimize records export <dir>\` writes the same`);
      const week = weeklyAttribution([verified], shanghaiMonday(new Date()), null, new Date());
      out(`attribution, week of ${week.period.from}: ${week.totals.verified} verified, ${week.totals.ineffective} ineffective, ${week.totals.pendingAtWeekEnd} pending`);
      for (const i of week.improvements) out(`      ${i.ticketKey.padEnd(10)} ${i.recordId} ${i.changes.join('; ')}`);
    }
    // 7. The single-ticket lane on one of the tickets. This process still reads the demo deployment's
    // data (the deployment above was simulated), so its fresh read replay still shows the gap.
    out('\n=== single-ticket lane ===');
    const job = await runSingleTicketDemo(deps, record.problems[0].ticketKey, published, out);
    const notes = await deps.transact(({ manager }) => allNotifications(manager));
    const tally = new Map<string, number>();
    for (const n of notes) tally.set(`${n.kind} ${n.status}`, (tally.get(`${n.kind} ${n.status}`) ?? 0) + 1);
    out(`notifications: ${[...tally].map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}${notes.some((n) => n.status === 'not_configured') ? ' (no AOC_OPTIMIZER_WEBHOOK_URL: recorded, not sent)' : ''}`);
    out(`\ndone in ${Date.now() - started} ms`);
    return verified?.statuses.every((s) => s.status === 'optimized_verified') && job?.status === 'optimized_verified' ? 0 : 1;
  } finally {
    await platform.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`optimize:demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
