// Bus benchmark: the printed table, ratios and details.
import * as os from 'node:os';
import { BATCH, KAFKA, MEM, PARTITIONS, QUICK, SKIP_KAFKA, STORE_WARMUP } from './config';
import { label, type Result } from './measure';

export function percentile(samples: number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1];
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (value < 1) return value.toFixed(3);
  if (value < 10) return value.toFixed(2);
  return value.toFixed(1);
}

export function rate(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value >= 100 ? String(Math.round(value)) : value.toFixed(1);
}

export function ratio(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (value >= 100) return `x${Math.round(value)}`;
  if (value >= 0.1) return `x${value.toFixed(value >= 10 ? 1 : 2).replace(/\.?0+$/, '') || '0'}`;
  return `x${value.toPrecision(2)}`;
}

export function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const right = new Set([2, 3, 4]);
  const line = (r: string[]) => r.map((cell, c) => (right.has(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join(' | ');
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.slice(1).map(line)].join('\n');
}

export function report(results: Result[], notes: string[], failures: string[]): void {
  const out: string[] = [];
  out.push('');
  out.push('== bus benchmark ==');
  out.push(`machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${os.platform()} ${os.arch()}, node ${process.version}`);
  out.push(
    `sizes: in-process N=${MEM.n} (warm-up ${MEM.warm}), M=${MEM.m}; kafka N=${KAFKA.n} (warm-up ${KAFKA.warm}), M=${KAFKA.m}; batch/transaction of ${BATCH}; store warm-up ${STORE_WARMUP} cycles; partitions ${PARTITIONS}${QUICK ? '; BENCH_QUICK=1' : ''}${SKIP_KAFKA ? '; BENCH_SKIP_KAFKA=1' : ''}`,
  );
  out.push('');
  const rows = [['transport', 'variant', 'p50 ms', 'p99 ms', 'msgs/s']];
  for (const r of results) rows.push([r.transport, r.variant, ms(percentile(r.latency, 0.5)), ms(percentile(r.latency, 0.99)), rate(r.throughput)]);
  out.push(results.length > 0 ? table(rows) : '(no results)');
  out.push('');
  for (const transport of ['in-process', 'kafka'] as const) {
    const floor = results.find((r) => r.transport === transport && r.variant === 'floor');
    const bus = results.find((r) => r.transport === transport && r.variant === 'bus');
    if (!floor || !bus) continue;
    out.push(
      `${transport} bus/floor: p50 ${ratio(percentile(bus.latency, 0.5) / percentile(floor.latency, 0.5))}, p99 ${ratio(
        percentile(bus.latency, 0.99) / percentile(floor.latency, 0.99),
      )}, throughput ${ratio(bus.throughput / floor.throughput)}`,
    );
  }
  const details: string[] = [];
  for (const r of results) {
    const name = label(r);
    const pub50 = percentile(r.publish, 0.5);
    const after = r.latency.map((l, i) => l - r.publish[i]);
    details.push(
      `${name}: publish call p50 ${ms(pub50)} ms, then handler p50 ${ms(percentile(after, 0.5))} ms later; mean hop ${ms(
        r.latency.reduce((a, b) => a + b, 0) / Math.max(1, r.latency.length),
      )} ms; throughput: all ${r.m} published after ${ms(r.sendMs)} ms, consumed after ${ms(r.totalMs)} ms${r.duplicates > 0 ? `; ${r.duplicates} duplicate deliveries` : ''}`,
    );
    details.push(
      `${name}: this node process: latency run ${ms(r.process.latencyCpuMs)} ms CPU per hop, event loop busy ${(r.process.latencyElu * 100).toFixed(0)}%; ` +
        `throughput run ${ms(r.process.throughputCpuMs)} ms CPU per message, event loop busy ${(r.process.throughputElu * 100).toFixed(0)}%` +
        (r.transport === 'in-process' && r.variant === 'bus' ? ' (PGlite runs on this thread: includes the database)' : ''),
    );
    if (r.warmup) {
      details.push(
        `${name}: store warm-up ${r.warmup.cycles} cycles in ${r.warmup.seconds.toFixed(1)} s; cycle p50 ${ms(r.warmup.firstP50)} ms at the start -> ${ms(r.warmup.lastP50)} ms at the end`,
      );
    }
    if (r.pgRoundTrip) details.push(`${name}: postgres round trip (BEGIN; SELECT 1; COMMIT via TypeORM) p50 ${ms(percentile(r.pgRoundTrip, 0.5))} ms`);
    if (r.sqlPerHop) {
      details.push(
        `${name}: per hop (latency run) ${r.sqlPerHop.statements.toFixed(2)} SQL statements in ${r.sqlPerHop.runners.toFixed(2)} query runners; ` +
          `summed ${ms(r.sqlPerHop.execMs)} ms executing SQL + ${ms(r.sqlPerHop.acquireMs)} ms waiting for a pooled connection, vs ${ms(
            r.latency.reduce((a, b) => a + b, 0) / Math.max(1, r.latency.length),
          )} ms mean hop`,
      );
    }
    if (r.sqlPerMessage) {
      const wallPerMsg = r.totalMs / Math.max(1, r.m);
      details.push(
        `${name}: per message (throughput run) ${r.sqlPerMessage.statements.toFixed(2)} SQL statements in ${r.sqlPerMessage.runners.toFixed(2)} query runners ` +
          `(pool checkouts); summed ${ms(r.sqlPerMessage.execMs)} ms executing SQL + ${ms(r.sqlPerMessage.acquireMs)} ms waiting for a pooled connection, ` +
          `vs ${ms(wallPerMsg)} ms wall time per message`,
      );
    }
  }
  if (details.length > 0) {
    out.push('');
    out.push('details:');
    for (const d of details) out.push(`  ${d}`);
  }
  if (notes.length > 0 || failures.length > 0) out.push('');
  for (const n of notes) out.push(n);
  for (const f of failures) out.push(`FAILED: ${f}`);
  process.stdout.write(`${out.join('\n')}\n`);
}
