// Pipeline benchmark: the printed table, ratios and details.
import * as os from 'node:os';
import { BATCH, KAFKA, MEM, QUICK, SKIP_KAFKA } from '../bus/config';
import type { Result } from '../bus/measure';
import { ms, percentile, rate, ratio, table } from '../bus/report';
import type { PipelineResult, Ticket } from './drive';
import { CHAIN_TOPICS, SIDE_TOPICS } from './observer';
import type { Part } from './part';

const short = (topic: string): string => topic.replace(/^aoc\./, '').replace(/\.v\d+$/, '');
const latencies = (tickets: Ticket[]): number[] => tickets.map((t) => t.latency);
const sizesOf = (p: PipelineResult): string =>
  `${p.sizes.tickets} tickets, at most ${p.sizes.inFlight} in flight (before them: warm-up ${p.sizes.warm}, unloaded ${p.sizes.unloaded}, one at a time)`;

/** A floor as if it carried the tickets: the chain's messages per ticket, each costing what it cost the floor. */
interface FloorPerTicket {
  label: string;
  /** throughput run: ms per ticket */
  perTicket: number;
  /** hops x sequential per-hop p50 latency */
  p50: number;
}

function floorPerTicket(label: string, floor: Result | undefined, p: PipelineResult): FloorPerTicket | undefined {
  if (!floor) return undefined;
  const hops = p.chainMessages / p.loaded.length;
  return { label, perTicket: floor.totalMs / p.loaded.length, p50: hops * percentile(floor.latency, 0.5) };
}

function pipelineRows(part: Part, p: PipelineResult, floors: FloorPerTicket[]): string[][] {
  const rows = [
    [part.transport, `pipeline, ${p.sizes.inFlight} in flight`, ms(percentile(latencies(p.loaded), 0.5)), ms(percentile(latencies(p.loaded), 0.95)), rate(p.loaded.length / (p.wallMs / 1000))],
    [part.transport, 'pipeline, one at a time', ms(percentile(latencies(p.unloaded), 0.5)), ms(percentile(latencies(p.unloaded), 0.95)), rate(p.unloaded.length / (latencies(p.unloaded).reduce((a, b) => a + b, 0) / 1000))],
  ];
  // A p95 of one hop times the hops is no p95 of a ticket: only the p50 is given.
  for (const f of floors) rows.push([part.transport, `${f.label} (hops x hop)`, ms(f.p50), '-', rate(1000 / f.perTicket)]);
  return rows;
}

function details(part: Part, p: PipelineResult): string[] {
  const n = p.loaded.length;
  const name = `${part.transport} pipeline`;
  const perTopic = (topics: readonly string[]) => topics.map((t) => `${short(t)} ${((p.perTopic.get(t) ?? 0) / n).toFixed(2)}`).join(', ');
  const byExample = new Map<string, number[]>();
  for (const t of p.loaded) byExample.set(t.example, [...(byExample.get(t.example) ?? []), t.latency]);
  const out = [
    `${name}: ${(p.chainMessages / n).toFixed(2)} chain messages per ticket (${perTopic(CHAIN_TOPICS)}), plus ${(p.sideMessages / n).toFixed(2)} off the path (${perTopic(SIDE_TOPICS)})`,
    `${name}: ${n} tickets in ${ms(p.wallMs)} ms = ${ms(p.wallMs / n)} ms per ticket; this node process ${ms(p.cpuMsPerTicket)} ms CPU per ticket, event loop busy ${(p.elu * 100).toFixed(0)}%` +
      (part.transport === 'in-process' ? ' (PGlite runs on this thread: includes the database)' : ' (the broker and Postgres are other processes)'),
    `${name}: p50 by example (throughput run): ${[...byExample].map(([example, l]) => `${example} ${ms(percentile(l, 0.5))} ms`).join(', ')}`,
  ];
  for (const [label, floor] of [
    ['bus floor', part.bus],
    ['raw floor', part.raw],
  ] as const) {
    if (!floor) continue;
    out.push(
      `${part.transport} ${label}: the same ${floor.m} messages, no-op handler, ${BATCH === 1 ? 'one per transaction/send' : `${BATCH} per transaction/send`}: consumed after ${ms(floor.totalMs)} ms = ${ms(
        floor.totalMs / n,
      )} ms per ticket; hop p50 ${ms(percentile(floor.latency, 0.5))} ms, p95 ${ms(percentile(floor.latency, 0.95))} ms (${floor.n} sequential messages)`,
    );
  }
  return out;
}

export function report(parts: Part[], examples: string[], notes: string[], failures: string[]): void {
  const out: string[] = ['', '== pipeline benchmark =='];
  out.push(`machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${os.platform()} ${os.arch()}, node ${process.version}`);
  out.push('chain: intake -> router -> evidence -> provider-executor (replay, bundled recordings) -> router reconcile -> run.published; all six roles in this process, built-in engine, tracing without exporter');
  out.push(`tickets: cycling ${examples.join(', ')}; each copy under its own ticket key`);
  const sizeLines: string[] = [];
  for (const part of parts) if (part.pipeline) sizeLines.push(`${part.transport} ${sizesOf(part.pipeline)}`);
  out.push(`sizes: ${sizeLines.join('; ') || 'none'}${QUICK ? '; BENCH_QUICK=1' : ''}${SKIP_KAFKA ? '; BENCH_SKIP_KAFKA=1' : ''}`);
  out.push(
    `floors (bench/bus): throughput run = the chain messages of the pipeline's throughput run, batch ${BATCH}; latency run in-process N=${MEM.n}, kafka N=${KAFKA.n}; "hops x hop" = chain messages per ticket x sequential per-hop p50`,
  );
  out.push('');
  const rows = [['transport', 'subject', 'p50 ms', 'p95 ms', 'tickets/s']];
  const ratios: string[] = [];
  const more: string[] = [];
  for (const part of parts) {
    const p = part.pipeline;
    if (!p) continue;
    const floors = [floorPerTicket('bus floor', part.bus, p), floorPerTicket('raw floor', part.raw, p)].filter((f): f is FloorPerTicket => f !== undefined);
    rows.push(...pipelineRows(part, p, floors));
    const perTicket = p.wallMs / p.loaded.length;
    for (const f of floors) {
      ratios.push(
        `${part.transport} pipeline/${f.label.replace(' ', '-')}: per ticket ${ratio(perTicket / f.perTicket)} (${ms(perTicket)} ms vs ${ms(f.perTicket)} ms), unloaded p50 ${ratio(
          percentile(latencies(p.unloaded), 0.5) / f.p50,
        )}`,
      );
    }
    more.push(...details(part, p));
  }
  out.push(rows.length > 1 ? table(rows) : '(no results)');
  if (ratios.length > 0) out.push('', ...ratios);
  if (more.length > 0) out.push('', 'details:', ...more.map((d) => `  ${d}`));
  const allNotes = [...new Set([...notes, ...parts.flatMap((p) => p.notes)])];
  const allFailures = [...failures, ...parts.flatMap((p) => p.failures)];
  if (allNotes.length > 0 || allFailures.length > 0) out.push('');
  for (const n of allNotes) out.push(n);
  for (const f of allFailures) out.push(`FAILED: ${f}`);
  process.stdout.write(`${out.join('\n')}\n`);
}
