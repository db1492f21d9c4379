// `npm run lab:record`: records the incident lab's cases (docs/incident-lab.md). Starts the lab
// (deploy/lab/lab.sh up), then per lane (Postgres, MariaDB; the two run side by side) and case:
// clean state, the application's workload, the fault at its onset, statistics snapshots at the
// end, and the case file bench/lab/cases/<id>.json.gz (series and logs stretched into case time).
//
//   npm run lab:record                       # every case not recorded yet
//   npm run lab:record -- --only 'pg-dead'   # ids matching a regex (re-records them)
//   npm run lab:record -- --lane postgres    # one lane only
//   npm run lab:record -- --rewrite          # committed cases: tickets and log sanitising again, nothing recorded
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { LAB_CASES_DIR, LabCase, caseStartMs, loadLabCases, toCaseMs, type Stretch } from '../launcher/src/diagnosis-bench/lab-case';
import { seedOf } from '../launcher/src/diagnosis-bench/scenarios';
import { CASE_REAL_S, LOG_DIR, ONSET_REAL_S, PRELUDE_REAL_S, RECOVERED_AFTER_REAL_S, TIME_SCALE, WINDOW_REAL_S } from './config';
import { errorText, lab, run, sleep, type Handle } from './db';
import { MY_FAULTS, MY_HERRINGS } from './faults-my';
import { PG_FAULTS, PG_HERRINGS } from './faults-pg';
import { fileSize, sliceLog } from './logs';
import { isRecordDump, sanitiseLogLine } from './sanitize';
import { dropMySessions, myApp, resetMariadb, setupMariadb, snapshotMariadb } from './mariadb';
import { ALSO_ACCEPT, MODE_FAMILIES, PLAN, type CasePlan } from './plan';
import { dropSessions, pgApp, PG_BIN, resetPostgres, setupPostgres, snapshotPostgres } from './postgres';
import { exportSeries, LATE_SCALED, LATE_TIMESTAMPS, setLaneCluster, STRETCH_VERSION } from './prometheus';
import { writeTicket } from './tickets';

const T0 = Date.now();
function say(line: string): void {
  process.stdout.write(`[lab:record ${new Date().toISOString().slice(11, 19)} +${Math.round((Date.now() - T0) / 1000)}s] ${line}\n`);
}

const sleepUntil = (ms: number) => sleep(Math.max(0, ms - Date.now()));

/** Waits for `p`, at most `ms`; a fault stuck on a terminated session must not stop the lane. */
async function bounded(p: Promise<unknown>, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p.catch((e: unknown) => say(`${what}: ${errorText(e)}`)), new Promise((r) => (timer = setTimeout(() => r(say(`${what}: still running after ${ms / 1000} s, left behind`)), ms)))]);
  clearTimeout(timer);
}

async function binaryVersions(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, cmd, args] of [
    ['postgres', `${PG_BIN}/postgres`, ['--version']],
    ['mariadb', 'mariadbd', ['--version']],
    ['prometheus', 'prometheus', ['--version']],
    ['postgres_exporter', 'prometheus-postgres-exporter', ['--version']],
    ['mysqld_exporter', 'prometheus-mysqld-exporter', ['--version']],
    ['node_exporter', 'prometheus-node-exporter', ['--version']],
  ] as const) {
    // Some print their version on stderr.
    const text = await run('sh', ['-c', `${cmd} ${args.join(' ')} 2>&1`], 10_000).catch((e: unknown) => errorText(e));
    const m = /(\d+\.\d+(?:\.\d+)?(?:-MariaDB)?)/.exec(text);
    out[name] = m ? m[1] : 'unknown';
  }
  return out;
}

/** The case's cutoff: a whole minute in working hours of the recording day, varied by case. */
export function caseCutoffMs(id: string, recordedMs: number): number {
  const seed = seedOf(id);
  const day = Math.floor(recordedMs / 86400_000) * 86400_000;
  return day + (9 + (seed % 9)) * 3600_000 + ((seed >>> 4) % 60) * 60_000;
}

function ticketKey(p: CasePlan): string {
  const n = Number(p.cluster.slice(-2));
  return `LAB-${(p.engine === 'postgres' ? 3100 : 5200) + n * 17}`;
}

async function recordCase(p: CasePlan, versions: Record<string, string>): Promise<void> {
  const pg = p.engine === 'postgres';
  const faults = pg ? PG_FAULTS : MY_FAULTS;
  const herrings = pg ? PG_HERRINGS : MY_HERRINGS;
  const inject = p.mode === 'healthy' ? null : faults[p.mode];
  if (p.mode !== 'healthy' && !inject) throw new Error(`${p.id}: no ${p.engine} fault for ${p.mode}`);
  const herring = p.redHerring ? herrings[p.redHerring] : null;
  if (p.redHerring && !herring) throw new Error(`${p.id}: no ${p.engine} red herring ${p.redHerring}`);

  await (pg ? resetPostgres() : resetMariadb());
  await setLaneCluster(p.engine, p.cluster);
  const app = pg ? pgApp() : myApp();
  await sleep(3000);
  const logs = pg
    ? [
        { path: join(LOG_DIR, 'pg-a.log'), labels: { cluster: p.cluster, job: 'postgres', instance: `${p.cluster}-a`, role: 'primary' } },
        { path: join(LOG_DIR, 'pg-b.log'), labels: { cluster: p.cluster, job: 'postgres', instance: `${p.cluster}-b`, role: 'replica' } },
      ]
    : [{ path: join(LOG_DIR, 'mariadb-error.log'), labels: { cluster: p.cluster, job: 'mysql', instance: `${p.cluster}-a`, role: 'primary' } }];
  const offsets = logs.map((l) => fileSize(l.path));
  const t0 = Date.now();
  const handles: Handle[] = [];
  let faultStart: number | null = null;
  let faultEnd: number | null = null;
  const selfEnding = p.mode === 'restart' || p.mode === 'failover';

  const faultTask = (async () => {
    if (!inject || !p.onset) return;
    await sleepUntil(t0 + ONSET_REAL_S[p.onset] * 1000);
    faultStart = Date.now();
    say(`${p.id}: fault ${p.mode} (${p.intensity}) injected`);
    const h = await inject(p.intensity);
    if (selfEnding) {
      faultEnd = Date.now();
      return;
    }
    if (!p.recovered) return void handles.push(h);
    await sleepUntil(faultStart + RECOVERED_AFTER_REAL_S * 1000);
    await h.stop();
    faultEnd = Date.now();
    say(`${p.id}: fault ended`);
  })();
  // The red herring takes the part of the window the fault does not start in.
  const herringAt = p.onset === 'middle' || p.onset === 'late' ? PRELUDE_REAL_S + 10 : PRELUDE_REAL_S + 55;
  const herringTask = (async () => {
    if (!herring) return;
    await sleepUntil(t0 + herringAt * 1000);
    const h = await herring('low');
    await sleepUntil(t0 + (herringAt + 25) * 1000);
    await h.stop();
  })();

  await sleepUntil(t0 + CASE_REAL_S * 1000);
  const statements = pg ? await snapshotPostgres() : await snapshotMariadb();
  const realEnd = Date.now();
  await sleep(1500); // the last scrape lands
  const caseEnd = caseCutoffMs(p.id, realEnd);
  const stretch: Stretch = { realStartMs: t0, realEndMs: realEnd, scale: TIME_SCALE, caseEndMs: caseEnd };
  const series = await exportSeries(p.cluster, stretch);

  // Stop flags first, then end the sessions the stopped loops may be blocked in, then wait.
  const stops = [app.stop(), ...handles.map((h) => h.stop())];
  await (pg ? dropSessions() : dropMySessions()).catch(() => undefined);
  await bounded(Promise.all(stops), 30_000, `${p.id}: stopping`);
  await bounded(faultTask, 30_000, `${p.id}: fault task`);
  await bounded(herringTask, 30_000, `${p.id}: red herring task`);

  const lines = logs.flatMap((l, i) => sliceLog(l.path, offsets[i], pg ? 'postgres' : 'mariadb', stretch, l.labels)).sort((a, b) => a.t - b.t);
  const iso = (ms: number | null) => (ms === null ? null : new Date(Math.round(toCaseMs(stretch, ms) / 1000) * 1000).toISOString().replace('.000Z', 'Z'));
  const start = caseStartMs(stretch);
  const windowStartMs = caseEnd - WINDOW_REAL_S * TIME_SCALE * 1000;
  const noticed = faultStart === null ? (p.mode === 'healthy' ? windowStartMs + 35 * 60_000 : null) : toCaseMs(stretch, faultStart);
  const kase = {
    id: p.id,
    engine: p.engine,
    cluster: p.cluster,
    mode: p.mode,
    variant: { intensity: p.intensity, onset: p.onset, redHerring: p.redHerring },
    recorded: { at: new Date(t0).toISOString(), durationRealS: Math.round((realEnd - t0) / 100) / 10, timeScale: TIME_SCALE, caseStart: new Date(Math.round(start)).toISOString(), versions },
    truth: {
      mode: p.mode,
      state: p.mode === 'healthy' ? 'healthy' : p.recovered ? 'recovered' : 'active',
      faultStart: iso(faultStart),
      faultEnd: p.recovered ? iso(faultEnd ?? realEnd) : null,
      families: MODE_FAMILIES[p.mode],
      alsoAcceptModes: ALSO_ACCEPT[p.mode] ?? [],
    },
    ticket: writeTicket({ id: p.id, key: ticketKey(p), mode: p.mode, cluster: p.cluster, noticedMs: noticed, windowStartMs, cutoffMs: caseEnd }),
    series,
    logs: lines,
    statements,
  };
  const parsed = LabCase.safeParse(kase);
  mkdirSync(LAB_CASES_DIR, { recursive: true });
  if (!parsed.success) {
    writeFileSync(join(LAB_CASES_DIR, `${p.id}.invalid.json`), JSON.stringify(kase));
    throw new Error(`${p.id}: invalid case: ${parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const gz = gzipSync(JSON.stringify(parsed.data), { level: 9 });
  writeFileSync(join(LAB_CASES_DIR, `${p.id}.json.gz`), gz);
  say(`${p.id}: written (${series.length} series, ${lines.length} log lines, ${(gz.length / 1024).toFixed(0)} KiB)`);
}

async function runLane(cases: CasePlan[], versions: Record<string, string>): Promise<{ ok: number; failed: string[] }> {
  let ok = 0;
  const failed: string[] = [];
  for (const c of cases) {
    const started = Date.now();
    try {
      await recordCase(c, versions);
      ok++;
    } catch (error) {
      failed.push(c.id);
      say(`${c.id}: FAILED: ${errorText(error)}`);
    }
    say(`${c.id}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  return { ok, failed };
}

/** Cases of stretch version 1: the Unix-time gauges it left real (or stretched as ages) mapped into case time. */
export function mapLateTimestamps(c: LabCase): Pick<LabCase, 'series' | 'recorded'> {
  if (c.recorded.versions['lab-stretch'] === STRETCH_VERSION) return { series: c.series, recorded: c.recorded };
  const realStart = Date.parse(c.recorded.at);
  const caseStart = Date.parse(c.recorded.caseStart);
  const scale = c.recorded.timeScale;
  const series = c.series.map((s) => {
    if (!LATE_TIMESTAMPS.test(s.metric)) return s;
    const real = (v: number) => (LATE_SCALED.test(s.metric) ? v / scale : v);
    return { ...s, type: 'gauge' as const, v: s.v.map((v) => (v > 0 ? Math.round(caseStart / 1000 + (real(v) - realStart / 1000) * scale) : v)) };
  });
  return { series, recorded: { ...c.recorded, versions: { ...c.recorded.versions, 'lab-stretch': STRETCH_VERSION } } };
}

/** A committed case after a wording or sanitising change: its ticket written again from its truth, its log lines sanitised again; series untouched. */
export function rewriteCase(c: LabCase): LabCase {
  const cutoffMs = Date.parse(c.ticket.cutoff);
  const windowStartMs = cutoffMs - WINDOW_REAL_S * c.recorded.timeScale * 1000;
  const noticed = c.truth.faultStart ? Date.parse(c.truth.faultStart) : c.mode === 'healthy' ? windowStartMs + 35 * 60_000 : null;
  const logs = c.logs.filter((l) => !isRecordDump(l.line)).map((l) => ({ ...l, line: sanitiseLogLine(l.line) }));
  return LabCase.parse({ ...c, ...mapLateTimestamps(c), logs, ticket: writeTicket({ id: c.id, key: c.ticket.ticket.key, mode: c.mode, cluster: c.cluster, noticedMs: noticed, windowStartMs, cutoffMs }) });
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  if (argv.includes('--rewrite')) {
    const cases = loadLabCases();
    for (const c of cases) writeFileSync(join(LAB_CASES_DIR, `${c.id}.json.gz`), gzipSync(JSON.stringify(rewriteCase(c)), { level: 9 }));
    say(`${cases.length} cases rewritten (tickets, log sanitising)`);
    return 0;
  }
  const at = (flag: string) => (argv.indexOf(flag) >= 0 ? argv[argv.indexOf(flag) + 1] : undefined);
  const only = at('--only') ? new RegExp(at('--only') as string) : null;
  const laneArg = at('--lane');
  const pick = (cases: CasePlan[]) => cases.filter((c) => (only ? only.test(c.id) : !existsSync(join(LAB_CASES_DIR, `${c.id}.json.gz`))));
  const lanes = {
    postgres: laneArg && laneArg !== 'postgres' ? [] : pick(PLAN.postgres),
    mariadb: laneArg && laneArg !== 'mariadb' ? [] : pick(PLAN.mariadb),
  };
  say(`lab up; ${lanes.postgres.length} postgres + ${lanes.mariadb.length} mariadb cases, ${CASE_REAL_S} real s each, 1 real s = ${TIME_SCALE} case s`);
  say((await lab('up')).trim());
  await setupPostgres();
  await setupMariadb();
  const versions = { ...(await binaryVersions()), 'lab-stretch': STRETCH_VERSION };
  say(`versions: ${JSON.stringify(versions)}`);
  const [a, b] = await Promise.all([runLane(lanes.postgres, versions), runLane(lanes.mariadb, versions)]);
  say(`done: ${a.ok + b.ok} cases written, ${a.failed.length + b.failed.length} failed${a.failed.length + b.failed.length ? ` (${[...a.failed, ...b.failed].join(', ')})` : ''}`);
  if (!argv.includes('--keep-up')) say((await lab('down')).trim());
  return a.failed.length + b.failed.length === 0 ? 0 : 1;
}

if (require.main === module) {
  void main()
    .catch((error: unknown) => {
      say(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return 1;
    })
    .then((code) => process.exit(code));
}
