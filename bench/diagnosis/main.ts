// Diagnosis benchmark: builds both suites, loads them into one real Prometheus, runs every ticket
// through the platform in live mode and prints the report (entry: bench/diagnosis.bench.ts).
import type { Platform } from '@aoc/launcher';
import type { FixtureSeries } from '@aoc/providers/testing';
import type { AnalyzeTicketRequest } from '@aoc/service-router';
import { sanitizeMetricName } from '@aoc/metric-ontology';
import {
  ROW_SECONDS,
  SYMPTOM_COLUMN,
  acceptedFamilies,
  assertDistinctClusters,
  caseNumber,
  caseTicket,
  convertCase,
  loadCauseMapping,
  loadManifest,
  readCase,
  suiteAStart,
  type ConvertedCase,
} from '../../tools/launcher/src/diagnosis-bench/dbsherlock';
import { DEFAULT_DATASET_DIR } from '../../tools/launcher/src/diagnosis-bench/paths';
import { referencePick, type ReferencePick } from '../../tools/launcher/src/diagnosis-bench/reference';
import { CASES_DIR, PRELUDE_MINUTES, SCENARIO_KINDS, expandCase, loadScenarioCases, suiteBAnchorDay, type ExpandedCase, type ScenarioCase } from '../../tools/launcher/src/diagnosis-bench/scenarios';
import { aggregate, byGroup, judge, targets, type CaseExpectation, type CaseResult } from '../../tools/launcher/src/diagnosis-bench/score';
import { intEnv } from '../bus/config';
import { errorText, labTarget, pool, prometheusTargets, runTicket, startLivePlatform, type EngineOutcome } from './engine';
import { labSections, runLab, selectLab, startLabBackends, type LabBackends, type LabResult, type LabSelection } from './lab';
import { startBenchPrometheus, type BenchPrometheus } from './prometheus';
import { aggregateTable, caseLines, evidenceLines, printReport, writeJson } from './report';

export interface BenchOptions {
  quick: boolean;
  json: string | null;
  concurrency: number;
  timeoutMs: number;
  suites: Set<Suite>;
  only: RegExp | null;
  datasetDir: string;
}

function positiveEnv(name: string, fallback: number): number {
  const n = intEnv(name, fallback);
  if (n === 0) throw new Error(`${name} must be positive`);
  return n;
}

export type Suite = 'A' | 'B' | 'L';
const SUITES: readonly Suite[] = ['A', 'B', 'L'];

export function optionsFrom(argv: readonly string[]): BenchOptions {
  const env = process.env;
  const jsonAt = argv.indexOf('--json');
  if (jsonAt >= 0 && !argv[jsonAt + 1]) throw new Error('--json needs a file path');
  const suites = new Set((env['BENCH_DIAGNOSIS_SUITES'] ?? 'A,B,L').split(',').map((s) => s.trim().toUpperCase()));
  for (const s of suites) if (!(SUITES as readonly string[]).includes(s)) throw new Error(`BENCH_DIAGNOSIS_SUITES: unknown suite "${s}" (A, B, L)`);
  return {
    quick: env['BENCH_QUICK'] === '1' || argv.includes('--quick'),
    json: jsonAt >= 0 ? argv[jsonAt + 1] : null,
    concurrency: positiveEnv('BENCH_DIAGNOSIS_CONCURRENCY', 4),
    timeoutMs: positiveEnv('BENCH_DIAGNOSIS_TIMEOUT_MS', 180_000),
    suites: suites as Set<Suite>,
    only: env['BENCH_DIAGNOSIS_ONLY'] ? new RegExp(env['BENCH_DIAGNOSIS_ONLY']) : null,
    datasetDir: env['BENCH_DBSHERLOCK_DIR'] || DEFAULT_DATASET_DIR,
  };
}

const T0 = Date.now();
export function progress(line: string): void {
  process.stderr.write(`[bench:diagnosis +${((Date.now() - T0) / 1000).toFixed(1)}s] ${line}\n`);
}

/** Quick mode: two cases per DBSherlock cause. */
export const QUICK_PER_CAUSE = 2;
/** Quick mode: the first suite-B case of each of these kinds (ten cases). */
export const QUICK_KINDS = ['connection-exhaustion', 'storage-full', 'replication-lag', 'cpu-saturation', 'lock-contention', 'failover-restart', 'healthy', 'red-herring', 'missing-metrics', 'no-cluster'] as const;

export function quickSuiteB(cases: readonly ScenarioCase[]): ScenarioCase[] {
  return QUICK_KINDS.map((k) => cases.find((c) => c.kind === k)).filter((c): c is ScenarioCase => c !== undefined);
}

interface Job {
  expect: CaseExpectation;
  request: AnalyzeTicketRequest;
  reference: () => ReferencePick | null;
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const options = optionsFrom(argv);
  const now = Date.now();
  const jobs: Job[] = [];
  const parts: { name: string; series: FixtureSeries[] }[] = [];
  const clusters: string[] = [];
  const notes: string[] = [];

  // Suite A: DBSherlock.
  let suiteA: ConvertedCase[] = [];
  if (options.suites.has('A')) {
    const mapping = loadCauseMapping();
    const perCause = new Map<string, number>();
    const manifest = loadManifest(options.datasetDir).filter((k) => {
      if (options.only && !options.only.test(k.case)) return false;
      const seen = perCause.get(k.cause) ?? 0;
      perCause.set(k.cause, seen + 1);
      return !options.quick || seen < QUICK_PER_CAUSE;
    });
    assertDistinctClusters(manifest.map((k) => k.case));
    const start = suiteAStart(now);
    suiteA = manifest.map((k) => convertCase(k, readCase(k, options.datasetDir), start));
    const symptom = new Set([sanitizeMetricName(SYMPTOM_COLUMN)]);
    for (const [i, c] of suiteA.entries()) {
      const kase = manifest[i];
      const request = caseTicket(c, `DBS-${caseNumber(c.id)}`);
      const window = { start: c.endSec - 3600, end: c.endSec };
      jobs.push({
        expect: { suite: 'A', id: c.id, cluster: c.cluster, group: c.cause, compound: c.kind === 'compound', families: acceptedFamilies(mapping, kase), decisions: ['human_required', 'internal_only'] },
        request,
        reference: () => referencePick(c.series, window, symptom),
      });
      clusters.push(c.cluster);
    }
    parts.push({ name: `suite A (${suiteA.length} DBSherlock cases)`, series: suiteA.flatMap((c) => c.series) });
    progress(`suite A: ${suiteA.length} cases converted (one row = ${ROW_SECONDS} s, starting ${new Date(start * 1000).toISOString()})`);
  }

  // Suite B: reviewed scenarios.
  let suiteB: ExpandedCase[] = [];
  if (options.suites.has('B')) {
    const all = loadScenarioCases(CASES_DIR);
    const chosen = (options.quick ? quickSuiteB(all) : all).filter((c) => !options.only || options.only.test(c.id));
    const anchor = suiteBAnchorDay(now);
    suiteB = chosen.map((c) => expandCase(c, anchor));
    for (const e of suiteB) {
      const x = e.case.expected;
      const window = { start: e.windowStartSec, end: e.cutoffSec };
      jobs.push({
        expect: {
          suite: 'B',
          id: e.case.id,
          cluster: e.cluster,
          group: e.case.kind,
          compound: false,
          families: [x.family, ...(x.alsoAccept ?? [])],
          decisions: [x.decision],
          state: x.state,
          redHerring: x.redHerring,
          mustMention: x.mustMention,
        },
        request: e.request,
        reference: () => (x.state === 'clarify' ? null : referencePick(e.series, window, new Set(e.symptomMetrics))),
      });
      clusters.push(e.cluster);
    }
    parts.push({ name: `suite B (${suiteB.length} scenarios)`, series: suiteB.flatMap((e) => e.series) });
    progress(`suite B: ${suiteB.length} of ${all.length} cases validated and expanded (moved to ${new Date(anchor).toISOString().slice(0, 10)}, ${PRELUDE_MINUTES} min of samples before each window)`);
  }
  // Suite L: the incident lab's recorded cases, in their own Prometheus with a Loki beside it.
  let lab: LabSelection | null = null;
  if (options.suites.has('L')) {
    lab = selectLab(now, options.quick, options.only);
    progress(`suite L: ${lab.cases.length} of ${lab.total} lab cases validated and moved (folds k = ${lab.k}, development ${[...lab.development].join(', ')})`);
  }
  if (jobs.length === 0 && !lab?.cases.length) throw new Error('no case selected (BENCH_DIAGNOSIS_SUITES / BENCH_DIAGNOSIS_ONLY)');

  let labBackends: LabBackends | null = null;
  let labResults: LabResult[] = [];
  let prom: BenchPrometheus | null = null;
  let platform: Platform | null = null;
  const timings: Record<string, number> = {};
  let results: CaseResult[] = [];
  let mode = '';
  try {
    let t = Date.now();
    if (jobs.length > 0) prom = await startBenchPrometheus(parts, progress);
    if (lab?.cases.length) labBackends = await startLabBackends(lab, progress);
    timings['prometheus'] = Date.now() - t;
    const configured = prom ? prometheusTargets(prom.baseUrl, clusters) : { mode: 'targetLabel' as const, targets: [] };
    mode = configured.mode;
    if (prom) progress(`prometheus ready at 127.0.0.1; generic package configured as ${mode === 'targetLabel' ? "one endpoint {name: 'bench', targetLabel: 'cluster'}" : `${configured.targets.length} legacy per-cluster targets (PrometheusTargetConfig has no targetLabel yet)`}`);
    t = Date.now();
    platform = await startLivePlatform(labBackends ? [...configured.targets, ...labBackends.targets.flatMap(labTarget)] : configured.targets);
    timings['platform'] = Date.now() - t;
    progress(`platform up (live evidence, built-in engine) in ${(timings['platform'] / 1000).toFixed(1)} s; ${jobs.length} tickets, ${options.concurrency} in flight, ${options.timeoutMs / 1000} s each at most`);
    t = Date.now();
    let done = 0;
    const live = platform;
    const outcomes: EngineOutcome[] = await pool(jobs, options.concurrency, async (job) => {
      const outcome = await runTicket(live, job.request, options.timeoutMs);
      done++;
      if (outcome.status !== 'published') progress(`${job.expect.id}: ${outcome.status}: ${outcome.error}`);
      if (done % 20 === 0 || done === jobs.length) progress(`${done}/${jobs.length} tickets answered`);
      return outcome;
    });
    if (lab && labBackends) {
      labResults = await runLab(live, lab, options.concurrency, options.timeoutMs, progress);
      progress(`suite L: the Loki API answered ${labBackends.loki.queries()} log queries`);
    }
    timings['tickets'] = Date.now() - t;
    results = jobs.map((job, i) => judge(job.expect, outcomes[i], job.reference()));
  } finally {
    await labBackends?.stop().catch((error: unknown) => progress(`warning: suite L backends stop: ${errorText(error)}`));
    await platform?.stop().catch((error: unknown) => progress(`warning: platform stop: ${errorText(error)}`));
    await prom?.stop().catch((error: unknown) => progress(`warning: prometheus stop: ${errorText(error)}`));
  }

  if (options.quick) notes.push('BENCH_QUICK=1 runs a smoke subset (one suite-B case per kind for ten kinds, 2 DBSherlock cases per cause): its PASS/MISS is indicative only, the targets are for the full run');
  if (suiteA.length > 0) notes.push('suite A: one CSV row = 20 s (values unchanged); clusters are dbsherlock-<8-digit case number> (the case ids name the cause; the JSON maps them back)');
  if (suiteA.length > 0) notes.push('suite A decision: any published decision except clarification_needed counts as correct (the ticket names the cluster and the time; whether a human is needed is not labelled)');
  if (suiteB.length > 0) notes.push('family "none" (suite B healthy / missing evidence / clarify) is a hit when no brief names a cause (strength >= moderate with a family)');

  const a = results.filter((r) => r.suite === 'A');
  const aSingle = a.filter((r) => !r.compound);
  const aCompound = a.filter((r) => r.compound);
  // Suite B in the order of its failure modes (the files are read in name order).
  const kindIndex = (k: string) => (SCENARIO_KINDS as readonly string[]).indexOf(k);
  const b = results.filter((r) => r.suite === 'B').sort((x, y) => kindIndex(x.group) - kindIndex(y.group) || x.id.localeCompare(y.id));
  const sections: { title: string; text: string }[] = [];
  const aSingleTotal = aggregate('single causes', aSingle);
  const aCompoundTotal = aggregate('compound causes', aCompound);
  const bTotal = aggregate('suite B', b);
  if (aSingle.length > 0) sections.push({ title: `suite A, DBSherlock single causes (${aSingle.length} cases)`, text: aggregateTable('cause', [...byGroup(aSingle), aSingleTotal]) });
  if (aCompound.length > 0) sections.push({ title: `suite A, DBSherlock compound causes, reported apart (${aCompound.length} cases; a hit is any family of any component)`, text: aggregateTable('cause', [...byGroup(aCompound), aCompoundTotal]) });
  if (b.length > 0) {
    sections.push({ title: `suite B, managed-database scenarios by kind (${b.length} cases)`, text: aggregateTable('kind', [...byGroup(b), bTotal], { mention: true, herring: true }) });
    sections.push({ title: 'suite B, per case (ok: F family, D decision, M/m mentions, ! took the red herring)', text: caseLines(b) });
  }
  const totals = aggregate('all', results);
  if (results.length > 0) sections.push({ title: 'engine evidence: briefs by evidence status, and what they most often could not determine', text: evidenceLines(results) });
  if (results.length > 0) sections.push({ title: 'totals', text: aggregateTable('suite', [...(a.length ? [aggregate('suite A', a)] : []), ...(b.length ? [bTotal] : []), totals]) });
  const labReport = lab && labResults.length ? labSections(labResults, lab) : null;
  if (labReport) {
    sections.push(...labReport.sections);
    notes.push(...labReport.notes, ...(labBackends?.statistics.notes ?? []));
  }
  const goals = [...targets(b.length ? bTotal : null, aSingle.length ? aSingleTotal : null, totals), ...(labReport?.targets ?? [])];
  const wall = Date.now() - T0;
  const meta = {
    run: `${options.quick ? 'BENCH_QUICK=1 (2 cases per cause, 10 suite-B cases, 6 lab cases)' : 'full'}; ${jobs.length + labResults.length} tickets; ${options.concurrency} in flight; per-ticket timeout ${options.timeoutMs / 1000} s`,
    prometheus: `${(prom?.stats ?? []).map((s) => `${s.name}: ${s.series} series, ${s.samples} samples, ${(s.bytes / 1e6).toFixed(0)} MB OpenMetrics, promtool ${(s.promtoolMs / 1000).toFixed(1)} s`).join('; ')}; generic package as ${mode}`,
    time: `total ${(wall / 1000).toFixed(1)} s (prometheus ${((timings['prometheus'] ?? 0) / 1000).toFixed(1)} s, platform start ${((timings['platform'] ?? 0) / 1000).toFixed(1)} s, tickets ${((timings['tickets'] ?? 0) / 1000).toFixed(1)} s = ${results.length ? ((timings['tickets'] ?? 0) / results.length / 1000).toFixed(2) : '-'} s per ticket)`,
  };
  printReport({ title: 'diagnosis benchmark', meta, sections, targets: goals, notes });
  if (options.json) {
    const compact = (r: CaseResult) => ({ ...r, engine: { ...r.engine, customerReply: r.engine.customerReply.slice(0, 4000) } });
    writeJson(options.json, {
      meta: { ...meta, startedAt: new Date(T0).toISOString(), quick: options.quick, targetMode: mode, rowSeconds: ROW_SECONDS },
      targets: goals,
      suiteA: { single: [...byGroup(aSingle), aSingleTotal], compound: [...byGroup(aCompound), aCompoundTotal], cases: a.map(compact) },
      suiteB: { byKind: [...byGroup(b), bTotal], cases: b.map(compact) },
      suiteL: { cases: labResults },
      totals,
      notes,
    });
    progress(`results written to ${options.json}`);
  }
  return 0;
}
