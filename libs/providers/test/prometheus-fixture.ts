import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One series of the fixture: labels and samples (epoch seconds, value). */
export interface FixtureSeries {
  metric: string;
  type: 'gauge' | 'counter';
  labels: Record<string, string>;
  samples: [number, number][];
}

export interface RunningPrometheus {
  baseUrl: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export function toOpenMetrics(series: readonly FixtureSeries[]): string {
  const byMetric = new Map<string, FixtureSeries[]>();
  for (const s of series) byMetric.set(s.metric, [...(byMetric.get(s.metric) ?? []), s]);
  const lines: string[] = [];
  for (const [metric, list] of byMetric) {
    const type = list[0].type;
    lines.push(`# TYPE ${metric.replace(/_total$/, '')} ${type}`);
    for (const s of list) {
      const labels = Object.entries(s.labels)
        .map(([k, v]) => `${k}="${v}"`)
        .join(',');
      for (const [t, v] of [...s.samples].sort((a, b) => a[0] - b[0])) lines.push(`${metric}{${labels}} ${v} ${t}`);
    }
  }
  lines.push('# EOF');
  return lines.join('\n') + '\n';
}

/** A Prometheus process serving a TSDB directory on 127.0.0.1, once it answers `/-/ready`. */
export interface ServedPrometheus {
  baseUrl: string;
  child: ChildProcess;
}

/**
 * Starts the Debian `prometheus` on a free 127.0.0.1 port over the TSDB in `data` (no scraping)
 * and waits until it is ready; a process that exits or misses the deadline fails with its stderr.
 */
export async function servePrometheus(dir: string, data: string, readyTimeoutMs = 30000): Promise<ServedPrometheus> {
  writeFileSync(join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 1h\nscrape_configs: []\n');
  const port = await freePort();
  const child: ChildProcess = spawn(
    'prometheus',
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${data}`, '--storage.tsdb.retention.time=3650d', `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${baseUrl}/-/ready`);
      if (res.ok) return { baseUrl, child };
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`prometheus did not become ready: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Real Prometheus (Debian package) on 127.0.0.1 with series backfilled through
 * `promtool tsdb create-blocks-from openmetrics`.
 */
export async function startPrometheus(series: readonly FixtureSeries[]): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'aoc-prom-'));
  const data = join(dir, 'data');
  writeFileSync(join(dir, 'series.om'), toOpenMetrics(series));
  execFileSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', join(dir, 'series.om'), data], { stdio: 'pipe' });
  const { baseUrl, child } = await servePrometheus(dir, data);
  return {
    baseUrl,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
