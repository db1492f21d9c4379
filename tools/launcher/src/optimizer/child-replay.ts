import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ReplayPort, ReplayRequest, ReplayResult } from '@aoc/service-optimizer';
import { loadManifest, repoRoot, VERSIONED_DATA_DIR_ENV } from '@aoc/versioned-data';
import { maxItemsOf } from '@aoc/contracts';
import { WorkerInput, WorkerOutput } from './replay-protocol';

/** Cases one worker process takes at most (the protocol's bound): a longer pass runs as several, one after another. */
export const CASES_PER_WORKER = maxItemsOf(WorkerInput.shape.cases);

const REGISTER = join(__dirname, '..', '..', '..', 'register.js');
const WORKER = join(__dirname, 'replay-worker.ts');

export interface ChildReplayOptions {
  /** Frozen cases by run id (a deployment's answer versions) or by ticket key (bundled files): the ticket as it was at its cutoff. */
  ticketFiles: ReadonlyMap<string, string>;
  /** Recordings besides the bundled ones. */
  recordings?: readonly string[];
  timeoutMs?: number;
  /** Cases in flight at once inside a pass (4 by default). */
  concurrency?: number;
}

/**
 * The data directory a pass reads (AOC_VERSIONED_DATA_DIR), written under `dir`: this process's own
 * copies of the declared files (its AOC_VERSIONED_DATA_DIR, a deployment's data) with the
 * candidate's files on top. So a baseline replays the data the optimizer read and digested as its
 * base version, and a challenger differs from it by the candidate alone. '' (the bundled files)
 * when there is neither.
 */
export function passDataDir(dir: string, overlay: ReadonlyMap<string, string> | null, env: Record<string, string | undefined> = process.env, root: string = repoRoot()): string {
  const base = env[VERSIONED_DATA_DIR_ENV];
  const files = new Map<string, string>();
  if (base) {
    for (const { path } of loadManifest(root).files) if (existsSync(join(base, path))) files.set(path, readFileSync(join(base, path), 'utf8'));
  }
  for (const [path, text] of overlay ?? []) files.set(path, text);
  if (files.size === 0) return '';
  for (const [path, text] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/**
 * The optimizer's replay port on this machine: each pass runs in a child process, so the versioned
 * data it reads is exactly the current files as this process reads them, or those with the
 * candidate's overlay (AOC_VERSIONED_DATA_DIR: `passDataDir`). A case without a frozen ticket file,
 * or a pass that dies, comes back as not executed with the reason; nothing is guessed.
 */
export function childReplayPort(options: ChildReplayOptions): ReplayPort {
  const fileOf = (c: ReplayRequest) => options.ticketFiles.get(c.runId) ?? options.ticketFiles.get(c.ticketKey);
  return {
    ticketText(c: ReplayRequest): string | null {
      const file = fileOf(c);
      if (!file) return null;
      try {
        const { ticket } = JSON.parse(readFileSync(file, 'utf8')) as { ticket?: { title?: unknown; description?: unknown } };
        const parts = [ticket?.title, ticket?.description].filter((p): p is string => typeof p === 'string');
        return parts.length > 0 ? parts.join('\n') : null;
      } catch {
        return null;
      }
    },
    async replay(cases: readonly ReplayRequest[], overlay: ReadonlyMap<string, string> | null): Promise<ReplayResult[]> {
      const known = cases.filter((c) => fileOf(c) !== undefined);
      const missing: ReplayResult[] = cases
        .filter((c) => fileOf(c) === undefined)
        .map((c) => notExecuted(c, `no frozen ticket for ${c.ticketKey}`));
      const results: ReplayResult[] = [];
      for (let i = 0; i < known.length; i += CASES_PER_WORKER) results.push(...(await runWorker(known.slice(i, i + CASES_PER_WORKER), overlay, options, fileOf)));
      return [...results, ...missing];
    },
  };
}

const notExecuted = (c: ReplayRequest, error: string): ReplayResult => ({ caseId: c.caseId, answer: null, execution: { responseGeneration: 'failed', providerCapability: 'unverified' }, error });

/** One worker process for at most CASES_PER_WORKER cases; a worker that dies fails its cases with the reason. */
async function runWorker(cases: readonly ReplayRequest[], overlay: ReadonlyMap<string, string> | null, options: ChildReplayOptions, fileOf: (c: ReplayRequest) => string | undefined): Promise<ReplayResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'aoc-replay-'));
  try {
    const dataDir = passDataDir(join(dir, 'overlay'), overlay);
    const input: WorkerInput = { cases: cases.map((c) => ({ caseId: c.caseId, ticketFile: fileOf(c) ?? '', cutoff: c.cutoff })), recordings: [...(options.recordings ?? [])], timeoutMs: options.timeoutMs ?? 90_000, concurrency: options.concurrency ?? 4 };
    writeFileSync(join(dir, 'in.json'), JSON.stringify(input));
    const env = { ...process.env, [VERSIONED_DATA_DIR_ENV]: dataDir };
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, ['-r', REGISTER, WORKER, join(dir, 'in.json'), join(dir, 'out.json')], { env, timeout: (options.timeoutMs ?? 90_000) * (cases.length + 1), maxBuffer: 8 * 1024 * 1024 }, (error, _stdout, stderr) =>
        error ? reject(new Error(`replay pass failed: ${stderr.trim().split('\n').at(-1) ?? error.message}`)) : resolve(),
      );
    });
    return WorkerOutput.parse(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'))).results;
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, 300);
    return cases.map((c) => notExecuted(c, reason));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
