import type { CaseJudgement, CriterionStatus } from '../judge-criteria/criterion-judge';
import type { SignalSource } from '../collect-signals/signal-refs';
import { caseBlockers, decideBaseline, recheckSources, reproducibility, unmetRefs, type CurrentSource, type ReplayedCase } from './baseline';
import { candidateGate, transitionOf } from './candidate-gate';
import { attemptsStartedToday, shouldRetire, type AttemptRecord } from './focus-limits';

const BLOCK = 'lead-lock-waits';
const judged = (caseId: string, blocking: CriterionStatus, other: CriterionStatus = 'met'): CaseJudgement => ({
  caseId,
  results: [
    { criterionId: BLOCK, status: blocking, reason: '' },
    { criterionId: 'queried-lock-waits', status: other, reason: '' },
  ],
});
const target = (caseId: string, blocking: CriterionStatus, other: CriterionStatus = 'met', executed = true): ReplayedCase => ({ caseId, role: 'target', executed, judgement: judged(caseId, blocking, other) });
const control = (caseId: string, blocking: CriterionStatus): ReplayedCase => ({ caseId, role: 'control', executed: true, judgement: judged(caseId, blocking) });
const source = (ticket: string, body = 'b1'): SignalSource => ({ runId: `run-${ticket}`, answerFingerprint: 'f'.repeat(64), cutoff: null, ticketDigest: `d-${ticket}`, questionDigest: `q-${ticket}`, referenceComments: [{ id: 'c1', bodyDigest: body }] });

describe('Focus baseline', () => {
  it('creates a Focus only on two confirmed blocking gaps with every target replayed; controls never decide', () => {
    expect(decideBaseline([target('A', 'gap'), target('B', 'gap'), control('C', 'gap')], BLOCK)).toMatchObject({ outcome: 'focus_created', finding: 'gaps_found', confirmedGapTargets: ['A', 'B'] });
    expect(decideBaseline([target('A', 'gap'), target('B', 'met'), control('C', 'met')], BLOCK)).toMatchObject({ outcome: 'focus_candidate_rejected', reason: expect.stringContaining('1 target') });
    expect(decideBaseline([target('A', 'gap'), target('B', 'not_applicable'), target('C', 'inconclusive')], BLOCK).outcome).toBe('focus_candidate_rejected');
    expect(decideBaseline([target('A', 'gap'), target('B', 'gap'), target('C', 'gap', 'met', false)], BLOCK)).toMatchObject({ outcome: 'focus_candidate_rejected', reason: 'target replay failed: C' });
  });

  it('re-checks frozen sources first: a changed target suppresses its ref and releases the others, a changed control is dropped', () => {
    const candidate = { targets: [{ ticketKey: 'A', ref: 'sig_a', source: source('A'), statement: '' }, { ticketKey: 'B', ref: 'sig_b', source: source('B'), statement: '' }], controls: [{ ticketKey: 'C', source: source('C') }] };
    const now = new Map<string, CurrentSource>([
      ['A', { ticketDigest: 'd-A', questionDigest: 'q-A', referenceComments: [{ id: 'c1', bodyDigest: 'b1' }] }],
      ['B', { ticketDigest: 'd-B', questionDigest: 'q-B', referenceComments: [{ id: 'c1', bodyDigest: 'b1' }] }],
      ['C', { ticketDigest: 'd-C', questionDigest: 'q-C', referenceComments: [{ id: 'c1', bodyDigest: 'edited' }] }],
    ]);
    expect(recheckSources(candidate, now)).toEqual({ kind: 'unchanged', droppedControls: ['C'] });
    // An edited title or description changes the source even when no comment moved.
    now.set('A', { ticketDigest: 'd-A', questionDigest: 'q-A-edited', referenceComments: [{ id: 'c1', bodyDigest: 'b1' }] });
    expect(recheckSources(candidate, now)).toEqual({ kind: 'changed', changedRefs: ['sig_a'], releasedRefs: ['sig_b'], droppedControls: ['C'] });
    // A ref from before question digests were carried is compared on its conversation only.
    const legacy = { ...candidate, targets: candidate.targets.map((t) => ({ ...t, source: { ...t.source, questionDigest: undefined } })) };
    expect(recheckSources(legacy, now)).toEqual({ kind: 'unchanged', droppedControls: ['C'] });
    now.set('A', { ticketDigest: 'd-A', questionDigest: 'q-A', referenceComments: [{ id: 'c1', bodyDigest: 'b1' }] });
    now.set('B', { ticketDigest: 'd-B-new', questionDigest: 'q-B', referenceComments: [{ id: 'c1', bodyDigest: 'b1' }] });
    expect(recheckSources(candidate, now)).toEqual({ kind: 'changed', changedRefs: ['sig_b'], releasedRefs: ['sig_a'], droppedControls: ['C'] });
  });

  it('calls a target without a collected timeline unverifiable, not changed; a control without one is dropped', () => {
    const candidate = { targets: [{ ticketKey: 'A', ref: 'sig_a', source: source('A'), statement: '' }, { ticketKey: 'B', ref: 'sig_b', source: source('B'), statement: '' }], controls: [{ ticketKey: 'C', source: source('C') }] };
    const current = (key: string): CurrentSource => ({ ticketDigest: `d-${key}`, questionDigest: `q-${key}`, referenceComments: [{ id: 'c1', bodyDigest: 'b1' }] });
    // B changed, A has no timeline: nothing is decided (before the machine this was "both changed").
    expect(recheckSources(candidate, new Map([['B', { ...current('B'), ticketDigest: 'd-B-new' }]]))).toEqual({ kind: 'unverifiable', cases: ['A'] });
    expect(recheckSources(candidate, new Map([['A', current('A')], ['B', current('B')]]))).toEqual({ kind: 'unchanged', droppedControls: ['C'] });
  });

  it('keeps a Focus active on two gaps, closes it on a strict majority met without failures, else inconclusive', () => {
    expect(reproducibility([target('A', 'gap'), target('B', 'gap'), target('C', 'met')], BLOCK)).toEqual({ kind: 'active', confirmedGaps: 2 });
    expect(reproducibility([target('A', 'gap'), target('B', 'met'), target('C', 'met')], BLOCK)).toEqual({ kind: 'auto_close', confirmedGaps: 1, met: 2 });
    expect(reproducibility([target('A', 'gap'), target('B', 'met'), target('C', 'inconclusive'), target('D', 'inconclusive')], BLOCK).kind).toBe('inconclusive');
    expect(reproducibility([target('A', 'met'), target('B', 'met'), target('C', 'gap', 'met', false)], BLOCK).kind).toBe('inconclusive');
  });

  it('releases on auto-close the refs of targets not met (a gap, not judged, not replayed), never the met ones', () => {
    const targets = ['A', 'B', 'C', 'D', 'E'].map((k) => ({ ticketKey: k, ref: `sig_${k}` }));
    // E was blocked on this base: it is not among the judged cases, so it was not met either.
    expect(unmetRefs(targets, [target('A', 'met'), target('B', 'gap'), target('C', 'inconclusive'), target('D', 'met', 'met', false)], BLOCK)).toEqual(['sig_B', 'sig_C', 'sig_D', 'sig_E']);
  });

  it('blocks a target that alone failed, keeps blockers of this base, and says when too few targets remain', () => {
    const failedC = [target('A', 'gap'), target('B', 'gap'), target('C', 'gap', 'met', false)];
    expect(caseBlockers(failedC, [])).toEqual({ kind: 'blocked', newly: ['C'], all: ['C'] });
    expect(caseBlockers(failedC, ['C'])).toEqual({ kind: 'blocked', newly: [], all: ['C'] });
    expect(caseBlockers([target('A', 'gap'), target('B', 'gap'), target('C', 'gap')], ['C'])).toEqual({ kind: 'blocked', newly: [], all: ['C'] });
    expect(caseBlockers([target('A', 'gap'), target('B', 'gap', 'met', false), target('C', 'gap')], ['C'])).toEqual({ kind: 'insufficient', all: ['C', 'B'] });
    // Half the targets failing is not a blocker but an evaluation that could not be done, even with two gaps confirmed.
    expect(caseBlockers([target('A', 'gap'), target('B', 'gap', 'met', false)], [])).toEqual({ kind: 'wide', failed: ['B'] });
    expect(caseBlockers([target('A', 'gap'), target('B', 'gap'), target('C', 'gap', 'met', false), target('D', 'met', 'met', false)], ['A'])).toEqual({ kind: 'wide', failed: ['C', 'D'] });
    expect(caseBlockers([target('A', 'gap'), target('B', 'gap'), control('X', 'gap')], ['Z'])).toEqual({ kind: 'none' });
  });
});

describe('candidate gate', () => {
  it('labels every transition', () => {
    expect([transitionOf('met', 'gap'), transitionOf('gap', 'gap'), transitionOf('gap', 'met'), transitionOf('met', 'inconclusive'), transitionOf('met', 'met'), transitionOf('not_applicable', 'not_applicable')]).toEqual([
      'regression',
      'preexisting_unresolved',
      'fixed',
      'inconclusive',
      'preserved',
      'not_applicable',
    ]);
  });

  it('accepts when the blocking criterion is met on every target; follow-ups, target regressions and control regressions are recorded', () => {
    const gate = candidateGate([target('A', 'gap', 'gap'), target('B', 'gap'), control('C', 'met')], [target('A', 'met', 'gap'), target('B', 'met', 'gap'), control('C', 'gap')], BLOCK);
    expect(gate.status).toBe('accepted');
    expect(gate.fixedTargets).toEqual(['A', 'B']);
    expect(gate.followUpGaps.map((r) => r.caseId)).toEqual(['A', 'B']);
    expect(gate.regressions.map((r) => [r.caseId, r.criterionId])).toEqual([['B', 'queried-lock-waits']]);
    expect(gate.controlRegressions.map((r) => r.caseId)).toEqual(['C']);
  });

  it('rejects a remaining blocking gap and is inconclusive when a target could not be judged or replayed', () => {
    expect(candidateGate([target('A', 'gap'), target('B', 'gap')], [target('A', 'met'), target('B', 'gap')], BLOCK)).toMatchObject({ status: 'rejected', reason: expect.stringContaining('B') });
    expect(candidateGate([target('A', 'gap'), target('B', 'gap')], [target('A', 'met'), target('B', 'inconclusive')], BLOCK).status).toBe('inconclusive');
    expect(candidateGate([target('A', 'gap'), target('B', 'gap')], [target('A', 'met')], BLOCK).status).toBe('inconclusive');
  });
});

describe('limits', () => {
  it('counts attempts per Shanghai day and retires only after 7 days, 10 reviewed attempts and 6 without improvement', () => {
    const at = (iso: string, improved = false): AttemptRecord => ({ startedAt: iso, reviewed: true, confirmedImprovement: improved });
    // 17:00 UTC on the 1st is already the 2nd in Shanghai.
    expect(attemptsStartedToday([at('2026-12-01T15:00:00Z'), at('2026-12-01T17:00:00Z'), at('2026-12-02T03:00:00Z')], new Date('2026-12-02T04:00:00Z'), 'Asia/Shanghai')).toBe(2);
    const ten = Array.from({ length: 10 }, (_, i) => at(`2026-12-0${1 + (i % 9)}T05:00:00Z`, i === 3));
    expect(shouldRetire('2026-11-20T00:00:00Z', ten, new Date('2026-12-01T00:00:00Z'))).toBe(true);
    expect(shouldRetire('2026-11-28T00:00:00Z', ten, new Date('2026-12-01T00:00:00Z'))).toBe(false);
    expect(shouldRetire('2026-11-20T00:00:00Z', ten.slice(0, 9), new Date('2026-12-01T00:00:00Z'))).toBe(false);
    const lateWin = ten.map((a, i) => (i === 8 ? { ...a, confirmedImprovement: true } : a));
    expect(shouldRetire('2026-11-20T00:00:00Z', lateWin, new Date('2026-12-01T00:00:00Z'))).toBe(false);
  });
});
