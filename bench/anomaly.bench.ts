// `npm run bench:anomaly`: the generic anomaly ranking (`scoreAnomaly`, rule robust-shift-v2, a
// change point per series) against the rule it replaced (robust-z-v1: fixed split at the middle of
// the window, score of the most deviating later point, re-implemented below), in the same run on
// the same seeded cases:
// 1. top-1 root-cause accuracy by fault start: synthetic cases of 20–50 series (noise gauges,
//    daily-like sines, random walks, counters read through a 5-minute rate, integer gauges; a
//    healthy series carries one single-sample spike 1 time in 5), one of them faulty (step, ramp
//    or multiplicative level shift, at least 6 noise sigmas, from 10 % to 90 % of the window). A
//    case is a hit when the faulty series scores strictly highest. Also by fault kind, without the
//    spikes, and how often the faulty series itself reaches the threshold;
// 2. false alarms: the share of fault-free windows with any series at or above the threshold (and
//    the mean share of series), on the same generators (also by window shape) and on the normal
//    rows of DBSherlock TPC-C (../shared/datasets), for both rules and for a stricter alarm
//    (v2 plus a minimum relative effect and duration);
// 3. cost: time per series of both rules, as a ratio.
// Figures only, no assertions. `BENCH_QUICK=1` for a smaller run (a few seconds).
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { ANOMALY_SCORING_VERSION, ANOMALY_Z_THRESHOLD, scoreAnomaly, type TimedValue } from '@aoc/providers';
import { prng } from '../tools/launcher/src/diagnosis-bench/scenarios';

const QUICK = process.env['BENCH_QUICK'] === '1';
const CASES_PER_FRACTION = QUICK ? 12 : 400;
const CLEAN_WINDOWS = QUICK ? 40 : 1000;
const SEED = 20261120;
/** First DBSherlock row after the idle start of every case (the workload starts at row 10–12). */
const WARM_FROM_ROW = 16;
const DBSHERLOCK = join(__dirname, '..', '..', 'shared', 'datasets', 'dbsherlock-tpcc16');

type Scorer = (points: readonly TimedValue[]) => number | null;

/**
 * The midpoint reference, robust-z-v1 as it was (called without a window, as here for both
 * rules): baseline = the points before the middle of the series' span (at least 5), score =
 * |robust z| of the most deviating later point. Only the score is needed here.
 */
function midpointScore(points: readonly TimedValue[]): number | null {
  const kept = points.filter(([t, v]) => Number.isFinite(t) && Number.isFinite(v)).sort((a, b) => a[0] - b[0]);
  if (kept.length < 8) return null;
  const splitAt = kept[0][0] + 0.5 * (kept[kept.length - 1][0] - kept[0][0]);
  const firstLater = kept.findIndex(([t]) => t >= splitAt);
  const cut = Math.max(5, firstLater === -1 ? kept.length : firstLater);
  if (kept.length - cut < 3) return null;
  const mid = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const base = kept.slice(0, cut).map(([, v]) => v);
  const center = mid(base);
  const level = center !== 0 ? Math.abs(center) : Math.max(...kept.map(([, v]) => Math.abs(v)));
  const scale = Math.max(1.4826 * mid(base.map((v) => Math.abs(v - center))), 0.01 * level, 1e-12);
  let worst = 0;
  for (let i = cut; i < kept.length; i++) worst = Math.max(worst, Math.abs(kept[i][1] - center) / scale);
  return Math.floor(worst * 10 + 1e-9) / 10;
}

const RULES: { name: string; score: Scorer }[] = [
  { name: 'midpoint (robust-z-v1)', score: midpointScore },
  { name: `per-series split (${ANOMALY_SCORING_VERSION})`, score: (p) => scoreAnomaly(p).anomalyScore },
];

/** Seeded draws on mulberry32. */
class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = prng(seed);
  }
  uniform(lo = 0, hi = 1): number {
    return lo + (hi - lo) * this.next();
  }
  int(lo: number, hi: number): number {
    return Math.floor(this.uniform(lo, hi + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)];
  }
  normal(): number {
    return Math.sqrt(-2 * Math.log(1 - this.next())) * Math.cos(2 * Math.PI * this.next());
  }
  /** Poisson: Knuth below 30, a rounded normal above. */
  poisson(mean: number): number {
    if (mean > 30) return Math.max(0, Math.round(mean + Math.sqrt(mean) * this.normal()));
    const limit = Math.exp(-mean);
    let k = 0;
    for (let p = this.next(); p > limit; p *= this.next()) k++;
    return k;
  }
}

/** Window shapes a Prometheus range query returns: points and step (1 h at 60/30/15 s, 3 h and 6 h at 30 s). */
const WINDOWS = [
  { points: 60, step: 60 },
  { points: 120, step: 30 },
  { points: 240, step: 15 },
  { points: 360, step: 30 },
  { points: 720, step: 30 },
];
const KINDS = ['noise', 'sine', 'walk', 'rate', 'integer'] as const;
type Kind = (typeof KINDS)[number];
const FAULTS = ['step', 'ramp', 'level'] as const;
type Fault = (typeof FAULTS)[number];

interface FaultSpec {
  fault: Fault;
  /** Index of the first faulty point. */
  start: number;
  /** +1 up, −1 down. */
  sign: number;
  /** Step size or ramp height in noise sigmas; level factor for `level`. */
  size: number;
}

/**
 * One series of `kind` over `points` samples `step` seconds apart, with the fault applied when
 * given (a level shift of a counter changes the counter's rate, so the 5-minute rate ramps into it).
 */
function generate(rng: Rng, kind: Kind, points: number, step: number, t0: number, fault?: FaultSpec, spikes = true): TimedValue[] {
  const times = Array.from({ length: points }, (_, i) => t0 + i * step);
  let values: number[];
  let sigma: number;
  const level = 10 ** rng.uniform(0, 3);
  const after = (i: number) => fault !== undefined && i >= fault.start;
  if (kind === 'rate') {
    const window = Math.max(1, Math.round(300 / step));
    const perSecond = 10 ** rng.uniform(-1, 3);
    const factor = levelFactor(fault, Math.sqrt(perSecond / (window * step)) / perSecond);
    const counts: number[] = [0];
    for (let i = -window; i < points; i++) counts.push(counts[counts.length - 1] + rng.poisson(perSecond * step * (after(i) ? factor : 1)));
    values = times.map((_, i) => (counts[i + window + 1] - counts[i + 1]) / (window * step));
    sigma = Math.sqrt(perSecond / (window * step));
  } else if (kind === 'integer') {
    const mean = rng.uniform(1, 40);
    const factor = levelFactor(fault, 1 / Math.sqrt(mean));
    values = times.map((_, i) => rng.poisson(mean * (after(i) ? factor : 1)));
    sigma = Math.sqrt(mean);
  } else {
    sigma = level * rng.uniform(0.01, 0.1);
    const amplitude = level * rng.uniform(0.1, 0.5);
    const period = 86400 * rng.uniform(0.8, 1.2);
    const phase = rng.uniform(0, 2 * Math.PI);
    const drift = sigma * rng.uniform(0.05, 0.2);
    let walk = 0;
    values = times.map((t) => {
      walk += drift * rng.normal();
      const base = kind === 'sine' ? level + amplitude * Math.sin((2 * Math.PI * t) / period + phase) : kind === 'walk' ? level + walk : level;
      return base + sigma * rng.normal();
    });
    const factor = levelFactor(fault, sigma / level);
    values = values.map((v, i) => (after(i) ? v * factor : v));
  }
  if (fault && fault.fault !== 'level') {
    const span = Math.max(1, points - 1 - fault.start);
    values = values.map((v, i) => (after(i) ? v + fault.sign * fault.size * sigma * (fault.fault === 'step' ? 1 : (i - fault.start + 1) / span) : v));
  }
  // A healthy series sometimes carries one single-sample spike (drawn always, so a run without
  // spikes sees the same series otherwise).
  const spiked = rng.uniform() < 0.2;
  const at = rng.int(0, points - 1);
  const height = sigma * rng.uniform(5, 30) + Math.abs(values[at]) * rng.uniform(0, 1);
  if (!fault && spikes && spiked) values[at] += height;
  return times.map((t, i) => [t, values[i]] as const);
}

/**
 * The factor of a level shift (1 for other faults): the drawn factor, pushed to a shift of at least
 * 6 noise sigmas (`relativeNoise` = sigma / level), so a root cause is always plain to see.
 */
function levelFactor(fault: FaultSpec | undefined, relativeNoise: number): number {
  if (fault?.fault !== 'level') return 1;
  const least = 6 * relativeNoise;
  if (fault.sign < 0 && 1 - least >= 0.05) return Math.min(fault.size, 1 - least);
  return Math.max(fault.sign < 0 ? 1 / fault.size : fault.size, 1 + least);
}

function randomFault(rng: Rng, points: number, fraction: number): FaultSpec {
  const fault = rng.pick(FAULTS);
  const sign = rng.uniform() < 0.7 ? 1 : -1;
  const size = fault === 'step' ? rng.uniform(6, 20) : fault === 'ramp' ? rng.uniform(10, 30) : sign > 0 ? rng.uniform(1.5, 3) : rng.uniform(0.3, 0.67);
  return { fault, start: Math.round(fraction * points), sign, size };
}

interface Case {
  series: TimedValue[][];
  /** Index of the faulty series, -1 in a fault-free window. */
  faulty: number;
  fault: Fault | null;
}

function makeCase(rng: Rng, fraction: number | null, spikes = true): Case {
  const { points, step } = rng.pick(WINDOWS);
  const count = rng.int(20, 50);
  const faulty = fraction === null ? -1 : rng.int(0, count - 1);
  const spec = fraction === null ? undefined : randomFault(rng, points, fraction);
  const t0 = 1763632800 + rng.int(0, 86400 * 30);
  const series = Array.from({ length: count }, (_, i) => generate(rng, rng.pick(KINDS), points, step, t0, i === faulty ? spec : undefined, spikes));
  return { series, faulty, fault: spec?.fault ?? null };
}

function isHit(scores: (number | null)[], faulty: number): boolean {
  const own = scores[faulty] ?? -Infinity;
  return scores.every((s, i) => i === faulty || (s ?? -Infinity) < own);
}

/**
 * The stricter alarm reported beside the rule (not the rule itself): a score at or above the
 * threshold whose shift also moved the median by at least 10 % of the baseline median (any shift
 * from a baseline median of 0) and lasts at least 10 points.
 */
function strictAlarm(points: readonly TimedValue[]): boolean {
  const s = scoreAnomaly(points);
  if ((s.anomalyScore ?? 0) < ANOMALY_Z_THRESHOLD || s.shiftAt === null || s.baselineMedian === null || s.recentMedian === null) return false;
  const from = Date.parse(s.shiftAt) / 1000;
  const recent = points.filter(([t, v]) => t >= from && Number.isFinite(v)).length;
  return recent >= 10 && Math.abs(s.recentMedian - s.baselineMedian) >= 0.1 * Math.abs(s.baselineMedian);
}

const ALARMS: { name: string; alarm: (points: readonly TimedValue[]) => boolean }[] = [
  ...RULES.map((rule) => ({ name: rule.name, alarm: (p: readonly TimedValue[]) => (rule.score(p) ?? 0) >= ANOMALY_Z_THRESHOLD })),
  { name: `${ANOMALY_SCORING_VERSION} + strict alarm`, alarm: strictAlarm },
];

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const cell = (x: number, width: number) => x.toFixed(3).padStart(width);

function accuracyTables(): string[] {
  const lines = [
    `1. top-1 accuracy by fault start (${CASES_PER_FRACTION} cases per fraction, 20–50 series each, ~1/3 each step/ramp/level shift)`,
    `   healthy series carry a single-sample spike 1 time in 5; "no spikes": the same cases without them`,
    `   the alarm columns: share of faulty series scoring >= ${ANOMALY_Z_THRESHOLD} (v2, and v2 with the strict alarm of section 2)`,
    `   start | midpoint  ${ANOMALY_SCORING_VERSION} | by fault, midpoint: step  ramp level | by fault, v2: step  ramp level | no spikes: midpoint   v2 | alarm: v2 strict`,
  ];
  for (let f = 1; f <= 9; f++) {
    const hits = RULES.map(() => 0);
    const clean = RULES.map(() => 0);
    const byFault = RULES.map(() => FAULTS.map(() => ({ hit: 0, all: 0 })));
    const alarmed = [0, 0];
    for (const spikes of [true, false]) {
      // The same seed for both passes: the same windows, kinds and faults, spikes on or off.
      const rng = new Rng(SEED + f);
      for (let c = 0; c < CASES_PER_FRACTION; c++) {
        const { series, faulty, fault } = makeCase(rng, f / 10, spikes);
        RULES.forEach((rule, r) => {
          const hit = isHit(series.map((s) => rule.score(s)), faulty);
          if (!spikes) {
            if (hit) clean[r]++;
            return;
          }
          if (hit) hits[r]++;
          const slot = byFault[r][FAULTS.indexOf(fault as Fault)];
          slot.all++;
          if (hit) slot.hit++;
        });
        if (spikes) [ALARMS[1], ALARMS[2]].forEach((a, i) => (alarmed[i] += a.alarm(series[faulty]) ? 1 : 0));
      }
    }
    const rate = (x: number) => x / CASES_PER_FRACTION;
    const faults = (r: number) => byFault[r].map((b) => cell(b.all ? b.hit / b.all : NaN, 5)).join(' ');
    lines.push(
      `   ${String(f * 10).padStart(3)} % | ${cell(rate(hits[0]), 8)} ${cell(rate(hits[1]), 15)} |                    ${faults(0)} |              ${faults(1)} |      ${cell(rate(clean[0]), 8)} ${cell(rate(clean[1]), 5)} |  ${cell(rate(alarmed[0]), 5)} ${cell(rate(alarmed[1]), 6)}`,
    );
  }
  return lines;
}

/** Share of windows with any series raising each alarm, and the mean share of series raising it. */
function alarmRates(windows: Iterable<TimedValue[][]>): { windows: number; anyOver: number[]; seriesOver: number[] } {
  const anyOver = ALARMS.map(() => 0);
  const seriesOver = ALARMS.map(() => 0);
  let count = 0;
  for (const window of windows) {
    count++;
    ALARMS.forEach((a, r) => {
      const over = window.filter((s) => a.alarm(s)).length;
      if (over > 0) anyOver[r]++;
      seriesOver[r] += window.length ? over / window.length : 0;
    });
  }
  return { windows: count, anyOver: anyOver.map((x) => x / count), seriesOver: seriesOver.map((x) => x / count) };
}

function alarmLines(title: string, rates: ReturnType<typeof alarmRates>): string[] {
  return [title, ...ALARMS.map((a, r) => `   ${a.name.padEnd(36)} windows with any alarm: ${pct(rates.anyOver[r]).padStart(7)}   mean share of series alarmed: ${pct(rates.seriesOver[r]).padStart(7)}`)];
}

function* cleanWindows(): Generator<TimedValue[][]> {
  const rng = new Rng(SEED);
  for (let w = 0; w < CLEAN_WINDOWS; w++) yield makeCase(rng, null).series;
}

/** The synthetic false-alarm rate of each rule by window shape (the same windows as 2a). */
function alarmsByWindow(): string[] {
  const counts = WINDOWS.map(() => ({ windows: 0, alarmed: ALARMS.map(() => 0) }));
  for (const window of cleanWindows()) {
    const slot = counts[WINDOWS.findIndex((w) => w.points === window[0].length)];
    slot.windows++;
    ALARMS.forEach((a, r) => (slot.alarmed[r] += window.some((s) => a.alarm(s)) ? 1 : 0));
  }
  return [
    `   by window (points x step): ${ALARMS.map((a) => a.name).join(' / ')}`,
    ...WINDOWS.map((w, i) => `   ${String(w.points).padStart(4)} x ${w.step} s (${(w.points * w.step) / 3600} h, ${counts[i].windows} windows): ${counts[i].alarmed.map((x) => pct(x / counts[i].windows)).join(' / ')}`),
  ];
}

interface ManifestCase {
  file: string;
  rows: number;
  normalRows: number[];
  abnormalRows: number[];
}

/**
 * Every maximal run of at least 20 normal rows of every DBSherlock case, each numeric column a
 * series; rows before `fromRow` are left out (every case starts with 9–11 idle seconds before the
 * TPC-C workload starts, labelled normal: a real level shift in most columns).
 */
function* dbsherlockWindows(fromRow: number): Generator<TimedValue[][]> {
  const manifest = JSON.parse(readFileSync(join(DBSHERLOCK, 'manifest.json'), 'utf8')) as { cases: ManifestCase[] };
  // BENCH_QUICK=1 reads every fourth case.
  for (const c of manifest.cases.filter((_, i) => !QUICK || i % 4 === 0)) {
    const [header, ...rows] = readFileSync(join(DBSHERLOCK, c.file), 'utf8').trim().split('\n');
    const columns = header.split(',');
    const epoch = columns.indexOf('Epoch');
    const table = rows.map((line) => line.split(',').map(Number));
    const abnormal = new Set(c.abnormalRows);
    const normal = c.normalRows.length ? new Set(c.normalRows) : null;
    const isNormal = (row: number) => row >= fromRow && (normal ? normal.has(row) : !abnormal.has(row));
    let run: number[] = [];
    const flush = function* (): Generator<TimedValue[][]> {
      if (run.length >= 20) yield columns.map((_, col) => col).filter((col) => col !== epoch).map((col) => run.map((row) => [table[row - 1][epoch], table[row - 1][col]] as const));
      run = [];
    };
    for (let row = 1; row <= table.length; row++) {
      if (isNormal(row)) run.push(row);
      else yield* flush();
    }
    yield* flush();
  }
}

function costLines(): string[] {
  const lines = ['3. cost per series (median of 5 rounds)'];
  for (const points of [240, 11000]) {
    const rng = new Rng(SEED + points);
    const count = QUICK ? (points > 1000 ? 20 : 400) : points > 1000 ? 100 : 2000;
    const series = Array.from({ length: count }, (_, i) => generate(rng, KINDS[i % KINDS.length], points, 15, 1763632800, i % 2 ? randomFault(rng, points, rng.uniform(0.1, 0.9)) : undefined));
    const perSeries = RULES.map((rule) => {
      const rounds: number[] = [];
      for (let round = 0; round < 5; round++) {
        const started = performance.now();
        for (const s of series) rule.score(s);
        rounds.push((performance.now() - started) / count);
      }
      return rounds.sort((a, b) => a - b)[2];
    });
    lines.push(`   ${String(points).padStart(5)} points: ${RULES.map((rule, r) => `${rule.name} ${(perSeries[r] * 1000).toFixed(1)} µs`).join(', ')} -> ratio x${(perSeries[1] / perSeries[0]).toFixed(2)}`);
  }
  return lines;
}

function main(): void {
  const out = (lines: string[]) => process.stdout.write(lines.join('\n') + '\n');
  out([`machine: ${cpus().length} CPUs, node ${process.version}; seed ${SEED}; threshold ${ANOMALY_Z_THRESHOLD}${QUICK ? ' (BENCH_QUICK=1)' : ''}`]);
  out(accuracyTables());
  out(alarmLines(`2a. false alarms (any series >= ${ANOMALY_Z_THRESHOLD}), synthetic fault-free windows (${CLEAN_WINDOWS} windows, 20–50 series each)`, alarmRates(cleanWindows())));
  out(alarmsByWindow());
  if (existsSync(join(DBSHERLOCK, 'manifest.json'))) {
    const real = alarmRates(dbsherlockWindows(1));
    out(alarmLines(`2b. false alarms, DBSherlock TPC-C normal rows (${real.windows} windows of >= 20 contiguous normal rows, every numeric column a series)`, real));
    const warm = alarmRates(dbsherlockWindows(WARM_FROM_ROW));
    out(alarmLines(`2c. the same from row ${WARM_FROM_ROW} on, after the workload start (${warm.windows} windows)`, warm));
  } else out([`2b. DBSherlock data set not found at ${DBSHERLOCK}: skipped`]);
  out(costLines());
}

main();
