import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ReplayPort, ReplayRequest, ReplayResult } from '@aoc/service-optimizer';
import { VERSIONED_DATA_DIR_ENV } from '@aoc/versioned-data';
import { WorkerOutput, type WorkerInput } from './replay-protocol';

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
 * The optimizer's replay port on this machine: each pass runs in a child process, so the versioned
 * data it reads is exactly the current files, or the current files with the candidate's overlay
 * (AOC_VERSIONED_DATA_DIR). A case without a frozen ticket file, or a pass that dies, comes back
 * as not executed with the reason; nothing is guessed.
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
        .map((c) => ({ caseId: c.caseId, answer: null, execution: { responseGeneration: 'failed', providerCapability: 'unverified' }, error: `no frozen ticket for ${c.ticketKey}` }));
      if (known.length === 0) return missing;
      const dir = mkdtempSync(join(tmpdir(), 'aoc-replay-'));
      try {
        const overlayDir = join(dir, 'overlay');
        for (const [path, text] of overlay ?? []) {
          mkdirSync(dirname(join(overlayDir, path)), { recursive: true });
          writeFileSync(join(overlayDir, path), text);
        }
        const input: WorkerInput = { cases: known.map((c) => ({ caseId: c.caseId, ticketFile: fileOf(c) ?? '', cutoff: c.cutoff })), recordings: [...(options.recordings ?? [])], timeoutMs: options.timeoutMs ?? 90_000, concurrency: options.concurrency ?? 4 };
        writeFileSync(join(dir, 'in.json'), JSON.stringify(input));
        const env = { ...process.env, [VERSIONED_DATA_DIR_ENV]: overlay && overlay.size > 0 ? overlayDir : '' };
        await new Promise<void>((resolve, reject) => {
          execFile(process.execPath, ['-r', REGISTER, WORKER, join(dir, 'in.json'), join(dir, 'out.json')], { env, timeout: (options.timeoutMs ?? 90_000) * (known.length + 1), maxBuffer: 8 * 1024 * 1024 }, (error, _stdout, stderr) =>
            error ? reject(new Error(`replay pass failed: ${stderr.trim().split('\n').at(-1) ?? error.message}`)) : resolve(),
          );
        });
        const out = WorkerOutput.parse(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')));
        return [...out.results, ...missing];
      } catch (error) {
        const reason = (error instanceof Error ? error.message : String(error)).slice(0, 300);
        return cases.map((c) => ({ caseId: c.caseId, answer: null, execution: { responseGeneration: 'failed', providerCapability: 'unverified' }, error: reason }));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
