// `npm run bench:scale`: tickets per second through the six roles (processes from the build, on
// the local Kafka and Postgres, no faults) with one replica of every role and with N (2 by
// default), in interleaved rounds (1, N, 1, N, ...) so that background load on a shared machine
// falls on both alike. Each round: a fresh database, the roles started (replicas in their consumer
// groups), a few seconds idle, then SCALE_TICKETS tickets posted at once (spread over the router
// replicas) and timed from the first post until every run is published and judged (its execution
// and evaluation recorded by the reporter). Prints each round, the medians, the ratio N/1, and the
// CPU seconds of every role (all replicas), the broker and Postgres, so the report can say what
// limits throughput. Needs what `npm run chaos` needs, and the build (`npm run build`).
//
// Env: SCALE_TICKETS (24, at most 60), SCALE_ROUNDS (2 of each), SCALE_REPLICAS (2, at most 4),
// SCALE_IDLE_S (5), SCALE_TIMEOUT_S (600 per round), SCALE_DATABASE (aoc_scale, recreated each round).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { ROLES } from '@aoc/contracts';
import type { Pool } from 'pg';
import { rate, ratio, table } from '../../bench/bus/report';
import { formatDuration } from '../chaos/chaos-plan';
import { ROOT, loadExamples, waitFor } from '../chaos/processes';
import { RunObserver } from '../chaos/quiet';
import { ROLE_CLIENTS, RoleSet, TicketDesk, createAdminToken, ensurePostgres, openPool, recreateDatabase, refuseBusyGroups, restoreServices, servicesFound, skipRoleGroupsToEnd, startKafka, waitForInventory, type KafkaAccess } from '../chaos/stack';
import { cpuSnapshot, roundOrder, scaleSettings, summarize, ticksBetween, type CpuSnapshot, type RoundResult, type ScaleSettings } from './scale-plan';

const started = Date.now();
const progress = (line: string) => process.stderr.write(`[scale ${formatDuration(Date.now() - started)}] ${line}\n`);
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;
const CPUS = os.cpus().length;
const OTHERS = ['kafka', 'postgres', 'bench', 'other'];

/** The broker's JVM (kafka-start.sh's pid file) and every Postgres process (postmaster and backends). */
function servicePids(snapshot: CpuSnapshot): { kafka: number[]; postgres: number[] } {
  const pidFile = join(ROOT, 'deploy', 'local', '.kafka', 'kafka.pid');
  const kafka = existsSync(pidFile) ? [Number(readFileSync(pidFile, 'utf8').trim())].filter((p) => snapshot.pids.has(p)) : [];
  const postgres = [...snapshot.comm].filter(([, name]) => name === 'postgres').map(([pid]) => pid);
  return { kafka, postgres };
}

/** CPU seconds between two snapshots: each role (its replicas summed), the broker, Postgres, this process, and the rest of the machine. */
function cpuBetween(from: CpuSnapshot, to: CpuSnapshot, pids: Map<number, string>): { cpu: Record<string, number>; busy: number } {
  const services = servicePids(to);
  const cpu: Record<string, number> = {};
  for (const role of ROLES) cpu[role] = ticksBetween(from, to, [...pids].filter(([, r]) => r === role).map(([pid]) => pid)) / CLK_TCK;
  cpu['kafka'] = ticksBetween(from, to, services.kafka) / CLK_TCK;
  cpu['postgres'] = ticksBetween(from, to, services.postgres) / CLK_TCK;
  cpu['bench'] = ticksBetween(from, to, [process.pid]) / CLK_TCK;
  const busyTicks = to.machine.busy - from.machine.busy;
  const known = Object.values(cpu).reduce((a, b) => a + b, 0);
  cpu['other'] = Math.max(0, busyTicks / CLK_TCK - known);
  return { cpu, busy: busyTicks / Math.max(1, to.machine.total - from.machine.total) };
}

async function round(index: number, replicas: number, s: ScaleSettings, kafka: KafkaAccess, runDir: string): Promise<RoundResult> {
  const examples = loadExamples();
  const databaseUrl = await recreateDatabase(s.database);
  let pool: Pool | null = null;
  let roles: RoleSet | null = null;
  try {
    pool = openPool(databaseUrl);
    // The previous round's replicas left their groups when they stopped (SIGTERM): the groups must be empty to be moved.
    await waitFor('the role consumer groups to be empty', 60_000, async () => ((await kafka.inspector.groupsOfClients(ROLE_CLIENTS)).length === 0 ? true : undefined), 1000);
    await skipRoleGroupsToEnd(kafka.inspector);
    const token = createAdminToken(databaseUrl, `scale-${index}`);
    const set = await RoleSet.create(replicas, { databaseUrl, kafka, runDir: mkdtempSync(join(runDir, `round-${index}-`)), notify: progress });
    roles = set;
    await set.start();
    if ((await waitForInventory(pool)) === 0) progress('warning: no provider inventory reached the router');
    const keys = Array.from({ length: s.tickets }, (_, i) => ({ key: `SCALE-${index}-${i + 1}`, example: examples[i % examples.length] }));
    const byKey = new Map(keys.map((k) => [k.key, k.example]));
    const observer = new RunObserver(pool, kafka.inspector, (key) => byKey.get(key)?.expectJudged ?? false);
    // Every replica in every role group (a group rebalances as each joins).
    await waitFor(`${replicas} members in every role consumer group`, 60_000, async () => {
      const groups = await observer.discoverGroups();
      const members = await kafka.inspector.groupMembers(groups);
      return groups.length > 0 && groups.every((g) => members[g] === replicas) ? true : undefined;
    });
    const pids = new Map(set.all().map((p) => [p.pid as number, p.role] as const));

    const idleFrom = cpuSnapshot();
    await new Promise((r) => setTimeout(r, s.idleMs));
    const idleTo = cpuSnapshot();
    const idle = cpuBetween(idleFrom, idleTo, pids);

    const desk = new TicketDesk(set.of('router'), token);
    const from = cpuSnapshot();
    let to: CpuSnapshot = from;
    await Promise.all(keys.map((k) => desk.submit(k.example, k.key)));
    if (desk.refused.length > 0) throw new Error(`tickets refused: ${desk.refused.join('; ')}`);
    const quiet = await observer.waitQuiet({ timeoutMs: s.timeoutMs, accepted: () => keys.length, everyMs: 250, idleMs: 60_000, onComplete: () => (to = cpuSnapshot()) });
    if (quiet.outcome !== 'complete' || quiet.completeAt === null) throw new Error(`round ${index}: the runs did not all complete within ${s.timeoutMs / 1000} s (${quiet.outcome ?? 'timed out'})`);
    const unplanned = set.all().filter((p) => p.unplanned > 0);
    if (unplanned.length > 0) throw new Error(`round ${index}: ${unplanned.map((p) => p.name).join(', ')} exited on its own (see ${unplanned[0].logFile})`);
    const window = cpuBetween(from, to, pids);
    const seconds = (quiet.completeAt - from.at) / 1000;
    return { replicas, tickets: keys.length, seconds, cpu: window.cpu, busy: window.busy, idle: { cpu: idle.cpu, busy: idle.busy, seconds: (idleTo.at - idleFrom.at) / 1000 } };
  } finally {
    await roles?.stop();
    await pool?.end().catch(() => undefined);
  }
}

/** Right-aligns the numeric columns (bench/bus's table right-aligns columns 2 to 4 only). */
const numeric = (rows: string[][]): string[][] => {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r, i) => (i === 0 ? r : r.map((cell, c) => (c === 0 ? cell : cell.padStart(widths[c])))));
};
const secs = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');
const pct = (v: number) => (Number.isFinite(v) ? `${Math.round(v * 100)}%` : 'n/a');

function report(s: ScaleSettings, results: RoundResult[]): void {
  const summary = summarize(results);
  const n = s.replicas;
  const out: string[] = ['', '== scale benchmark =='];
  out.push(`machine: ${CPUS} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${os.platform()} ${os.arch()}, node ${process.version}, load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  out.push(`sizes: ${s.tickets} tickets per round posted at once, timed to the last run published and judged; rounds ${results.map((r) => r.replicas).join(',')} (replicas per role, interleaved); ${s.idleMs / 1000} s idle before each`);
  out.push('');
  const rows = [['replicas per role', 'rounds', 'tickets/s each round', 'median tickets/s', 'median s', 'cores busy']];
  for (const r of summary.replicas) {
    const rs = results.filter((x) => x.replicas === r);
    const m = summary.median.get(r);
    if (!m) continue;
    rows.push([String(r), String(rs.length), rs.map((x) => rate(x.tickets / x.seconds)).join(', '), rate(m.ticketsPerSecond), secs(m.seconds), pct(m.busy)]);
  }
  out.push(table(numeric(rows)));
  out.push('');
  out.push(`${n} replicas / 1 replica: throughput ${ratio(summary.ratio)} (median tickets/s; floor: one replica per role, measured in the same run)`);
  out.push('');
  const one = summary.median.get(1);
  const many = summary.median.get(n);
  if (one && many) {
    const cpuRows = [['CPU seconds (median)', `idle 1 (s/s)`, `idle ${n} (s/s)`, '1 replica', `${n} replicas`, `${n}/1`]];
    for (const k of [...ROLES, ...OTHERS]) cpuRows.push([k, (one.idleCpu[k] ?? 0).toFixed(3), (many.idleCpu[k] ?? 0).toFixed(3), secs(one.cpu[k] ?? 0), secs(many.cpu[k] ?? 0), ratio((many.cpu[k] ?? 0) / (one.cpu[k] ?? 0))]);
    const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
    cpuRows.push(['all', total(one.idleCpu).toFixed(3), total(many.idleCpu).toFixed(3), secs(total(one.cpu)), secs(total(many.cpu)), ratio(total(many.cpu) / total(one.cpu))]);
    out.push(table(numeric(cpuRows)));
    out.push('');
    out.push(`CPU per ticket (roles, broker, Postgres): ${one.cpuPerTicket.toFixed(2)} s with 1 replica, ${many.cpuPerTicket.toFixed(2)} s with ${n}; cores busy while measured: ${pct(one.busy)} and ${pct(many.busy)} of ${CPUS}; idle: ${pct(one.idleBusy)} and ${pct(many.idleBusy)}`);
    out.push('(idle: CPU seconds per second over the idle seconds before the tickets; role CPU sums the replicas; postgres is every postgres process on the machine; other is the rest of the machine)');
  }
  for (const r of results) out.push(`round: ${r.replicas} replica${r.replicas > 1 ? 's' : ''}, ${r.tickets} tickets in ${secs(r.seconds)} s = ${rate(r.tickets / r.seconds)} tickets/s, cores busy ${pct(r.busy)}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main(): Promise<number> {
  const s = scaleSettings(process.env);
  if (!existsSync(join(ROOT, 'dist', 'services', 'router', 'main.js'))) throw new Error('no build in dist/services: run npm run build first');
  const runDir = mkdtempSync(join(os.tmpdir(), 'aoc-scale-'));
  const opsLog = join(runDir, 'ops.log');
  const order = roundOrder(s);
  progress(`${order.length} rounds (${order.join(',')} replicas per role), ${s.tickets} tickets each, logs in ${runDir}`);
  const found = await servicesFound();
  let kafka: KafkaAccess | null = null;
  const results: RoundResult[] = [];
  try {
    await ensurePostgres(s.database, opsLog);
    kafka = await startKafka(found, opsLog, 'aoc-scale');
    await refuseBusyGroups(kafka.inspector);
    for (const [i, replicas] of order.entries()) {
      const r = await round(i + 1, replicas, s, kafka, runDir);
      results.push(r);
      progress(`round ${i + 1}/${order.length}: ${replicas} replica${replicas > 1 ? 's' : ''} per role, ${r.tickets} tickets in ${secs(r.seconds)} s = ${rate(r.tickets / r.seconds)} tickets/s, cores busy ${pct(r.busy)}`);
    }
    report(s, results);
    return 0;
  } finally {
    await kafka?.inspector.disconnect();
    await restoreServices(found, opsLog, progress);
    progress(`roles stopped; Kafka ${found.kafkaWasUp ? 'running' : 'stopped'} and Postgres ${found.pgWasUp ? 'running' : 'stopped'} as found; logs in ${runDir}`);
  }
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`bench:scale failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  })
  .then((code) => process.exit(code));
