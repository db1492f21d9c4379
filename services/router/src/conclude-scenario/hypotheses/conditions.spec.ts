import type { EvidenceFactV1 } from '@aoc/contracts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { familySignals } from '../family-rules';
import { evaluateCondition } from './conditions';
import { buildContext } from './evidence-context';
import { FAILURE_MODES, FailureModesData, logPatternWords } from './failure-modes.data';
import { changeFactor, signalState } from './signal-state';
import { FROM, WINDOW, flat, metric } from './testing/hypothesis-facts';

// The pieces hypotheses are tested with: the failure-mode catalogue, the state of a signal and the
// conditions a mode's clauses are read through. How modes are decided: hypotheses.spec.ts.

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
