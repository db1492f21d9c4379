import type { ProblemStatus } from '../focus/problem-status-machine';
import { blockedByRecords, type RecordedProblem, type SignalAnswer } from './record-dedupe';

const DEPLOYED = `data:${'d'.repeat(32)}`;
const problem = (status: ProblemStatus, extra: Partial<RecordedProblem> = {}): RecordedProblem => ({
  recordId: 'opt-1',
  ref: 'r1',
  ticketKey: 'SUP-1',
  signature: 'quality:lock_waits',
  status,
  recordedAt: '2026-12-01T00:00:00.000Z',
  decidedAt: status === 'optimized_verified' || status === 'ineffective' ? '2026-12-03T00:00:00.000Z' : null,
  dataVersion: DEPLOYED,
  ...extra,
});
const signal = (ref: string, extra: Partial<SignalAnswer> = {}): SignalAnswer => ({ ref, ticketKey: 'SUP-1', signature: 'quality:lock_waits', answer: { dataVersion: null, publishedAt: '2026-11-30T10:00:00.000Z' }, ...extra });

describe('selection and dedupe read the records', () => {
  it('holds a recorded ref while its record is candidate, deployed or verified, and lets it back once ineffective', () => {
    for (const status of ['candidate', 'optimized_unverified', 'optimized_verified'] as const) expect(blockedByRecords([signal('r1')], [problem(status)]).get('r1')).toBe(`opt-1 is ${status}`);
    expect(blockedByRecords([signal('r1')], [problem('ineffective')]).has('r1')).toBe(false);
    // The latest record of a ref decides: a new record on an ineffective problem holds it again.
    expect(blockedByRecords([signal('r1')], [problem('ineffective'), problem('candidate', { recordId: 'opt-2', recordedAt: '2026-12-04T00:00:00.000Z' })]).get('r1')).toBe('opt-2 is candidate');
  });

  it('holds the same problem of the same ticket under another ref while the record is pending, unless that answer already ran on the deployed data', () => {
    const other = signal('r2', { answer: { dataVersion: null, publishedAt: '2026-12-02T00:00:00.000Z' } });
    expect(blockedByRecords([other], [problem('candidate')]).get('r2')).toBe('the same problem of SUP-1 is candidate in opt-1');
    expect(blockedByRecords([other], [problem('optimized_unverified')]).has('r2')).toBe(true);
    // Seen on the deployed data: evidence about the change, never hidden by it.
    expect(blockedByRecords([{ ...other, answer: { dataVersion: DEPLOYED, publishedAt: '2026-12-02T00:00:00.000Z' } }], [problem('optimized_unverified')]).has('r2')).toBe(false);
    // Another ticket, or another problem of the same ticket, is not the record's.
    expect(blockedByRecords([signal('r3', { ticketKey: 'SUP-2' }), signal('r4', { signature: 'quality:cpu' })], [problem('candidate')]).size).toBe(0);
    expect(blockedByRecords([other], [problem('ineffective')]).size).toBe(0);
  });

  it('after verification holds only the answers published up to it: a later one is a regression', () => {
    const before = signal('r2', { answer: { dataVersion: null, publishedAt: '2026-12-02T00:00:00.000Z' } });
    const after = signal('r3', { answer: { dataVersion: null, publishedAt: '2026-12-04T00:00:00.000Z' } });
    const unknown = signal('r4', { answer: null });
    const blocked = blockedByRecords([before, after, unknown], [problem('optimized_verified')]);
    expect([...blocked.keys()].sort()).toEqual(['r2', 'r4']);
  });
});
