// Diagnosis benchmark: OpenMetrics for `promtool tsdb create-blocks-from openmetrics`, written to a
// file metric family by metric family (the format wants each family contiguous) instead of one
// string: suite A alone is ~2 million samples.
import { closeSync, openSync, writeSync } from 'node:fs';
import type { FixtureSeries } from '@aoc/providers/testing';

/** Writes the series as OpenMetrics (same lines as the providers' fixture); returns the samples written. */
export function writeOpenMetrics(path: string, series: readonly FixtureSeries[]): number {
  const byMetric = new Map<string, FixtureSeries[]>();
  for (const s of series) {
    const list = byMetric.get(s.metric);
    if (list) {
      if (list[0].type !== s.type) throw new Error(`metric ${s.metric} is both ${list[0].type} and ${s.type}`);
      list.push(s);
    } else byMetric.set(s.metric, [s]);
  }
  const fd = openSync(path, 'w');
  let samples = 0;
  try {
    for (const [metric, list] of byMetric) {
      writeSync(fd, `# TYPE ${metric.replace(/_total$/, '')} ${list[0].type}\n`);
      for (const s of list) {
        const labels = Object.entries(s.labels)
          .map(([k, v]) => `${k}="${v}"`)
          .join(',');
        const lines = [...s.samples].sort((a, b) => a[0] - b[0]).map(([t, v]) => `${metric}{${labels}} ${v} ${t}\n`);
        samples += lines.length;
        writeSync(fd, lines.join(''));
      }
    }
    writeSync(fd, '# EOF\n');
  } finally {
    closeSync(fd);
  }
  return samples;
}
