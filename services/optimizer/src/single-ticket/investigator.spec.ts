import type { AnswerVersionRow } from '../persistence/signal-store';
import type { JudgedReplay } from '../run-focus/replay-judging';
import { answerReview, classify, isTransientError, type InvestigationInput } from './investigator';

const answer: AnswerVersionRow = { runId: 'run-1', ticketKey: 'SUP-1', answerFingerprint: 'f', cutoff: null, publishedAt: '2026-12-01T00:00:00.000Z', decision: 'human_required', requestedContext: [], leadingFamily: 'cpu' };
const fresh = (leadingFamily: string | null, blocking: 'met' | 'gap' | 'inconclusive' | null, executed = true, error: string | null = null): JudgedReplay => ({
  caseId: 'SUP-1',
  role: 'target',
  executed,
  leadingFamily,
  error,
  judgement: { caseId: 'SUP-1', results: blocking ? [{ criterionId: 'lead-lock-waits', status: blocking, reason: 'r' }] : [] },
});
const quality = { kind: 'signal' as const, ref: 'sig_1', signalKind: 'explicit_feedback' as const, signature: 'quality:lock_waits', statement: '/ao wrong: lock waits', runId: 'run-1' };
const runtime = { kind: 'signal' as const, ref: 'sig_2', signalKind: 'runtime' as const, signature: 'runtime:evidence:prometheus:PROVIDER.TIMEOUT', statement: 'evidence degraded', runId: 'run-1' };
const input = (over: Partial<InvestigationInput>): InvestigationInput => ({ trigger: quality, answer, wantedFamily: 'lock_waits', human: { source: 'feedback', statement: '/ao wrong: lock waits' }, fresh: fresh('lock_waits', 'met'), blockingCriterionId: 'lead-lock-waits', ...over });

describe('single-ticket investigator', () => {
  it('reviews the answer first: what it led with, what the human side names, what the replay leads with now', () => {
    const review = answerReview(input({ fresh: fresh('cpu', 'gap') }));
    expect(review.original).toMatchObject({ runId: 'run-1', leadingFamily: 'cpu', decision: 'human_required' });
    expect(review.human).toEqual({ source: 'feedback', statement: '/ao wrong: lock waits', family: 'lock_waits' });
    expect(review.fresh).toEqual({ executed: true, leadingFamily: 'cpu', blocking: 'gap', error: null });
    expect(review.summary).toMatch(/led with cpu.*names lock_waits.*leads with cpu \(blocking criterion gap\)/);
  });

  it('classifies one finding per case', () => {
    expect(classify(input({})).kind).toBe('historical_only');
    expect(classify(input({ answer: { ...answer, leadingFamily: 'lock_waits' } })).kind).toBe('no_problem');
    expect(classify(input({ fresh: fresh('cpu', 'gap') }))).toMatchObject({ kind: 'local_repair', wantedFamily: 'lock_waits', ledFamily: 'cpu' });
    expect(classify(input({ wantedFamily: null, blockingCriterionId: null, fresh: fresh('cpu', null) })).kind).toBe('no_problem');
    expect(classify(input({ fresh: fresh('cpu', 'inconclusive') })).kind).toBe('no_problem');
    expect(classify(input({ fresh: fresh(null, 'inconclusive', false, 'provider answered HTTP 503') })).kind).toBe('transient');
    expect(classify(input({ fresh: fresh(null, 'inconclusive', false, 'no frozen ticket for SUP-1') })).kind).toBe('replay_failed');
  });

  it('keeps runtime problems out of single-ticket patches', () => {
    const rt = (f: JudgedReplay) => classify(input({ trigger: runtime, wantedFamily: null, blockingCriterionId: null, fresh: f })).kind;
    expect(rt(fresh('cpu', null))).toBe('transient');
    expect(rt(fresh(null, null, false, 'upstream 429 Too Many Requests'))).toBe('transient');
    expect(rt(fresh(null, null, false, 'PROVIDER.QUERY_FAILED on every attempt'))).toBe('global_tuning');
    expect(isTransientError('request timed out')).toBe(true);
    expect(isTransientError(null)).toBe(false);
  });
});
