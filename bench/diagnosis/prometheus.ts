// Diagnosis benchmark: one real Prometheus (Debian package) holding both suites.
//
// Same process as @aoc/providers' startPrometheus (promtool backfill, then the server on
// 127.0.0.1), but streamed: suite A alone is ~2 million samples (~250 MB of OpenMetrics), which
// the fixture would build as one string, and promtool re-reads its whole input once per 2-hour
// block between the first and last sample. So each part (suite A; suite B) is written to its own
// file, metric family by metric family, and backfilled by its own promtool run into the one data
// directory: the large part spans a single block, the part spread over a day is small.
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servePrometheus, type FixtureSeries, type RunningPrometheus } from '@aoc/providers/testing';
import { writeOpenMetrics } from '../../tools/launcher/src/diagnosis-bench/openmetrics';

export interface BackfillPart {
  name: string;
  series: readonly FixtureSeries[];
}

export interface BackfillStats {
  name: string;
  series: number;
  samples: number;
  bytes: number;
  promtoolMs: number;
}

export interface BenchPrometheus extends RunningPrometheus {
  stats: BackfillStats[];
}

function run(command: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.slice(0, 3).join(' ')} failed: ${error.message}\n${String(stderr).slice(-2000)}`));
      else resolve();
    });
  });
}

export async function startBenchPrometheus(parts: readonly BackfillPart[], progress: (line: string) => void = () => undefined): Promise<BenchPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'aoc-bench-diagnosis-prom-'));
  const data = join(dir, 'data');
  const stats: BackfillStats[] = [];
  let child: ChildProcess | null = null;
  try {
    for (const [i, part] of parts.entries()) {
      if (part.series.length === 0) continue;
      const file = join(dir, `part-${i}.om`);
      const samples = writeOpenMetrics(file, part.series);
      const bytes = statSync(file).size;
      const started = Date.now();
      await run('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', '--quiet', file, data], 15 * 60_000);
      stats.push({ name: part.name, series: part.series.length, samples, bytes, promtoolMs: Date.now() - started });
      rmSync(file, { force: true });
      progress(`backfilled ${part.name}: ${part.series.length} series, ${samples} samples, ${(bytes / 1e6).toFixed(1)} MB of OpenMetrics, promtool ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    const served = await servePrometheus(dir, data, 120_000);
    const proc = served.child;
    child = proc;
    const baseUrl = served.baseUrl;
    const kill = () => proc.kill('SIGKILL');
    process.once('exit', kill);
    return {
      baseUrl,
      stats,
      stop: async () => {
        process.removeListener('exit', kill);
        if (proc.exitCode === null) {
          proc.kill('SIGTERM');
          await new Promise((r) => (proc.exitCode !== null ? r(null) : proc.once('exit', r)));
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
