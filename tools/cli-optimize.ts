import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * `aoc optimize select|baseline|iterate|verify|status`: one optimizer step against the optimizer's
 * schema of a deployment (DATABASE_URL or --database; without either, a persistent embedded store
 * under --state-dir). Frozen cases are the ticket files of --cases directories (default: the
 * bundled examples and the optimizer demo's tickets) with their recordings; an accepted candidate
 * is committed in the --git working copy (or AOC_OPTIMIZER_GIT_DIR), never merged. `verify`
 * replays the deployed optimisation records' cases. `aoc optimize records export <dir>` writes the
 * optimisation records as docs/opts-style files; `aoc optimize records check <file|dir>` validates
 * such files offline (a malformed one fails, naming the file and the field).
 */

const STEPS = ['select', 'baseline', 'iterate', 'verify', 'status', 'schedule', 'records'] as const;

export const OptimizeArgs = z
  .object({
    step: z.enum(STEPS),
    /** `records` only: what to do and with which file or directory. */
    records: z.object({ action: z.enum(['export', 'check']), path: z.string().min(1) }).optional(),
    database: z.string().min(1).optional(),
    stateDir: z.string().min(1).default(join(homedir(), '.cache', 'aoc', 'optimizer-state')),
    cases: z.array(z.string().min(1)).max(20).default([]),
    recordings: z.array(z.string().min(1)).max(10).default([]),
    git: z.string().min(1).optional(),
    json: z.boolean().default(false),
    /** Replay the deployment's own answer versions: frozen requests from the router, recordings from the executor. */
    fromDeployment: z.boolean().default(false),
  })
  .strict()
  .refine((a) => !a.fromDeployment || a.database !== undefined, { path: ['fromDeployment'], message: 'needs --database or DATABASE_URL (the deployment whose runs are replayed)' })
  .refine((a) => (a.step === 'records') === (a.records !== undefined), { path: ['records'], message: 'records export <dir> | records check <file|dir>' });
export type OptimizeArgs = z.output<typeof OptimizeArgs>;

function values(args: readonly string[], name: string): string[] {
  return args.flatMap((a, i) => (a === name && args[i + 1] !== undefined ? [args[i + 1]] : []));
}

/** Parses the step and its options; a bad value names its option. */
export function parseOptimizeArgs(args: readonly string[], env: Record<string, string | undefined> = process.env): OptimizeArgs {
  const positional = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--') && !['--json', '--from-deployment'].includes(args[i - 1])));
  const parsed = OptimizeArgs.safeParse({
    step: args[0],
    records: args[0] === 'records' ? { action: positional[1], path: positional[2] } : undefined,
    database: values(args, '--database')[0] ?? env['DATABASE_URL'],
    stateDir: values(args, '--state-dir')[0],
    cases: values(args, '--cases'),
    recordings: values(args, '--recordings'),
    git: values(args, '--git')[0] ?? env['AOC_OPTIMIZER_GIT_DIR'],
    json: args.includes('--json'),
    fromDeployment: args.includes('--from-deployment'),
  });
  if (!parsed.success) {
    const flag: Record<string, string> = { step: `step (${STEPS.join('|')})`, records: 'records', 'records.action': 'records action (export|check)', 'records.path': 'records path (<dir> to export to, <file|dir> to check)', database: '--database', stateDir: '--state-dir', cases: '--cases', recordings: '--recordings', git: '--git', fromDeployment: '--from-deployment' };
    throw new Error(parsed.error.issues.map((i) => `${flag[i.path.join('.')] ?? flag[String(i.path[0])] ?? String(i.path[0])}: ${i.message}`).join('; '));
  }
  return parsed.data;
}

/** Every record file under a path (a file, or the `.md` and `.json` files of a directory). */
function recordFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => (f.endsWith('.md') && f !== 'README.md') || f.endsWith('.json'))
    .sort()
    .map((f) => join(path, f));
}

/** `records check`: parses every record file; a malformed one fails the command, naming the file and the field. */
export async function checkRecordFiles(path: string): Promise<{ outcome: string; text: string; json: unknown }> {
  const { parseRecordMarkdown, parseRecordDocumentJson } = await import('@aoc/service-optimizer');
  const checked = recordFiles(path).map((file) => {
    try {
      const text = readFileSync(file, 'utf8');
      const doc = file.endsWith('.json') ? parseRecordDocumentJson(text, file) : parseRecordMarkdown(text, file);
      return { file, recordId: doc.recordId, statuses: doc.statuses.map((st) => st.status), error: null };
    } catch (error) {
      return { file, recordId: null, statuses: [], error: error instanceof Error ? error.message : String(error) };
    }
  });
  const bad = checked.filter((c) => c.error !== null);
  if (bad.length > 0) throw new Error(`${bad.length} of ${checked.length} record file(s) invalid:\n${bad.map((b) => `  ${b.error}`).join('\n')}`);
  return { outcome: 'records_valid', text: [`${checked.length} record file(s) valid`, ...checked.map((c) => `  ${c.file}: ${c.recordId} (${c.statuses.join(', ')})`)].join('\n'), json: checked };
}

export async function runOptimizeStep(args: OptimizeArgs): Promise<{ outcome: string; text: string; json: unknown }> {
  if (args.records?.action === 'check') return checkRecordFiles(args.records.path);
  const { startEmbeddedPostgres } = await import('@aoc/persistence');
  const { InMemoryBroker } = await import('@aoc/bus');
  const { createOptimizerDefinition, ScheduleConfig, FocusController, FocusIteration, RecordVerifier, allRecords, recordFileName, recordMarkdown, proposerFromEnv, freeTextJudgeFromEnv, selectorFromEnv } = await import('@aoc/service-optimizer');
  const { startPlatform, frozenCaseFiles, localOptimizerPorts, optimizerTransact, gitCandidateWriter, freezeDeploymentCases, OPTIMIZER_DEMO_RECORDINGS, OPTIMIZER_DEMO_TICKETS, BUNDLED_TICKETS } = await import('@aoc/launcher');
  const embedded = args.database ? null : await startEmbeddedPostgres({ dataDir: args.stateDir });
  const brokers = process.env['KAFKA_BROKERS'];
  const caseDirs = args.cases.length > 0 ? args.cases : [BUNDLED_TICKETS, OPTIMIZER_DEMO_TICKETS];
  let ticketFiles = frozenCaseFiles(caseDirs);
  let recordings = args.recordings.length > 0 ? args.recordings : [OPTIMIZER_DEMO_RECORDINGS];
  if (args.fromDeployment && args.database) {
    const { createServiceDataSource } = await import('@aoc/persistence');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const ds = createServiceDataSource({ url: args.database, schema: 'public', poolSize: 1 });
    await ds.initialize();
    try {
      const frozen = await freezeDeploymentCases(ds, mkdtempSync(join(tmpdir(), 'aoc-frozen-')));
      ticketFiles = new Map([...ticketFiles, ...frozen.caseFiles]);
      recordings = [...recordings, frozen.recordingsFile];
    } finally {
      await ds.destroy();
    }
  }
  const ports = localOptimizerPorts({
    ticketFiles,
    recordings,
    proposer: proposerFromEnv(),
    freeTextJudge: freeTextJudgeFromEnv(),
    selector: selectorFromEnv(),
    ...(args.git ? { writer: gitCandidateWriter(args.git) } : {}),
    ...(process.env['AOC_OPTIMIZER_TIME_ZONE'] ? { timeZone: process.env['AOC_OPTIMIZER_TIME_ZONE'] } : {}),
  });
  // Scheduled mode: the service runs its slots until the process is stopped.
  const schedule = args.step === 'schedule' ? ScheduleConfig.parse(process.env) : null;
  const platform = await startPlatform({
    databaseUrl: args.database ?? embedded?.url,
    services: [createOptimizerDefinition(schedule ? { scheduler: { ports, schedule } } : {})],
    transport: brokers ? { kind: 'kafka', brokers: brokers.split(',') } : { kind: 'memory', broker: new InMemoryBroker() },
    logLevel: 'error',
  });
  try {
    const deps = { ...ports, transact: optimizerTransact(platform) };
    if (schedule) {
      process.stdout.write(`optimizer scheduled at ${schedule.slots.join(', ')} ${schedule.timeZone} (selection at ${schedule.selectionSlot}); Ctrl-C stops it\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      return { outcome: 'stopped', text: 'scheduler stopped', json: { stopped: true } };
    }
    const controller = new FocusController(deps);
    const records = () => deps.transact(({ manager }) => allRecords(manager));
    if (args.step === 'status') {
      const focuses = await controller.status();
      const stored = await records();
      const lines = focuses.map(({ focus, checkpoints }) => `${focus.focusId}  ${focus.status.padEnd(14)} ${focus.signature}  ${focus.candidate.targets.length} targets, ${focus.candidate.controls.length} controls  checkpoints: ${checkpoints.map((c) => `${c.kind}#${c.attempt}`).join(' ') || 'none'}`);
      const recordLines = stored.map(({ record, statuses }) => `${record.recordId}  ${record.focus.focusId}#${record.focus.attempt}  ${record.data.dataVersion}  ${statuses.map((st) => `${record.problems.find((p) => p.ref === st.ref)?.ticketKey ?? st.ref} ${st.status}`).join(', ')}`);
      return { outcome: 'status', text: [...(lines.length ? lines : ['no Focus yet']), ...recordLines].join('\n'), json: { focuses, records: stored } };
    }
    if (args.records?.action === 'export') {
      const dir = args.records.path;
      mkdirSync(dir, { recursive: true });
      const stored = await records();
      const files = stored.map(({ record, statuses }) => {
        const file = join(dir, recordFileName(record));
        writeFileSync(file, recordMarkdown({ ...record, statuses }));
        return { file, recordId: record.recordId, statuses: statuses.map((st) => st.status) };
      });
      return { outcome: 'records_exported', text: [`${files.length} record(s) exported to ${dir}`, ...files.map((f) => `  ${f.file} (${f.statuses.join(', ')})`)].join('\n'), json: files };
    }
    if (args.step === 'verify') {
      const report = await new RecordVerifier(deps).verify();
      const lines = report.records.flatMap((r) => r.problems.map((p) => `  ${r.recordId} ${p.ticketKey} ${p.event}${p.moved ? '' : ' (decided by another run)'}: ${p.reason}`));
      return { outcome: report.outcome, text: [`${report.outcome}: ${report.reason}`, ...lines].join('\n'), json: report };
    }
    const result = args.step === 'select' ? await controller.select() : args.step === 'baseline' ? await controller.baseline() : await new FocusIteration(deps).iterate();
    return { outcome: result.outcome, text: `${result.outcome}: ${result.reason}${result.focusId ? ` (${result.focusId})` : ''}`, json: result };
  } finally {
    await platform.stop();
    await embedded?.stop();
  }
}
