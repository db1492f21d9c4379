import type { EvidenceFactV1 } from '@aoc/contracts';
import { familiesInText } from '@aoc/metric-ontology';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { familySignals } from '../family-rules';
import { evaluateCondition } from './conditions';
import { buildContext } from './evidence-context';
import { FAILURE_MODES, FailureModesData, explainsMode, logPatternWords } from './failure-modes.data';
import type { Hypothesis } from './evaluate-modes';
import { chooseLead, hypothesisBrief, ruledOut, testHypotheses } from './hypothesis-brief';
import { familyObservation } from './lead-observations';
import { familyPhrase, openEvidence } from './open-evidence';
import { changeFactor, signalState } from './signal-state';

const FROM = '2026-11-03T09:40:00.000Z';
const TO = '2026-11-03T10:40:00.000Z';
const WINDOW = { from: FROM, to: TO };
const at = (minute: number) => new Date(Date.parse(FROM) + minute * 60_000).toISOString();

interface SeriesSpec {
  family: string;
  metric?: string;
  unit?: string;
  bad?: 'up' | 'down' | 'both';
  shape: number[];
  prior?: number;
  score?: number;
  shiftMinute?: number;
  slope?: number;
  r2?: number;
}

/** A metric_summary fact as the executor writes it, from 12 bucket values. */
function metric(s: SeriesSpec): EvidenceFactV1 {
  const half = s.shape.length / 2;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const max = Math.max(...s.shape);
  const min = Math.min(...s.shape);
  const baseline = median(s.shape.slice(0, half));
  const recent = median(s.shape.slice(half));
  return {
    queryId: s.family,
    kind: 'metric_summary',
    subject: `${s.family}{cluster=db-1}`,
    value: max,
    unit: null,
    attributes: {
      family: s.family,
      metric: s.metric ?? `${s.family}_metric`,
      badDirection: s.bad ?? 'up',
      unitKind: s.unit ?? 'count',
      min,
      first: s.shape[0],
      last: s.shape[s.shape.length - 1],
      mean: s.shape.reduce((a, b) => a + b, 0) / s.shape.length,
      maxAt: at(5 * s.shape.indexOf(max)),
      points: 240,
      anomalyScore: s.score ?? 0.5,
      baselineMedian: baseline,
      recentMedian: recent,
      direction: recent >= baseline ? 'up' : 'down',
      ...(s.shiftMinute !== undefined ? { shiftAt: at(s.shiftMinute) } : {}),
      shape: s.shape.join(','),
      ...(s.slope !== undefined ? { slopePerHour: s.slope, trendR2: s.r2 ?? 0.95 } : {}),
      ...(s.prior !== undefined ? { priorMedian: s.prior } : {}),
    },
  };
}

const flat = (v: number) => Array.from({ length: 12 }, () => v);
const thread = (scenario: string, families: string[], general = false) => ({ scenario, families, general, window: WINDOW, onset: null });

describe('failure-mode catalogue', () => {
  it('loads, and every mode names an engineer vocabulary, a mitigation and the family it is reported under', () => {
    expect(FAILURE_MODES.length).toBeGreaterThanOrEqual(20);
    for (const m of FAILURE_MODES) {
      expect(m.vocabulary.length).toBeGreaterThanOrEqual(2);
      expect(m.mitigation.length).toBeGreaterThan(20);
    }
  });

  it('says every log pattern a mode reads in an engineer\'s words, not by its internal name', () => {
    const patterns = (c: unknown): string[] => (typeof c !== 'object' || c === null ? [] : Object.entries(c).flatMap(([k, v]) => (k === 'patterns' && Array.isArray(v) ? v.map(String) : Array.isArray(v) ? v.flatMap(patterns) : patterns(v))));
    const used = new Set(FAILURE_MODES.flatMap((m) => [...patterns(m.signature), ...patterns(m.supporting), ...patterns(m.refutedBy)]));
    expect(used.size).toBeGreaterThan(10);
    for (const p of used) expect(logPatternWords(p)).not.toBe(`"${p.replace(/_/g, " ")}"`);
    expect(logPatternWords('disk')).toMatch(/no space left on device/);
  });

  it('refuses an unknown family, an unknown look-alike and a duplicate id, naming the field', () => {
    const raw = JSON.parse(readFileSync(join(__dirname, '../../../data/failure-modes.json'), 'utf8')) as { modes: Record<string, unknown>[] };
    const bad = structuredClone(raw);
    bad.modes[0] = { ...bad.modes[0], family: 'no_such_family', lookAlikes: [{ mode: 'no-such-mode', tell: 'x' }] };
    bad.modes.push(structuredClone(raw.modes[1]));
    const issues = FailureModesData.safeParse(bad).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(issues).toEqual(expect.arrayContaining([expect.stringMatching(/^modes\.0\.family: must be a metric family/)]));
    const refs = FailureModesData.safeParse({ ...raw, modes: [{ ...raw.modes[0], lookAlikes: [{ mode: 'no-such-mode', tell: 'x' }] }, ...raw.modes.slice(1), raw.modes[1]] }).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(refs).toEqual(expect.arrayContaining(['modes.0.lookAlikes.0: unknown mode no-such-mode', expect.stringMatching(/duplicate mode id/)]));
  });
});

describe('signal state', () => {
  it('reads a steady rise as a ramp with its slope, and a level already away from the prior hour as elevated at the start', () => {
    const lag = familySignals([metric({ family: 'replication_lag', unit: 'seconds', shape: [10, 40, 70, 100, 130, 160, 190, 220, 250, 280, 310, 340], slope: 360, prior: 0.4 })])[0];
    const st = signalState(lag);
    expect(st.shape).toBe('ramp');
    expect(st.rampPerHour).toBe(360);
    expect(st.elevatedAtStart).toBe(true);
    expect(st.usualFrom).toBe('prior_hour');
    expect(changeFactor(st, 'up')).toBeCloseTo(340 / 0.4);
  });

  it('counts a series that left zero as an unbounded change', () => {
    const st = signalState(familySignals([metric({ family: 'deadlocks', shape: [0, 0, 0, 0, 0, 0, 3, 4, 2, 5, 3, 4], shiftMinute: 30 })])[0]);
    expect(changeFactor(st, 'up')).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('conditions', () => {
  it('a count at its limit for the whole window holds, and says it was already there when the window began', () => {
    const ctx = buildContext([metric({ family: 'connections', shape: [4612, 4700, 4800, 4998, 4900, 4950, 4990, 4998, 4970, 4980, 4990, 4998] }), metric({ family: 'connection_limit', bad: 'down', shape: flat(5000) })], WINDOW, null);
    const r = evaluateCondition({ kind: 'atLimit', family: 'connections', limit: 'connection_limit', ratio: 0.9 }, ctx);
    expect(r.result).toBe('holds');
    expect(r.line).toMatch(/already at 4612 \(92% of the connection limit of 5000\) when the window began/);
    expect(r.at).toBe(Date.parse(FROM));
  });

  it('a log pattern is unknown when the log was not read, fails when it was read without the pattern, and names a channel that is not configured', () => {
    const cond = { kind: 'log' as const, patterns: ['connection_limit'] };
    expect(evaluateCondition(cond, buildContext([], WINDOW, null))).toMatchObject({ result: 'unknown', line: 'the database log was not read' });
    const notConfigured: EvidenceFactV1 = { queryId: 'logs', kind: 'note', subject: 'channel logs not configured', value: 'not_configured', unit: null, attributes: { channel: 'logs' } };
    expect(evaluateCondition(cond, buildContext([notConfigured], WINDOW, null)).line).toBe('the database log is not configured for this target');
    const read: EvidenceFactV1 = { queryId: 'logs', kind: 'count', subject: 'logs: log lines', value: 120, unit: 'lines', attributes: { source: 'logs' } };
    expect(evaluateCondition(cond, buildContext([read], WINDOW, null)).result).toBe('fails');
  });

  it('a rise without a real shift is no change (a statistical wobble)', () => {
    const ctx = buildContext([metric({ family: 'cpu', unit: 'percent', shape: [30, 31, 30, 32, 31, 30, 33, 34, 33, 34, 33, 34], score: 1 })], WINDOW, null);
    expect(evaluateCondition({ kind: 'rise', family: 'cpu', factor: 1.1 }, ctx).result).toBe('fails');
  });
});

describe('statistics conditions', () => {
  const stat = (subject: string, value: number, family: string, basis?: string): EvidenceFactV1 => ({ queryId: 'mysql_status', kind: 'count', subject, value, unit: 'count', attributes: { source: 'sql', family, ...(basis ? { basis } : {}) } });
  const top = (share: number, statementType: string): EvidenceFactV1 => ({ queryId: 'top', kind: 'top_item', subject: 'statement digest:ab', value: share, unit: '%', attributes: { source: 'sql', family: 'statement_latency', digest: 'digest:ab', share, statementType } });

  it('a total since server start rules a mode out when it is zero, and never confirms it: it does not say when', () => {
    const cond = { kind: 'count' as const, family: 'deadlocks' as const, atLeast: 1 };
    const since = evaluateCondition(cond, buildContext([stat('deadlocks since server start', 175, 'deadlocks', 'since server start')], WINDOW, null));
    expect(since).toMatchObject({ result: 'unknown' });
    expect(since.line).toMatch(/175 deadlocks counted since the server started.*does not say whether any fell in the window/);
    expect(evaluateCondition(cond, buildContext([stat('deadlocks since server start', 0, 'deadlocks', 'since server start')], WINDOW, null)).result).toBe('fails');
    // A reading of the present outranks the total, whichever comes first.
    const both = buildContext([stat('deadlocks since server start', 175, 'deadlocks', 'since server start'), stat('blocked sessions', 0, 'deadlocks', 'now')], WINDOW, null);
    expect(evaluateCondition(cond, both).result).toBe('fails');
    expect(evaluateCondition(cond, buildContext([stat('blocked sessions', 3, 'deadlocks')], WINDOW, null)).result).toBe('holds');
  });

  it('a lead statement of another kind does not name a mode that asks for SELECTs (the bulk INSERT of a write load)', () => {
    const cond = { kind: 'statement' as const, atLeast: 50, types: ['SELECT' as const] };
    expect(evaluateCondition(cond, buildContext([top(92, 'SELECT')], WINDOW, null)).result).toBe('holds');
    const insert = evaluateCondition(cond, buildContext([top(92, 'INSERT')], WINDOW, null));
    expect(insert.result).toBe('fails');
    expect(insert.line).toMatch(/\(INSERT\) takes 92% .* but it is an INSERT, not SELECT/);
    expect(evaluateCondition({ kind: 'statement', atLeast: 50 }, buildContext([top(92, 'INSERT')], WINDOW, null)).result).toBe('holds');
  });

  it('a bulk statement reads or changes many rows per call; a point update of one row is not one', () => {
    const cond = { kind: 'statement' as const, atLeast: 40, types: ['UPDATE' as const], rowsPerCall: 1000 };
    const perCall = (rows: number): EvidenceFactV1 => ({ ...top(70, 'UPDATE'), attributes: { ...top(70, 'UPDATE').attributes, rowsPerCall: rows } });
    expect(evaluateCondition(cond, buildContext([perCall(15000)], WINDOW, null))).toMatchObject({ result: 'holds', line: expect.stringMatching(/15000 rows per call/) });
    expect(evaluateCondition(cond, buildContext([perCall(1)], WINDOW, null))).toMatchObject({ result: 'fails', line: expect.stringMatching(/1 rows per call \(not a bulk statement\)/) });
    expect(evaluateCondition(cond, buildContext([top(70, 'UPDATE')], WINDOW, null)).result).toBe('unknown');
  });
});

describe('hypotheses', () => {
  it('CPU between 88 % and 94 % for the whole window is CPU saturation, not "nothing moved"', () => {
    const facts = [metric({ family: 'cpu', unit: 'percent', shape: [91, 88, 92, 94, 90, 93, 92, 91, 94, 92, 90, 93], prior: 91 }), metric({ family: 'statement_latency', unit: 'seconds', shape: flat(0.4) })];
    const out = testHypotheses(thread('cpu-saturation', ['cpu']), facts);
    expect(out.lead?.mode.id).toBe('cpu-load');
    expect(out.lead?.deciding[0]).toMatch(/CPU .* held 92% .*over the second half of the window/);
    expect(out.hypotheses.find((h) => h.mode.id === 'healthy')?.verdict).toBe('refuted');
  });

  it('a 900-fold rise of replica lag leads over a 25 % rise of write throughput, and the lag names its mode', () => {
    const facts = [
      metric({ family: 'replication_lag', unit: 'seconds', shape: [0.5, 0.5, 0.6, 20, 60, 120, 180, 240, 300, 360, 420, 450], score: 12, shiftMinute: 15, slope: 500, prior: 0.5 }),
      metric({ family: 'rows_written', unit: 'per_second', shape: [1000, 1000, 1010, 1250, 1250, 1240, 1250, 1260, 1250, 1240, 1250, 1250], score: 6, shiftMinute: 14, prior: 1000 }),
    ];
    const out = testHypotheses(thread('latency-regression', ['statement_latency', 'statement_rate'], true), facts);
    expect(out.lead?.mode.family).toBe('replication_lag');
    expect(out.lead?.mode.id).toBe('replication-lag-replica-capacity');
    // Rows written barely moved, but the WAL volume that would show a write burst was never asked for: open, not ruled out.
    const writes = out.hypotheses.find((h) => h.mode.id === 'replication-lag-write-volume');
    expect(writes?.verdict).toBe('undetermined');
    expect(writes?.missing.join(' ')).toMatch(/transaction log/);
    const walAbsent: EvidenceFactV1 = { queryId: 'wal', kind: 'count', subject: 'wal: series', value: 0, unit: null, attributes: { family: 'wal' } };
    const commitsAbsent: EvidenceFactV1 = { ...walAbsent, queryId: 'commits', subject: 'commits: series', attributes: { family: 'commits' } };
    const settled = testHypotheses(thread('latency-regression', ['statement_latency', 'statement_rate'], true), [...facts, walAbsent, commitsAbsent]);
    expect(settled.hypotheses.find((h) => h.mode.id === 'replication-lag-write-volume')?.verdict).toBe('refuted');
  });

  it('one reset connection in an hour is background noise, not a network fault; many are', () => {
    const logsRead: EvidenceFactV1 = { queryId: 'logs', kind: 'count', subject: 'logs: log lines', value: 300, unit: 'lines', attributes: { source: 'logs' } };
    const resets = (n: number): EvidenceFactV1 => ({ queryId: 'logs', kind: 'event', subject: 'log pattern connection', value: n, unit: 'lines', attributes: { source: 'logs', pattern: 'connection', firstAt: at(20) } });
    const traffic = metric({ family: 'network', unit: 'bytes_per_second', shape: flat(2e6), prior: 2e6 });
    const network = (n: number) => testHypotheses(thread('network', ['network']), [logsRead, traffic, resets(n)]).hypotheses.find((h) => h.mode.id === 'network');
    expect(network(1)?.verdict).toBe('refuted');
    expect(evaluateCondition({ kind: 'log', patterns: ['connection'], atLeast: 5 }, buildContext([logsRead, resets(1)], WINDOW, null))).toMatchObject({ result: 'fails', line: expect.stringMatching(/1 line of dropped or reset client connections .*fewer than the 5/) });
    expect(network(40)?.verdict).toBe('confirmed');
  });

  it('an incident whose metrics are back is over, even when a statement share (a lifetime total) decided the mode', () => {
    const cpu = metric({ family: 'cpu', unit: 'percent', shape: [40, 40, 41, 40, 42, 40, 100, 100, 99, 100, 45, 30], score: 9, shiftMinute: 30, prior: 40 });
    const statement: EvidenceFactV1 = { queryId: 'top', kind: 'top_item', subject: 'statement digest:ab', value: 91, unit: '%', attributes: { source: 'sql', family: 'statement_latency', digest: 'digest:ab', share: 91, statementType: 'SELECT' } };
    const over = testHypotheses(thread('cpu-saturation', ['cpu']), [cpu, statement]);
    expect(over.lead?.mode.id).toBe('cpu-statement');
    expect(over.lead?.recovered).toBe(true);
    const still = testHypotheses(thread('cpu-saturation', ['cpu']), [metric({ family: 'cpu', unit: 'percent', shape: [40, 40, 41, 40, 42, 40, 100, 100, 99, 100, 98, 100], score: 9, shiftMinute: 30, prior: 40 }), statement]);
    expect(still.lead?.recovered).toBe(false);
  });

  it('a limit nobody queried keeps connection exhaustion open (and asked for next) although the log shows no refusal', () => {
    const logsRead: EvidenceFactV1 = { queryId: 'logs', kind: 'count', subject: 'logs: log lines', value: 120, unit: 'lines', attributes: { source: 'logs' } };
    const connections = metric({ family: 'connections', shape: [22, 30, 40, 47, 55, 58, 58, 58, 58, 58, 58, 58], score: 9, shiftMinute: 5, prior: 12 });
    const open = testHypotheses(thread('general-health', [], true), [logsRead, connections]);
    const mode = open.hypotheses.find((h) => h.mode.id === 'connection-exhaustion');
    expect(mode?.verdict).toBe('undetermined');
    expect(mode?.promise).toBeGreaterThan(0);
    expect(openEvidence(open.hypotheses, open.context, [])?.families[0]).toBe('connection_limit');
    const limit = metric({ family: 'connection_limit', bad: 'down', shape: flat(60) });
    const decided = testHypotheses(thread('general-health', [], true), [logsRead, connections, limit]);
    expect(decided.lead?.mode.id).toBe('connection-exhaustion');
  });

  it('a mode one clause from a verdict is asked about first: once the log shows checkpoint warnings, write volume and disk I/O come before families no evidence points at', () => {
    const logsRead: EvidenceFactV1 = { queryId: 'logs', kind: 'count', subject: 'logs: log lines', value: 155, unit: 'lines', attributes: { source: 'logs' } };
    const warnings: EvidenceFactV1 = { queryId: 'logs', kind: 'event', subject: 'log pattern checkpoint', value: 32, unit: 'lines', attributes: { source: 'logs', pattern: 'checkpoint', firstAt: at(10) } };
    const latency = metric({ family: 'statement_latency', unit: 'seconds', shape: [0.01, 0.01, 0.2, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3], score: 9, shiftMinute: 10, prior: 0.01 });
    const open = testHypotheses(thread('latency-regression', ['statement_latency'], true), [logsRead, warnings, latency]);
    expect(open.hypotheses.find((h) => h.mode.id === 'checkpoint-storm')?.verdict).toBe('undetermined');
    const asked = openEvidence(open.hypotheses, open.context, [])?.families ?? [];
    // The checkpoint storm is one clause from a verdict: every way to measure its write burst ranks in the first batch.
    for (const f of ['wal', 'io_throughput']) expect(asked.indexOf(f)).toBeGreaterThanOrEqual(0);
    for (const f of ['wal', 'io_throughput']) expect(asked.indexOf(f)).toBeLessThan(6);
  });

  it('the brief names the mode, the deciding numbers, what was ruled out, and what would settle untested modes', () => {
    const facts = [
      metric({ family: 'connections', shape: [120, 150, 200, 300, 420, 480, 495, 499, 500, 500, 499, 500], score: 9, shiftMinute: 10, slope: 500 }),
      metric({ family: 'connection_limit', bad: 'down', shape: flat(500) }),
      metric({ family: 'lock_waits', shape: flat(2) }),
      metric({ family: 'cpu', unit: 'percent', shape: flat(35) }),
    ];
    const out = testHypotheses(thread('connection-exhaustion', ['connections', 'connection_limit']), facts);
    expect(out.lead?.mode.id).toBe('connection-exhaustion');
    const brief = hypothesisBrief({ ...out, lead: out.lead! }, { observations: ['o'], strongestAlternative: 'alt', workloadAttribution: null, undetermined: [] });
    expect(brief.leadingMechanism).toMatchObject({ mode: 'connection-exhaustion', family: 'connections' });
    expect(brief.leadingMechanism.statement).toMatch(/^Connection exhaustion: .*reached 500 .*100% of the connection limit of 500/);
    // CPU was measured and had headroom; lock contention could still show in the log, which was not read.
    expect(brief.counterObservations[0]).toBe('Ruled out CPU saturation from added load: CPU utilisation (cpu_metric) held 35% over the second half of the window, below the 90% that would matter.');
    expect(brief.undetermined.join(' ')).toMatch(/lock contention not tested: the database log was not read/);
    expect(brief.hypotheses?.[0]).toMatchObject({ mode: 'connection-exhaustion', verdict: 'confirmed' });
  });

  it('CPU that rose while the database served the same queries at the same speed is no database incident; with more queries it is added load', () => {
    const cpu = metric({ family: 'cpu', unit: 'percent', shape: [30, 35, 40, 45, 50, 55, 60, 70, 80, 90, 95, 97], score: 9, shiftMinute: 40, prior: 36 });
    const rows = metric({ family: 'rows_read', unit: 'per_second', shape: flat(1050), prior: 1040 });
    const latency = metric({ family: 'statement_latency', unit: 'seconds', shape: flat(0.0095), prior: 0.0095 });
    const sameWork = metric({ family: 'statement_rate', unit: 'per_second', shape: flat(267), prior: 267 });
    const out = testHypotheses(thread('alarm-check', [], true), [cpu, rows, latency, sameWork]);
    expect(out.lead?.mode.id).toBe('healthy');
    expect(out.lead?.deciding.join(' ')).toMatch(/query latency stayed near .*query rate stayed near/);
    expect(out.hypotheses.find((h) => h.mode.id === 'cpu-load')?.verdict).toBe('refuted');
    expect(ruledOut(out.lead as Hypothesis, out.hypotheses)).toEqual([expect.stringMatching(/^Ruled out CPU saturation from added load: query rate stayed near .*rows read stayed near/)]);
    const moreWork = metric({ family: 'statement_rate', unit: 'per_second', shape: [267, 267, 267, 267, 267, 267, 400, 420, 430, 440, 450, 460], score: 9, shiftMinute: 30, prior: 267 });
    const busier = testHypotheses(thread('alarm-check', [], true), [cpu, rows, latency, moreWork]);
    expect(busier.lead?.mode.id).not.toBe('healthy');
    expect(busier.hypotheses.find((h) => h.mode.id === 'cpu-load')?.verdict).toBe('confirmed');
  });

  it('a load decided by its statement alone is over once the effects it had are back, and active while they are not', () => {
    const bulk: EvidenceFactV1 = { queryId: 'top', kind: 'top_item', subject: 'statement digest:cd', value: 60, unit: '%', attributes: { source: 'sql', family: 'statement_latency', digest: 'digest:cd', share: 60, statementType: 'UPDATE', rowsPerCall: 15000 } };
    const sessions = (tail: number[]) => metric({ family: 'active_sessions', shape: [1, 1, 1, 1, 1, 1, 5, 5, 5, 5, ...tail], score: 8, shiftMinute: 30, prior: 1 });
    const over = testHypotheses(thread('latency-regression', ['statement_latency']), [bulk, sessions([1, 1])]);
    expect(over.lead?.mode.id).toBe('batch-job');
    expect(over.lead?.recovered).toBe(true);
    const still = testHypotheses(thread('latency-regression', ['statement_latency']), [bulk, sessions([5, 5])]);
    expect(still.lead?.mode.id).toBe('batch-job');
    expect(still.lead?.recovered).toBe(false);
    // With no effect measured at all, a lifetime share never says the incident is over.
    expect(testHypotheses(thread('latency-regression', ['statement_latency']), [bulk]).lead?.recovered).toBe(false);
    // The recovery is told by what came back, never as if the statement share were a level.
    const brief = hypothesisBrief({ ...over, lead: over.lead! }, { observations: [], strongestAlternative: 'alt', workloadAttribution: null, undetermined: [] });
    expect(brief.leadingMechanism.statement).toMatch(/Active sessions was back near its usual level by the end of the window: the incident has recovered/);
    expect(brief.leadingMechanism.statement).not.toMatch(/It was back/);
    // What moved and came back is observed first, with where it ended.
    expect(brief.observations[0]).toMatch(/^Active sessions \(active_sessions_metric\): usually 1 \(the hour before the window\); .*1 at the end of the window\.$/);
  });

  it('a saturation ruled out names the peak that came and went, not only the level it settled at', () => {
    const cpu = metric({ family: 'cpu', metric: 'node_cpu_seconds_total', unit: 'percent', shape: [40, 40, 60, 74, 70, 50, 40, 40, 40, 40, 40, 40], score: 6, shiftMinute: 10, prior: 40 });
    const latency = metric({ family: 'statement_latency', unit: 'seconds', shape: [0.01, 0.01, 0.05, 0.06, 0.05, 0.02, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01], score: 6, shiftMinute: 10, prior: 0.01 });
    const out = testHypotheses(thread('latency-regression', ['statement_latency']), [cpu, latency]);
    const line = out.hypotheses.find((h) => h.mode.id === 'cpu-load')?.deciding.join(' ') ?? '';
    expect(line).toMatch(/held 40% over the second half of the window and peaked at 74% at 09:55 UTC, below the 90% that would matter/);
  });

  it('the observations under a confirmed mode give one line per family that bears on it, with usual level, shape and end, and leave out series that neither moved nor bear on it', () => {
    const connections = [
      metric({ family: 'connections', metric: 'threads_connected', shape: [120, 150, 200, 300, 420, 480, 495, 499, 500, 500, 499, 500], score: 9, shiftMinute: 10, slope: 500, prior: 110 }),
      metric({ family: 'connections', metric: 'max_used_connections', shape: flat(500) }),
    ];
    const facts = [...connections, metric({ family: 'connection_limit', bad: 'down', shape: flat(500) }), metric({ family: 'uptime', metric: 'uptime_seconds', bad: 'down', shape: [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200] })];
    const out = testHypotheses(thread('connection-exhaustion', ['connections', 'connection_limit']), facts);
    const brief = hypothesisBrief({ ...out, lead: out.lead! }, { observations: ['uptime_seconds: peak 1200', 'statement digest:ab (SELECT) takes 70% of the statement time'], strongestAlternative: 'alt', workloadAttribution: null, undetermined: [] });
    expect(brief.observations[0]).toMatch(/^Database connections \((threads_connected|max_used_connections)\): usually .*; .*500/);
    expect(brief.observations.filter((o) => /^Database connections/.test(o))).toHaveLength(1);
    expect(brief.observations.join(' ')).not.toMatch(/uptime/i);
    // Something else that moved a lot is reported after what bears on the mode.
    const withCpu = testHypotheses(thread('connection-exhaustion', ['connections', 'connection_limit']), [...facts, metric({ family: 'cpu', unit: 'percent', shape: [22, 22, 22, 22, 22, 22, 75, 75, 75, 75, 75, 75], score: 9, shiftMinute: 30, prior: 22 })]);
    const observed = hypothesisBrief({ ...withCpu, lead: withCpu.lead! }, { observations: [], strongestAlternative: 'alt', workloadAttribution: null, undetermined: [] }).observations;
    expect(observed[0]).toMatch(/^Database connections/);
    expect(observed.join(' ')).toMatch(/CPU utilisation \(cpu_metric\): usually 22%/);
    // What another channel observed (a statement) keeps a place; the provider's metric lines do not repeat.
    expect(brief.observations).toContain('statement digest:ab (SELECT) takes 70% of the statement time');
  });

  it('an observation goes the way the series went, says "already at" only for a real head start, and leaves clocks to the events', () => {
    const role = signalState(familySignals([metric({ family: 'failover', metric: 'pg_settings_in_hot_standby', bad: 'both', shape: [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0], score: 9, shiftMinute: 20, prior: 1 })])[0]);
    expect(familyObservation(role)).toMatch(/dropped to 0 from about 10:00 UTC/);
    const age = signalState(familySignals([metric({ family: 'transaction_age', unit: 'seconds', shape: [0.23, 15, 247, 547, 848, 1147, 1448, 1748, 2048, 2347, 2647, 2955], score: 9, shiftMinute: 5, slope: 3400, prior: 0 })])[0]);
    expect(familyObservation(age)).not.toMatch(/already at/);
    const boot = metric({ family: 'restarts', metric: 'node_boot_time_seconds', unit: 'seconds', shape: flat(1796000000), score: 9, prior: 1795875141 });
    const out = testHypotheses(thread('failover-restart', ['restarts']), [boot, metric({ family: 'failover', bad: 'both', shape: [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0], score: 9, shiftMinute: 20, prior: 1 })]);
    expect(out.lead?.mode.id).toBe('failover');
    const observed = hypothesisBrief({ ...out, lead: out.lead! }, { observations: [], strongestAlternative: 'alt', workloadAttribution: null, undetermined: [] }).observations.join(' ');
    expect(observed).toMatch(/^Failover/);
    expect(observed).not.toMatch(/node_boot_time_seconds/);
  });

  it('a symptom that is bad when it rises and stayed at zero throughout is a healthy reading: slow queries at zero and the same traffic are a false alarm, whatever a session count did for a minute', () => {
    const slow = metric({ family: 'statement_latency', metric: 'mysql_global_status_slow_queries', unit: 'per_second', shape: flat(0), score: 0, prior: 0 });
    const rate = metric({ family: 'statement_rate', unit: 'per_second', shape: flat(6.5), prior: 6.5 });
    const sessions = metric({ family: 'active_sessions', shape: [1, 1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1], score: 5, shiftMinute: 25, prior: 1 });
    const out = testHypotheses(thread('latency-regression', ['statement_latency']), [slow, rate, sessions]);
    expect(out.lead?.mode.id).toBe('healthy');
    expect(out.lead?.deciding.join(' ')).toMatch(/query latency \(mysql_global_status_slow_queries\) stayed at zero throughout the window/);
    // An activity at zero is nothing that stayed level: a zero query rate does not make a window healthy.
    const idle = buildContext([metric({ family: 'statement_rate', unit: 'per_second', bad: 'down', shape: flat(0), prior: 0 })], WINDOW, null);
    expect(evaluateCondition({ kind: 'steady', family: 'statement_rate', within: 0.2 }, idle).result).toBe('unknown');
    expect(evaluateCondition({ kind: 'steady', family: 'statement_latency', within: 0.2 }, buildContext([slow], WINDOW, null)).result).toBe('holds');
  });

  it('a replica lag that grows second for second with a query\'s age is that query holding replay, not a replica short of capacity', () => {
    const ramp = [2, 3, 170, 470, 770, 1070, 1370, 1670, 1970, 2270, 2570, 2880];
    const lag = metric({ family: 'replication_lag', unit: 'seconds', shape: ramp, score: 9, shiftMinute: 10, slope: 3350, prior: 1.6 });
    const writes = metric({ family: 'commits', unit: 'per_second', shape: flat(115), prior: 112 });
    const age = metric({ family: 'transaction_age', unit: 'seconds', shape: ramp.map((v) => v + 60), score: 9, shiftMinute: 5, slope: 3300, prior: 0 });
    const held = testHypotheses(thread('replication-lag', ['replication_lag']), [lag, writes, age]);
    expect(held.lead?.mode.id).toBe('replication-lag-replica-query');
    // The line that names the mechanism comes first, and the lag is told once, not as a rise, a climb and a level.
    expect(held.lead?.deciding[0]).toMatch(/they grew in step/);
    expect(held.lead?.deciding.filter((d) => /^replica lag/.test(d) && !/in step/.test(d))).toHaveLength(1);
    const capacity = held.hypotheses.find((h) => h.mode.id === 'replication-lag-replica-capacity');
    expect(capacity?.verdict).toBe('refuted');
    expect(capacity?.deciding[0]).toMatch(/replica lag grew by .* per hour while oldest open transaction grew by .* per hour.*: they grew in step/);
    // A short transaction that does not grow with the lag leaves the starved replica as the cause.
    const short = metric({ family: 'transaction_age', unit: 'seconds', shape: [1, 2, 1, 3, 90, 2, 1, 2, 1, 2, 1, 2], score: 3, prior: 1 });
    const starved = testHypotheses(thread('replication-lag', ['replication_lag']), [lag, writes, short]);
    expect(starved.lead?.mode.id).toBe('replication-lag-replica-capacity');
  });

  it('is never healthy while the symptom the scenario asks about left its usual level, however flat latency and traffic stayed', () => {
    const steady = [metric({ family: 'statement_latency', unit: 'seconds', shape: flat(0.3), prior: 0.3 }), metric({ family: 'statement_rate', unit: 'per_second', shape: flat(270), prior: 270 })];
    const lag = metric({ family: 'replication_lag', unit: 'seconds', shape: [0, 0, 0, 0, 0, 0, 30, 60, 90, 120, 150, 180], score: 9, shiftMinute: 30, prior: 0 });
    const out = testHypotheses(thread('replication-lag', ['replication_lag']), [...steady, lag]);
    expect(out.hypotheses.find((h) => h.mode.id === 'healthy')?.verdict).not.toBe('confirmed');
    expect(out.lead?.mode.id).not.toBe('healthy');
    expect(testHypotheses(thread('latency-regression', ['statement_latency']), steady).lead?.mode.id).toBe('healthy');
  });

  it('tests a mode the ticket did not point at when the log names its mechanism (temporary files behind "slow")', () => {
    const spills: EvidenceFactV1 = { queryId: 'logs', kind: 'event', subject: 'log pattern temp_file', value: 59, unit: 'lines', attributes: { source: 'logs', pattern: 'temp_file', firstAt: at(20) } };
    const latency = metric({ family: 'statement_latency', unit: 'seconds', shape: [0.3, 0.3, 0.3, 0.3, 1.2, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3], score: 9, shiftMinute: 20, prior: 0.3 });
    const own = testHypotheses(thread('latency-regression', ['statement_latency']), [latency]);
    expect(own.hypotheses.some((h) => h.mode.id === 'storage-full-temp')).toBe(false);
    // Tested on the evidence in hand: left open (free storage unread) it does not steer the next round.
    expect(testHypotheses(thread('latency-regression', ['statement_latency']), [latency, spills]).hypotheses.some((h) => h.mode.id === 'storage-full-temp')).toBe(false);
    const full = metric({ family: 'storage_free', unit: 'bytes', bad: 'down', shape: [900, 900, 900, 900, 400, 200, 50, 10, 5, 5, 5, 5].map((v) => v * 2 ** 20), score: 9, shiftMinute: 20, prior: 900 * 2 ** 20 });
    const surfaced = testHypotheses(thread('latency-regression', ['statement_latency']), [latency, spills, full]);
    expect(surfaced.hypotheses.find((h) => h.mode.id === 'storage-full-temp')).toMatchObject({ verdict: 'confirmed' });
  });

  it('a quiet window confirms only the healthy mode, and a missing family leaves its modes undetermined, never refuted', () => {
    const quiet = [metric({ family: 'cpu', unit: 'percent', shape: flat(30) }), metric({ family: 'statement_latency', unit: 'seconds', shape: flat(0.02) })];
    const out = testHypotheses(thread('alarm-check', [], true), quiet);
    expect(out.lead?.mode.id).toBe('healthy');
    expect(out.hypotheses.find((h) => h.mode.id === 'replication-lag-write-volume')?.verdict).toBe('undetermined');
  });

  it('a restart the executor reported is read once, and a promotion makes it a failover, with the restart as its effect', () => {
    const uptime = metric({ family: 'uptime', unit: 'seconds', bad: 'down', shape: [9000, 9300, 9600, 9900, 10200, 10, 300, 600, 900, 1200, 1500, 1800], shiftMinute: 25 });
    const restart: EvidenceFactV1 = { queryId: 'uptime', kind: 'event', subject: 'restart: uptime fell from 10200 to 10 at 10:05Z', value: 'restart', unit: null, attributes: { source: 'metrics', event: 'restart', family: 'uptime', at: at(25), metric: 'mysql_global_status_uptime', rule: 'uptime_starts_over' } };
    const ctx = buildContext([uptime, restart], WINDOW, null);
    expect(ctx.events.filter((e) => e.kind === 'restart')).toHaveLength(1);
    expect(testHypotheses(thread('failover-restart', ['uptime', 'restarts']), [uptime, restart]).lead?.mode.id).toBe('restart');
    const promoted: EvidenceFactV1 = { ...restart, subject: 'role_change: replica status vanished', value: 'role_change', attributes: { ...restart.attributes, event: 'role_change', rule: 'replica_status_rows' } };
    const out = testHypotheses(thread('failover-restart', ['uptime', 'restarts']), [uptime, restart, promoted]);
    expect(out.lead?.mode.id).toBe('failover');
    expect(out.hypotheses.find((h) => h.mode.id === 'restart')?.verdict).toBe('refuted');
  });

  it('a state leads on its rank; among changes only, the mode holding the earliest sustained change leads unless its change is dwarfed', () => {
    const h = (id: string, o: Partial<Hypothesis>): Hypothesis => ({ mode: FAILURE_MODES.find((m) => m.id === id)!, verdict: 'confirmed', deciding: ['d'], support: [], missing: [], score: 0.5, at: null, family: null, recovered: false, recoveredFamilies: [], explainedBy: null, magnitude: 0.5, state: false, named: false, families: [], fit: 1, promise: 0, openFamilies: [], nearVerdict: false, ...o });
    const limit = h('connection-exhaustion', { state: true, named: true, magnitude: 1, families: ['connections'] });
    const wal = h('checkpoint-storm', { magnitude: 0.6, families: ['checkpoints', 'wal'], family: 'checkpoints' });
    const load = h('batch-job', { magnitude: 0.5, families: ['rows_written'] });
    expect(chooseLead([limit, wal, load], 'rows_written')?.mode.id).toBe('connection-exhaustion');
    expect(chooseLead([wal, load], 'rows_written')?.mode.id).toBe('batch-job');
    expect(chooseLead([wal, load], 'wal')).toMatchObject({ family: 'wal' });
    expect(chooseLead([h('io-limit', { magnitude: 1, families: ['io_queue'] }), load], 'rows_written')?.mode.id).toBe('io-limit');
    expect(chooseLead([wal], 'network')).toBeNull();
    // A log line or a limit reached names its mechanism: it leads from below a bigger change, even some minutes after the symptom began.
    const refused = h('connection-exhaustion', { state: true, named: true, magnitude: 0.75, fit: 0.4, families: [] });
    expect(chooseLead([wal, refused], 'rows_written')?.mode.id).toBe('connection-exhaustion');
    // A level over a threshold is a state but names nothing: it leads only from the top.
    const hot = h('cpu-load', { state: true, magnitude: 0.9, fit: 1, families: ['cpu'] });
    expect(chooseLead([wal, hot], 'rows_written')).toBeNull();
    expect(chooseLead([hot, wal], 'rows_written')?.mode.id).toBe('cpu-load');
    // A tie on the same symptom goes to the mode whose evidence names its mechanism (a recovery-conflict line).
    const behind = h('replication-lag-replica-capacity', { state: true, score: 0.575, families: ['replication_lag'] });
    const conflict = h('replication-lag-replica-query', { state: true, named: true, score: 0.575, families: ['replication_lag', 'transaction_age'] });
    expect(chooseLead([behind, conflict], null)?.mode.id).toBe('replication-lag-replica-query');
    expect(chooseLead([behind, { ...conflict, score: 0.4 }], null)?.mode.id).toBe('replication-lag-replica-capacity');
    // The earliest change is in no confirmed mode: the top mode still leads when it shows in the scenario's own families.
    const lagging = h('replication-lag-replica-capacity', { families: ['replication_lag'] });
    expect(chooseLead([lagging], 'cpu')).toBeNull();
    expect(chooseLead([lagging], 'cpu', ['replication_lag'])?.mode.id).toBe('replication-lag-replica-capacity');
  });

  it('added writes explain lock waits; added reads do not', () => {
    const batch = FAILURE_MODES.find((m) => m.id === 'batch-job')!;
    expect(explainsMode(batch, 'lock-contention', ['rows_written'])).toBe(true);
    expect(explainsMode(batch, 'lock-contention', ['rows_read'])).toBe(false);
    expect(explainsMode(batch, 'cpu-load', ['rows_read'])).toBe(true);
    expect(() => FailureModesData.parse({ version: 'v', ranking: { magnitude: 0, coverage: 0, timing: 0, support: 0, order: 0 }, modes: [{ ...batch, explains: [{ mode: 'nope', when: ['rows_written'] }] }] })).toThrow(/unknown mode nope/);
  });

  it('a level that was already bad before the window but is twice as bad now is an incident that grew, not a standing condition', () => {
    const cond = { kind: 'level' as const, family: 'replication_lag' as const, over: 'sustained' as const, atLeast: 30 };
    const grew = evaluateCondition(cond, buildContext([metric({ family: 'replication_lag', unit: 'seconds', shape: [150, 180, 200, 240, 260, 300, 320, 325, 330, 320, 325, 330], prior: 148 })], WINDOW, null));
    expect(grew).toMatchObject({ result: 'holds', chronic: false, line: expect.stringMatching(/already at 148 s .* got 2\.2x worse/) });
    const standing = evaluateCondition(cond, buildContext([metric({ family: 'replication_lag', unit: 'seconds', shape: flat(160), prior: 148 })], WINDOW, null));
    expect(standing).toMatchObject({ result: 'holds', chronic: true, line: expect.stringMatching(/a standing condition/) });
  });

  it('a scenario whose own families were not measured is never healthy: the brief says the evidence is missing', () => {
    const others = [metric({ family: 'cpu', unit: 'percent', shape: flat(30) }), metric({ family: 'connections', shape: flat(120) })];
    const out = testHypotheses(thread('replication-lag', ['replication_lag']), others);
    expect(out.lead).toBeNull();
    expect(out.hypotheses.find((h) => h.mode.id === 'healthy')).toMatchObject({ verdict: 'undetermined', missing: ['no replica lag data for this target in the window'] });
  });

  it('a limit already reached in the hour before the window is a standing condition: it does not lead on its state', () => {
    const conn = metric({ family: 'connections', shape: flat(95), prior: 95 });
    const limit = metric({ family: 'connection_limit', bad: 'down', shape: flat(100) });
    const r = evaluateCondition({ kind: 'atLimit', family: 'connections', limit: 'connection_limit', ratio: 0.9 }, buildContext([conn, limit], WINDOW, null));
    expect(r).toMatchObject({ result: 'holds', chronic: true });
    expect(r.line).toMatch(/as high in the hour before the window .*a standing condition/);
    const h = (id: string, o: Partial<Hypothesis>): Hypothesis => ({ mode: FAILURE_MODES.find((m) => m.id === id)!, verdict: 'confirmed', deciding: ['d'], support: [], missing: [], score: 0.5, at: null, family: null, recovered: false, recoveredFamilies: [], explainedBy: null, magnitude: 0.5, state: false, named: false, families: [], fit: 1, promise: 0, openFamilies: [], nearVerdict: false, ...o });
    // A state whose onset is far from the symptom's does not lead on its own either.
    expect(chooseLead([h('restart', { state: true, fit: 0.3, magnitude: 0.8 }), h('deadlocks', { families: ['deadlocks'], magnitude: 0.6 })], 'deadlocks')?.mode.id).toBe('deadlocks');
  });

  it('a level threshold reads only series in the family unit, a limit is the largest of its family, and a count that moved by one is no change', () => {
    const switches = metric({ family: 'cpu', metric: 'node_context_switches_total', unit: 'per_second', shape: flat(4700) });
    expect(evaluateCondition({ kind: 'level', family: 'cpu', over: 'sustained', atLeast: 90 }, buildContext([switches], WINDOW, null)).result).toBe('unknown');
    const conns = metric({ family: 'connections', shape: flat(8) });
    const reserved = { ...metric({ family: 'connection_limit', metric: 'pg_settings_superuser_reserved_connections', bad: 'down', shape: flat(3) }), queryId: 'limit-a' };
    const max = { ...metric({ family: 'connection_limit', metric: 'pg_settings_max_connections', bad: 'down', shape: flat(100) }), queryId: 'limit-b' };
    expect(evaluateCondition({ kind: 'atLimit', family: 'connections', limit: 'connection_limit', ratio: 0.9 }, buildContext([conns, reserved, max], WINDOW, null))).toMatchObject({ result: 'fails', line: expect.stringMatching(/8% of the connection limit of 100/) });
    const threads = metric({ family: 'active_sessions', shape: [1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2], score: 8, shiftMinute: 30, prior: 1 });
    expect(evaluateCondition({ kind: 'rise', family: 'active_sessions', factor: 1.5 }, buildContext([threads], WINDOW, null)).result).toBe('fails');
  });

  it('a weak or later finding does not explain away a firm one', () => {
    const conns = metric({ family: 'connections', shape: [10, 10, 10, 10, 30, 59, 59, 59, 59, 59, 59, 59], score: 9, shiftMinute: 20 });
    const limit = metric({ family: 'connection_limit', bad: 'down', shape: flat(60) });
    const uptime = metric({ family: 'uptime', unit: 'seconds', bad: 'down', shape: [100, 400, 700, 1000, 1300, 1600, 1900, 2200, 2500, 2800, 3100, 3400] });
    const loggedRestart: EvidenceFactV1 = { queryId: 'logs', kind: 'event', subject: 'log pattern restart', value: 1, unit: 'lines', attributes: { source: 'logs', pattern: 'restart', family: 'restarts', firstAt: at(5) } };
    const logsRead: EvidenceFactV1 = { queryId: 'logs', kind: 'count', subject: 'logs: log lines', value: 40, unit: 'lines', attributes: { source: 'logs' } };
    const out = testHypotheses(thread('failover-restart', ['uptime', 'restarts'], true), [conns, limit, uptime, loggedRestart, logsRead]);
    expect(out.hypotheses.find((h) => h.mode.id === 'connection-exhaustion')).toMatchObject({ verdict: 'confirmed', explainedBy: null });
    expect(out.lead?.mode.id).toBe('connection-exhaustion');
  });
});

describe('the open-hypotheses question', () => {
  it('names each family in words that never ask again for a family already measured', () => {
    const measured = new Set(['statement_latency', 'locks', 'connections', 'iops', 'cpu']);
    for (const f of ['io_latency', 'lock_waits', 'connection_limit', 'iops_limit', 'io_credits', 'cpu_credits', 'transaction_age', 'replication_lag']) {
      const asked = familiesInText(familyPhrase(f, measured) ?? '').map((m) => m.family);
      expect([f, asked]).toEqual([f, [f]]);
    }
    // While locks are unread, "lock waits" asks for both.
    expect(familiesInText(familyPhrase('lock_waits') ?? '').map((m) => m.family).sort()).toEqual(['lock_waits', 'locks']);
  });
});
