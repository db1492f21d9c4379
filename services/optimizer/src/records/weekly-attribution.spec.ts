import type { OptimizationRecord, ProblemStatusEntry } from './optimization-record';
import { InvalidWeekError, weekOf, weeklyAttribution } from './weekly-attribution';

const record = (recordId: string, refs: string[]): OptimizationRecord =>
  ({
    recordId,
    focus: { focusId: 'focus-0123456789ab', focusDigest: 'd', attempt: 1, proposer: 'p' },
    problems: refs.map((ref, i) => ({ ref, ticketKey: `SUP-${i + 1}`, kind: 'ai_gap', signature: 'quality:lock_waits', statement: 's', runId: `run-${i}`, answerFingerprint: 'f', cutoff: null })),
    data: { dataVersion: `data:${'d'.repeat(32)}`, changes: [{ surface: 'family_edges /drives', path: 'services/router/data/family-rules.json', pointer: '/drives/lock_waits' }] },
  }) as unknown as OptimizationRecord;
const status = (ref: string, s: ProblemStatusEntry['status'], recordedAt: string, deployedAt: string | null, decidedAt: string | null): ProblemStatusEntry => ({ ref, status: s, reason: s, recordedAt, deployedAt, decidedAt, verification: null });

describe('weekly attribution', () => {
  it('takes the reporter\'s weeks: a Monday, seven Asia/Shanghai days', () => {
    expect(weekOf('2026-11-30')).toEqual({ from: '2026-11-30', to: '2026-12-06', startsAt: new Date('2026-11-29T16:00:00Z'), endsBefore: new Date('2026-12-06T16:00:00Z') });
    expect(() => weekOf('2026-12-01')).toThrow(/^weekStart: must be a Monday/);
    expect(() => weekOf('2026-02-30')).toThrow(InvalidWeekError);
    expect(() => weekOf(undefined)).toThrow(/weekStart: is required/);
  });

  it('attributes the problems verified in the week to their record, and counts the rest', () => {
    const records = [
      {
        record: record('opt-a', ['r1', 'r2', 'r3']),
        statuses: [
          status('r1', 'optimized_verified', '2026-11-25T00:00:00Z', '2026-11-28T00:00:00Z', '2026-12-01T02:00:00Z'),
          status('r2', 'ineffective', '2026-11-25T00:00:00Z', '2026-11-28T00:00:00Z', '2026-12-02T02:00:00Z'),
          // Verified after the week: pending at its end.
          status('r3', 'optimized_verified', '2026-11-25T00:00:00Z', '2026-12-01T00:00:00Z', '2026-12-08T00:00:00Z'),
        ],
      },
      { record: record('opt-b', ['r4']), statuses: [status('r4', 'candidate', '2026-12-03T00:00:00Z', null, null)] },
    ];
    const week = weeklyAttribution(records, '2026-11-30', null, new Date('2026-12-10T00:00:00Z'));
    expect(week.improvements.map((p) => [p.recordId, p.ref, p.ticketKey, p.changes[0]])).toEqual([['opt-a', 'r1', 'SUP-1', 'family_edges /drives services/router/data/family-rules.json /drives/lock_waits']]);
    expect(week.ineffective.map((p) => p.ref)).toEqual(['r2']);
    expect(week.pending.map((p) => [p.ref, p.status, p.statusAtWeekEnd])).toEqual([
      ['r3', 'optimized_verified', 'optimized_unverified'],
      ['r4', 'candidate', 'candidate'],
    ]);
    expect(week.totals).toEqual({ recorded: 1, deployed: 1, verified: 1, ineffective: 1, pendingAtWeekEnd: 2 });
    // The week before: recorded and deployed, nothing decided.
    expect(weeklyAttribution(records, '2026-11-23', null, new Date()).totals).toEqual({ recorded: 3, deployed: 2, verified: 0, ineffective: 0, pendingAtWeekEnd: 3 });
  });
});
