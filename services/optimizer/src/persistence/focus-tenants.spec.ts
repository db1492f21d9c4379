import type { DataSource } from 'typeorm';
import { startOptimizerDb } from '../../test/optimizer-db';
import type { FocusCandidate } from '../select-focus/focus-selector';
import { focusById, focusVisibleTo, saveFocus } from './focus-store';
import { saveAnswerVersion, signals, upsertSignals } from './signal-store';

const source = (runId: string) => ({ runId, answerFingerprint: 'f'.repeat(64), cutoff: null, ticketDigest: 'd', questionDigest: null, referenceComments: [] });
const version = (runId: string, ticketKey: string, tenant: string | null) => ({ runId, ticketKey, tenant, answerFingerprint: 'f'.repeat(64), cutoff: null, publishedAt: '2026-11-20T00:00:00.000Z', decision: 'human_required', requestedContext: [], leadingFamily: null });

function candidate(targets: string[], controls: string[]): FocusCandidate {
  return {
    groupingDigest: 'g',
    signature: 'sig',
    problemStatement: 'p',
    blockingCriterionId: 'c',
    criteria: [],
    targets: targets.map((ticketKey) => ({ ticketKey, ref: `ref-${ticketKey}`, source: source(`run-${ticketKey}`), statement: 's' })),
    controls: controls.map((ticketKey) => ({ ticketKey, source: source(`run-${ticketKey}`) })),
  };
}

/** A Focus belongs to the tenants of every ticket it gathers; one confined to a tenant sees only its own Focuses and signals. */
describe('Focus tenants', () => {
  let ds: DataSource;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ ds, stop } = await startOptimizerDb());
    await saveAnswerVersion(ds.manager, version('run-ACME-1', 'ACME-1', 'acme'));
    await saveAnswerVersion(ds.manager, version('run-ACME-2', 'ACME-2', 'acme'));
    await saveAnswerVersion(ds.manager, version('run-GLX-1', 'GLX-1', 'globex'));
    await saveAnswerVersion(ds.manager, version('run-ORPHAN-1', 'ORPHAN-1', null));
  }, 120000);

  afterAll(async () => {
    await stop?.();
  });

  it('records the tenants of its targets and controls, and shows it only to a principal of all of them or of every tenant', async () => {
    const at = new Date('2026-11-21T00:00:00Z');
    const own = await saveFocus(ds.manager, { focusId: 'focus-00000000000a', focusDigest: 'a', status: 'selected', signature: 'sig', candidate: candidate(['ACME-1'], ['ACME-2']) }, at);
    const mixed = await saveFocus(ds.manager, { focusId: 'focus-00000000000b', focusDigest: 'b', status: 'rejected', signature: 'sig', candidate: candidate(['ACME-1'], ['GLX-1', 'ORPHAN-1']) }, at);
    expect(own.tenants).toEqual(['acme']);
    expect(mixed.tenants).toEqual(['', 'acme', 'globex']);
    expect((await focusById(ds.manager, mixed.focusId))?.tenants).toEqual(['', 'acme', 'globex']);
    expect(focusVisibleTo(own, 'acme')).toBe(true);
    expect(focusVisibleTo(own, 'globex')).toBe(false);
    expect(focusVisibleTo(mixed, 'acme')).toBe(false);
    expect(focusVisibleTo(mixed, null)).toBe(true);
  });

  it('filters problem signals by the tenant of their ticket', async () => {
    const ref = (ticketKey: string) => ({ ref: `r-${ticketKey}`, ticketKey, kind: 'ai_gap' as const, signature: 'sig', statement: 's', source: source(`run-${ticketKey}`), coverage: null, evaluationId: null, feedbackCommentId: null });
    await upsertSignals(ds.manager, [ref('ACME-1'), ref('GLX-1')], new Date());
    expect((await signals(ds.manager, { tenant: 'acme' })).map((s) => s.ticketKey)).toEqual(['ACME-1']);
    expect((await signals(ds.manager, { tenant: 'globex' })).map((s) => s.ticketKey)).toEqual(['GLX-1']);
    expect(await signals(ds.manager)).toHaveLength(2);
  });
});
