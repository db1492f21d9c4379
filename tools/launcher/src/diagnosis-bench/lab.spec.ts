import { assignFolds, expandLabCase, FoldsFile, leadOf, loadFolds, scoreLab, stampLine, thinConstant, type LabBriefRow } from './lab';
import { sampleCase } from './lab-fixture';
import { suiteBAnchorDay } from './scenarios';

describe('fold split', () => {
  const cases = [
    ...['a', 'b', 'c', 'd', 'e', 'f'].map((x) => ({ id: `pg-deadlocks-${x}`, mode: 'deadlocks' as const })),
    ...['a', 'b', 'c'].map((x) => ({ id: `my-restart-${x}`, mode: 'restart' as const })),
  ];

  it('spreads each mode over the folds, the same way every time', () => {
    const folds = assignFolds(cases, 3);
    const of = (prefix: string) => cases.filter((c) => c.id.startsWith(prefix)).map((c) => folds.get(c.id) as number);
    expect(of('pg-deadlocks').sort()).toEqual([0, 0, 1, 1, 2, 2]);
    expect(of('my-restart').sort()).toEqual([0, 1, 2]);
    expect(assignFolds([...cases].reverse(), 3)).toEqual(folds);
  });

  it('keeps a held-out fold in the committed folds file', () => {
    const spec = loadFolds();
    expect(spec.development.length).toBeLessThan(spec.k);
    expect(FoldsFile.safeParse({ k: 3, development: [0, 1, 2] }).success).toBe(false);
    expect(FoldsFile.safeParse({ k: 3, development: [3] }).error?.issues[0].path).toEqual(['development', 0]);
  });
});

describe('expandLabCase', () => {
  const now = Date.parse('2026-12-20T12:00:00Z');
  const e = expandLabCase(sampleCase(), suiteBAnchorDay(now));

  it('moves the case by whole days to three days before now, clock times kept', () => {
    expect(e.shiftDays).toBe(15);
    expect(e.request.cutoff).toBe('2026-12-17T10:00:00Z');
    expect(e.request.ticket.createdAt).toBe('2026-12-17T09:57:00Z');
    expect(e.request.ticket.description).toContain('09:25 UTC');
  });

  it('puts the samples and the log lines at case start + t', () => {
    const start = Date.parse('2026-12-17T08:46:40Z') / 1000;
    // pg_up is a constant gauge: thinned to its first and last sample here.
    expect(e.series[0].samples).toEqual([
      [start, 1],
      [start + 80, 1],
    ]);
    expect(e.streams).toEqual([{ labels: { cluster: 'lab-pg-09', job: 'postgres' }, entries: [[(start + 40) * 1000, '2026-12-17 08:47:20.000 UTC [123] app@lab ERROR:  deadlock detected']] }]);
  });

  it('thins constant gauges only, never beyond the lookback', () => {
    const t = Array.from({ length: 20 }, (_, i) => i * 40);
    const flat = thinConstant({ type: 'gauge', t, v: t.map(() => 60) });
    expect(flat.map(([x]) => x)).toEqual([0, 240, 480, 720, 760]);
    expect(thinConstant({ type: 'counter', t, v: t.map(() => 5) })).toHaveLength(20);
    expect(thinConstant({ type: 'gauge', t, v: t.map((x) => (x > 400 ? 1 : 0)) })).toHaveLength(20);
  });

  it('stamps lines the way each engine logs', () => {
    const ms = Date.parse('2026-12-17T09:05:07.250Z');
    expect(stampLine('postgres', ms, 'LOG:  x')).toBe('2026-12-17 09:05:07.250 UTC LOG:  x');
    expect(stampLine('mariadb', ms, '0 [Note] x')).toBe('2026-12-17  9:05:07 0 [Note] x');
  });
});

describe('lab scoring', () => {
  const brief = (scenario: string, strength: string, mode: string | null, family: string | null, severity = 'high'): LabBriefRow => ({ scenario, brief: { leadingMechanism: { strength, mode, family }, severity } });
  const vocab = new Map([['deadlocks', ['deadlock', 'lock order']]]);

  it('leads with the strongest brief, ties in scenario order', () => {
    const lead = leadOf([brief('a', 'moderate', 'restart', 'restarts'), brief('b', 'strong', 'deadlocks', 'deadlocks'), brief('c', 'strong', 'batch-job', 'rows_written')]);
    expect(lead).toMatchObject({ mode: 'deadlocks', family: 'deadlocks', strength: 'strong', reportsModes: true, namesFault: true });
    expect(leadOf([])).toMatchObject({ mode: null, reportsModes: false, namesFault: false });
  });

  it('judges the cause by mode, accepted modes too', () => {
    const c = sampleCase();
    expect(scoreLab(c, leadOf([brief('a', 'strong', 'deadlocks', 'deadlocks')]), 'A deadlock between two updates', true, vocab)).toEqual({ causeOk: true, by: 'mode', stateOk: null, vocabularyOk: true, herringTaken: null });
    expect(scoreLab(c, leadOf([brief('a', 'strong', 'lock-contention', 'deadlocks')]), '', true, vocab).causeOk).toBe(false);
    const accepting = { ...c, truth: { ...c.truth, alsoAcceptModes: ['lock-contention' as const] } };
    expect(scoreLab(accepting, leadOf([brief('a', 'strong', 'lock-contention', 'lock_waits')]), '', true, vocab).causeOk).toBe(true);
    expect(scoreLab(c, leadOf([brief('a', 'strong', 'deadlocks', 'deadlocks')]), '', false, vocab).causeOk).toBe(false);
  });

  it('falls back to the family when no brief carries a mode', () => {
    const rows: LabBriefRow[] = [{ scenario: 'a', brief: { leadingMechanism: { strength: 'strong', family: 'deadlocks' } } }];
    expect(scoreLab(sampleCase(), leadOf(rows), '', true, null)).toEqual({ causeOk: true, by: 'family', stateOk: null, vocabularyOk: null, herringTaken: null });
  });

  it('healthy: right when no fault is named; recovered: right cause not reported as active', () => {
    const healthy = sampleCase({ mode: 'healthy', truth: { mode: 'healthy', state: 'healthy', faultStart: null, faultEnd: null, families: [], alsoAcceptModes: [] } });
    expect(scoreLab(healthy, leadOf([brief('a', 'strong', 'healthy', null, 'info')]), '', true, vocab)).toMatchObject({ causeOk: true, stateOk: true });
    expect(scoreLab(healthy, leadOf([brief('a', 'moderate', 'batch-job', 'rows_written')]), '', true, vocab)).toMatchObject({ causeOk: false, stateOk: false });
    const c = sampleCase();
    const recovered = { ...c, truth: { ...c.truth, state: 'recovered' as const, faultEnd: '2026-12-02T09:45:00Z' } };
    expect(scoreLab(recovered, leadOf([brief('a', 'strong', 'deadlocks', 'deadlocks', 'medium')]), '', true, vocab).stateOk).toBe(true);
    expect(scoreLab(recovered, leadOf([brief('a', 'strong', 'deadlocks', 'deadlocks', 'high')]), '', true, vocab).stateOk).toBe(false);
  });

  it('notes a red herring taken', () => {
    const c = sampleCase({ variant: { intensity: 'low', onset: 'early', redHerring: 'batch-job' } });
    expect(scoreLab(c, leadOf([brief('a', 'strong', 'batch-job', 'rows_written')]), '', true, vocab).herringTaken).toBe(true);
    expect(scoreLab(c, leadOf([brief('a', 'strong', 'deadlocks', 'deadlocks')]), '', true, vocab).herringTaken).toBe(false);
  });
});
