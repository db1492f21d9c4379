import type { EvaluationJudgedV1, RunExecutionRecordedV1 } from '@aoc/contracts';
import { analysedDigest, evaluationSignals, feedbackSignals, runtimeSignals, type SignalSource } from '../collect-signals/signal-refs';
import { groupingDigest, selectFocus, type ControlCandidate, type SelectableSignal } from './focus-selector';

const src = (ticket: string): SignalSource => ({ runId: `run-${ticket}`, answerFingerprint: 'a'.repeat(64), cutoff: '2026-11-20T10:00:00.000Z', ticketDigest: `t-${ticket}`, referenceComments: [{ id: 'c-2', bodyDigest: 'b'.repeat(64) }] });
const evaluation = (ticket: string, aiGaps: string[], keyDifferences: string[] = []): EvaluationJudgedV1 =>
  ({
    evaluationId: `ev-${ticket}`,
    revision: 1,
    supersedesEvaluationId: null,
    runId: `run-${ticket}`,
    ticketKey: ticket,
    answerFingerprint: 'a'.repeat(64),
    judgedAt: '2026-11-21T00:00:00.000Z',
    judgeEngine: 'rubric-judge-v3',
    verdict: 'human_better',
    abstentionCode: null,
    verdictReason: 'r',
    qualityScore: 0,
    aiGaps,
    keyDifferences,
    aiStrengths: [],
    internalHandoffGaps: [],
    targetHumanCommentIds: ['c-2'],
    referenceComments: [{ id: 'c-2', createdAt: '2026-11-20T11:00:00.000Z', bodyDigest: 'b'.repeat(64) }],
    humanAnswerMarkdown: 'x',
  }) as EvaluationJudgedV1;
const open = (signals: ReturnType<typeof evaluationSignals>): SelectableSignal[] => signals.map((s) => ({ ...s, unavailable: false }));
const base = (ticket: string) => ({ runId: `run-${ticket}`, answerFingerprint: 'a'.repeat(64), cutoff: '2026-11-20T10:00:00.000Z', ticketDigest: `t-${ticket}` });

describe('problem signal refs', () => {
  it('gives one stable ref per AI gap and key difference of a human_better answer version, none for others', () => {
    const a = evaluationSignals(
      evaluation('SUP-1', ['the human answer names lock waits on orders', 'the human answer states "2.5 s"', 'named "CPU utilisation"; the customer confirmed "row locks", "lock waits"'], ['the answers name different mechanisms ("row lock")']),
      base('SUP-1'),
    );
    // The signature is the human side's family, never the one the AI wrongly named.
    expect(a.map((s) => [s.kind, s.signature])).toEqual([
      ['ai_gap', 'quality:lock_waits'],
      ['ai_gap', 'quality:unclassified'],
      ['ai_gap', 'quality:locks'],
      ['key_difference', 'quality:locks'],
    ]);
    expect(a[0].source.referenceComments).toEqual([{ id: 'c-2', bodyDigest: 'b'.repeat(64) }]);
    // Re-judged with the same gap (new revision, other whitespace): the same ref.
    const again = evaluationSignals({ ...evaluation('SUP-1', ['the human answer  names lock waits on orders']), evaluationId: 'ev-2', revision: 2 }, base('SUP-1'));
    expect(again[0].ref).toBe(a[0].ref);
    expect(evaluationSignals({ ...evaluation('SUP-1', ['x']), verdict: 'equivalent', qualityScore: 1 } as EvaluationJudgedV1, base('SUP-1'))).toEqual([]);
  });

  it('binds /ao wrong|revise to its exact answer version, one ref per comment whatever its later edits', () => {
    const binding = (over: object) => ({ commentId: 'c-9', runId: 'run-SUP-1', answerFingerprint: 'a'.repeat(64), action: 'wrong' as const, reason: 'it was lock contention on orders', commentCreatedAt: '', commentUpdatedAt: '', authorRole: 'support', visibility: 'internal' as const, ...over });
    const first = feedbackSignals('SUP-1', [binding({}), binding({ commentId: 'c-10', action: 'accept' }), binding({ commentId: 'c-11', runId: 'run-other' })], src('SUP-1'));
    expect(first.map((s) => [s.kind, s.feedbackCommentId, s.signature])).toEqual([['explicit_feedback', 'c-9', 'quality:lock_waits']]);
    const edited = feedbackSignals('SUP-1', [binding({ reason: 'blocked sessions behind a long transaction' })], src('SUP-1'));
    expect(edited[0].ref).toBe(first[0].ref);
    expect(edited[0].statement).toBe('/ao wrong: blocked sessions behind a long transaction');
  });

  it('identifies runtime degradation by stage, providers and codes; degraded or failed is coverage', () => {
    const record = (status: 'degraded' | 'failed') =>
      ({ runId: 'run-SUP-1', ticketKey: 'SUP-1', responseGeneration: { status: 'succeeded', engine: 'builtin' }, evidenceAcquisition: { status, capability: 'partial', providers: ['clinic'] }, failureCodes: ['PROVIDER.TIMEOUT'] }) as unknown as RunExecutionRecordedV1;
    const d = runtimeSignals(record('degraded'), src('SUP-1'));
    const f = runtimeSignals(record('failed'), src('SUP-1'));
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ signature: 'runtime:evidence:clinic:PROVIDER.TIMEOUT', coverage: 'degraded' });
    expect(f[0].ref).toBe(d[0].ref);
  });

  it('digests the conversation as the analysis saw it: public comments up to the cutoff', () => {
    const c = (id: string, body: string, createdAt: string, visibility = 'public') => ({ id, body, createdAt, visibility });
    const seen = [c('1', 'slow since 10:00', '2026-11-20T09:50:00Z'), c('2', 'internal note', '2026-11-20T09:55:00Z', 'internal'), c('3', 'a later reply', '2026-11-20T11:00:00Z')];
    const at = '2026-11-20T10:00:00Z';
    expect(analysedDigest(seen, at)).toBe(analysedDigest([...seen.slice(0, 2), c('3', 'edited later reply', '2026-11-20T11:00:00Z')], at));
    expect(analysedDigest(seen, at)).not.toBe(analysedDigest([c('1', 'slow since 09:00', '2026-11-20T09:50:00Z'), ...seen.slice(1)], at));
    expect(analysedDigest(null, at)).toBe('unknown');
  });
});

describe('Focus selector', () => {
  const lockGap = (ticket: string) => open(evaluationSignals(evaluation(ticket, ['the human answer names lock waits on orders']), base(ticket)));
  const control = (ticket: string, over: Partial<ControlCandidate> = {}): ControlCandidate => ({ ticketKey: ticket, source: src(ticket), verdict: 'equivalent', aiGapCount: 0, leadingFamily: 'lock_waits', ...over });

  it('proposes one narrow problem: one ref per target ticket, 2-5 targets, matching controls, one blocking criterion', () => {
    const signals = [...lockGap('SUP-1'), ...lockGap('SUP-2'), ...lockGap('SUP-3'), ...open(evaluationSignals(evaluation('SUP-1', ['the human answer names lock waits, again in other words']), base('SUP-1')))];
    const sel = selectFocus(signals, [control('SUP-8'), control('SUP-9'), control('SUP-7', { leadingFamily: 'cpu' }), control('SUP-6', { aiGapCount: 1 }), control('SUP-5'), control('SUP-1')], new Set());
    expect(sel.kind).toBe('candidate');
    if (sel.kind !== 'candidate') return;
    const c = sel.candidate;
    expect(c.signature).toBe('quality:lock_waits');
    expect(c.targets.map((t) => t.ticketKey)).toEqual(['SUP-1', 'SUP-2', 'SUP-3']);
    expect(new Set(c.targets.map((t) => t.ref)).size).toBe(3);
    expect(c.controls.map((x) => x.ticketKey)).toEqual(['SUP-5', 'SUP-8']);
    expect(c.criteria.filter((x) => x.id === c.blockingCriterionId)).toEqual([expect.objectContaining({ kind: 'leading_mechanism_family', family: 'lock_waits', requiredCapabilities: ['provider_evidence'] })]);
  });

  it('refuses one ticket alone, broad or runtime signatures, consumed refs and a grouping already rejected', () => {
    expect(selectFocus(lockGap('SUP-1'), [], new Set())).toEqual({ kind: 'none', reason: 'no narrow problem is shared by two or more tickets' });
    const broad = [...open(evaluationSignals(evaluation('SUP-1', ['misses the point']), base('SUP-1'))), ...open(evaluationSignals(evaluation('SUP-2', ['misses the point']), base('SUP-2')))];
    expect(selectFocus(broad, [], new Set())).toMatchObject({ kind: 'none', reason: expect.stringContaining('quality:unclassified (too broad)') });
    const consumed = [...lockGap('SUP-1'), ...lockGap('SUP-2').map((s) => ({ ...s, unavailable: true }))];
    expect(selectFocus(consumed, [], new Set()).kind).toBe('none');
    const two = [...lockGap('SUP-1'), ...lockGap('SUP-2')];
    const rejected = groupingDigest(
      two.map((s) => s.ref),
      [],
    );
    expect(selectFocus(two, [], new Set([rejected])).kind).toBe('none');
    // A new ref changes the grouping: it may be tried again.
    expect(selectFocus([...two, ...lockGap('SUP-3')], [], new Set([rejected])).kind).toBe('candidate');
  });

  it('lets a new ref into a rejected grouping even when the tickets already fill it', () => {
    const tickets = ['SUP-1', 'SUP-2', 'SUP-3', 'SUP-4', 'SUP-5'];
    const five = tickets.flatMap(lockGap);
    const first = selectFocus(five, [], new Set());
    if (first.kind !== 'candidate') throw new Error('expected a candidate');
    const rejected = new Set([first.candidate.groupingDigest]);
    const tried = new Set(first.candidate.targets.map((t) => t.ref));
    // A sixth ticket sorts after the five: by ticket order alone the same five would come back, rejected.
    const sixth = [...five, ...lockGap('SUP-6')];
    expect(selectFocus(sixth, [], rejected).kind).toBe('none');
    const again = selectFocus(sixth, [], rejected, tried);
    expect(again.kind === 'candidate' && again.candidate.targets.map((t) => t.ticketKey)).toEqual(['SUP-1', 'SUP-2', 'SUP-3', 'SUP-4', 'SUP-6']);
    // A new ref of a ticket already in the grouping replaces that ticket's tried ref.
    const newRef = open(evaluationSignals(evaluation('SUP-2', ['the human answer names lock waits, in new words']), base('SUP-2')));
    const replaced = selectFocus([...five, ...newRef], [], rejected, tried);
    expect(replaced.kind === 'candidate' && replaced.candidate.targets.find((t) => t.ticketKey === 'SUP-2')?.ref).toBe(newRef[0].ref);
  });
});
