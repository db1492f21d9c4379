// Diagnosis benchmark, suite L: the incident lab's recorded cases (bench/lab/cases/, recorded by
// `npm run lab:record`, docs/incident-lab.md) replayed into their own real Prometheus and a local
// Loki-API server, every ticket through the same platform, scored by failure mode per fold.
import type { Platform } from '@aoc/launcher';
import { startLokiServer, type RunningLoki } from '../../libs/providers/src/testing/loki-server';
import { loadLabCases, type LabCase } from '../../tools/launcher/src/diagnosis-bench/lab-case';
import { assignFolds, expandLabCase, leadOf, loadFolds, loadVocabulary, scoreLab, type ExpandedLabCase, type LabBriefRow, type LabLead, type LabScore } from '../../tools/launcher/src/diagnosis-bench/lab';
import { suiteBAnchorDay } from '../../tools/launcher/src/diagnosis-bench/scenarios';
import type { Target } from '../../tools/launcher/src/diagnosis-bench/score';
import { pool, runTicket, type EngineOutcome } from './engine';
import { startBenchPrometheus, type BenchPrometheus } from './prometheus';
import { startLabStatistics, type LabStatistics } from '../../tools/launcher/src/diagnosis-bench/lab-statistics-servers';
import { table } from './report';

/** Quick mode: the first case (in id order) of each of these modes. */
export const QUICK_LAB_MODES = ['connection-exhaustion', 'lock-contention', 'replication-lag-replica-capacity', 'restart', 'storage-full-data', 'healthy'] as const;

export interface LabSelection {
  cases: ExpandedLabCase[];
  folds: Map<string, number>;
  development: Set<number>;
  k: number;
  total: number;
}

export function selectLab(now: number, quick: boolean, only: RegExp | null): LabSelection {
  const all = loadLabCases();
  const spec = loadFolds();
  // Folds are of the whole committed set, whatever this run selects.
  const folds = assignFolds(all, spec.k);
  let chosen: LabCase[] = all.filter((c) => !only || only.test(c.id));
  if (quick) chosen = QUICK_LAB_MODES.map((m) => chosen.find((c) => c.mode === m)).filter((c): c is LabCase => c !== undefined);
  const anchor = suiteBAnchorDay(now);
  return { cases: chosen.map((c) => expandLabCase(c, anchor)), folds, development: new Set(spec.development), k: spec.k, total: all.length };
}

export interface LabBackends {
  prom: BenchPrometheus;
  loki: RunningLoki;
  statistics: LabStatistics;
  /**
   * The generic package's endpoints: one per lab cluster (a SQL server is one database
   * instance), each with its case's statement statistics where a server could load them.
   */
  targets: Record<string, unknown>[];
  stop: () => Promise<void>;
}

export async function startLabBackends(sel: LabSelection, progress: (line: string) => void): Promise<LabBackends> {
  const prom = await startBenchPrometheus([{ name: `suite L (${sel.cases.length} lab cases)`, series: sel.cases.flatMap((c) => c.series) }], progress);
  let loki: RunningLoki;
  try {
    loki = await startLokiServer(sel.cases.flatMap((c) => c.streams));
  } catch (error) {
    await prom.stop();
    throw error;
  }
  const lines = sel.cases.reduce((n, c) => n + c.case.logs.length, 0);
  progress(`suite L: own Prometheus ready; Loki API at ${loki.baseUrl} with ${lines} log lines of ${sel.cases.length} cases`);
  const statistics = await startLabStatistics(sel.cases, progress);
  return {
    prom,
    loki,
    statistics,
    targets: sel.cases.map((c) => ({ name: c.case.cluster, baseUrl: prom.baseUrl, loki: { baseUrl: loki.baseUrl }, ...statistics.endpoints.get(c.case.cluster) })),
    stop: async () => {
      await statistics.stop();
      await loki.stop();
      await prom.stop();
    },
  };
}

export interface LabResult {
  id: string;
  engine: LabCase['engine'];
  mode: LabCase['mode'];
  state: LabCase['truth']['state'];
  variant: LabCase['variant'];
  fold: number;
  split: 'tuned' | 'held-out';
  status: EngineOutcome['status'];
  error: string | null;
  decision: string | null;
  lead: LabLead;
  score: LabScore;
  ms: number;
  customerReply: string;
  /** Per scenario thread: the questions of its rounds and the modes it tested (for reading a miss, not for scoring). */
  threads: { scenario: string; questions: string[]; lead: NonNullable<LabBriefRow['brief']>['leadingMechanism'] | null; hypotheses: unknown[]; facts?: string[][] }[];
}

export async function runLab(platform: Platform, sel: LabSelection, concurrency: number, timeoutMs: number, progress: (line: string) => void): Promise<LabResult[]> {
  const vocabulary = loadVocabulary();
  let done = 0;
  return pool(sel.cases, concurrency, async (e) => {
    const outcome = await runTicket(platform, e.request, timeoutMs);
    const rows: (LabBriefRow & { rounds?: { question?: string; facts?: { queryId: string; kind: string; subject: string; value: unknown; attributes: Record<string, unknown> }[] }[] | null })[] =
      outcome.status === 'published' && outcome.runId ? await platform.dataSource.query(`SELECT "scenario", "brief", "rounds" FROM "router"."scenario_threads" WHERE "run_id" = $1 ORDER BY "scenario_id"`, [outcome.runId]) : [];
    const lead = leadOf(rows);
    const fold = sel.folds.get(e.case.id) ?? 0;
    done++;
    if (outcome.status !== 'published') progress(`${e.case.id}: ${outcome.status}: ${outcome.error}`);
    if (done % 10 === 0 || done === sel.cases.length) progress(`suite L: ${done}/${sel.cases.length} tickets answered`);
    return {
      id: e.case.id,
      engine: e.case.engine,
      mode: e.case.mode,
      state: e.case.truth.state,
      variant: e.case.variant,
      fold,
      split: sel.development.has(fold) ? 'tuned' : 'held-out',
      status: outcome.status,
      error: outcome.error,
      decision: outcome.decision,
      lead,
      score: scoreLab(e.case, lead, outcome.customerReply, outcome.status === 'published', vocabulary),
      ms: outcome.ms,
      customerReply: outcome.customerReply.slice(0, 4000),
      threads: rows.map((r) => ({
        scenario: r.scenario,
        questions: (r.rounds ?? []).map((x) => String(x.question ?? '')),
        lead: r.brief?.leadingMechanism ?? null,
        hypotheses: ((r.brief as { hypotheses?: unknown[] } | null)?.hypotheses ?? []).slice(0, 12),
        // BENCH_LAB_FACTS=1: each round's facts, compact, for reading a miss.
        ...(process.env['BENCH_LAB_FACTS'] === '1'
          ? { facts: (r.rounds ?? []).map((x) => (x.facts ?? []).map((f) => `${f.queryId} ${f.kind} ${f.subject} = ${JSON.stringify(f.value)} [${String(f.attributes['family'] ?? '')}] first=${String(f.attributes['first'] ?? '')} min=${String(f.attributes['min'] ?? '')} prior=${String(f.attributes['priorMedian'] ?? '')} shape=${String(f.attributes['shape'] ?? '')}`)) }
          : {}),
      })),
    };
  });
}

const pct = (k: number, n: number): string => (n === 0 ? '-' : `${k}/${n} ${((k / n) * 100).toFixed(0)}%`);
const hits = (rs: readonly LabResult[], f: (r: LabResult) => boolean | null) => {
  const scored = rs.filter((r) => f(r) !== null);
  return pct(scored.filter((r) => f(r) === true).length, scored.length);
};

function row(label: string, rs: readonly LabResult[], vocab: boolean): string[] {
  return [
    label,
    String(rs.length),
    hits(
      rs.filter((r) => r.split === 'tuned'),
      (r) => r.score.causeOk,
    ),
    hits(
      rs.filter((r) => r.split === 'held-out'),
      (r) => r.score.causeOk,
    ),
    hits(rs, (r) => r.score.causeOk),
    hits(rs, (r) => r.score.stateOk),
    ...(vocab ? [hits(rs, (r) => r.score.vocabularyOk)] : []),
    hits(rs, (r) => r.score.herringTaken),
    `${rs.filter((r) => r.status === 'crash').length}/${rs.filter((r) => r.status === 'timeout').length}`,
  ];
}

export function labSections(results: readonly LabResult[], sel: LabSelection): { sections: { title: string; text: string }[]; targets: Target[]; notes: string[] } {
  const vocab = results.some((r) => r.score.vocabularyOk !== null);
  const head = ['mode', 'n', 'cause (tuned)', 'cause (held-out)', 'cause (all)', 'healthy/recovered ok', ...(vocab ? ['vocabulary'] : []), 'took red herring', 'crash/timeout'];
  const modes = [...new Set(results.map((r) => r.mode))].sort();
  const byMode = modes.map((m) => row(m, results.filter((r) => r.mode === m), vocab));
  const byEngine = (['postgres', 'mariadb'] as const).filter((e) => results.some((r) => r.engine === e)).map((e) => row(`engine ${e}`, results.filter((r) => r.engine === e), vocab));
  const cases = [['case', 'truth (state)', 'fold', 'lead mode / family (strength, severity)', 'decision', 'ok']];
  for (const r of results) {
    const got = r.status === 'published' ? `${r.lead.mode ?? '-'} / ${r.lead.family ?? '-'} (${r.lead.strength ?? '-'}, ${r.lead.severity ?? '-'})` : r.status;
    const marks = `${r.score.causeOk ? 'C' : '.'}${r.score.stateOk === null ? '' : r.score.stateOk ? 'S' : 's'}${r.score.vocabularyOk === null ? '' : r.score.vocabularyOk ? 'V' : 'v'}${r.score.herringTaken ? '!' : ''}`;
    cases.push([r.id, `${r.mode} (${r.state}${r.variant.redHerring ? `, herring ${r.variant.redHerring}` : ''})`, `${r.fold}${r.split === 'tuned' ? 't' : 'h'}`, got, r.decision ?? '-', marks]);
  }
  const tuned = results.filter((r) => r.split === 'tuned');
  const held = results.filter((r) => r.split === 'held-out');
  const share = (rs: readonly LabResult[]) => (rs.length === 0 ? 'n/a' : `${((rs.filter((r) => r.score.causeOk).length / rs.length) * 100).toFixed(1)}% of ${rs.length}`);
  const dev = [...sel.development].sort().join(', ');
  const failed = results.filter((r) => r.status !== 'published').length;
  return {
    sections: [
      { title: `suite L, incident lab by failure mode (${results.length} of ${sel.total} recorded cases; folds: k = ${sel.k}, development = ${dev})`, text: table([head, ...byMode, ...byEngine, row('suite L', results, vocab)]) },
      { title: 'suite L, per case (fold: t tuned / h held-out; ok: C cause, S/s healthy or recovered, V/v vocabulary, ! took the red herring)', text: table(cases) },
    ],
    targets: [
      { name: 'suite L cause, tuned folds', goal: 'reported', value: share(tuned), pass: null },
      { name: 'suite L cause, held-out folds', goal: 'reported', value: share(held), pass: null },
      { name: 'suite L crashes + timeouts', goal: '0', value: String(failed), pass: failed === 0 },
    ],
    notes: [
      `suite L: cause = the leading brief's leadingMechanism.mode in {truth.mode, alsoAcceptModes}; where no brief carries a mode, its family in truth.families; healthy: no fault named. Recovered ok: right cause and the lead's severity below high`,
      'suite L: recorded at 1 real s = 40 case s (counters x 40, gauges as recorded, ages x 40); each case has about 13 minutes of samples before its one-hour window',
      'suite L: statement snapshots (read at the end of each recording) are served by real servers: per case a Postgres database whose statistics views read the snapshot, and a MariaDB database behind a MySQL-protocol front; views a case did not record do not exist there',
    ],
  };
}
