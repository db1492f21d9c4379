import { checkCandidate } from '@aoc/versioned-data';
import { candidateGate } from '../src/focus/candidate-gate';
import { buildRecord, parseRecord, type OptimizationRecord } from '../src/records/optimization-record';
import { localDataAccess } from '../src/run-focus/data-access';
import type { JudgedReplay } from '../src/run-focus/replay-judging';
import { criteriaFor, type FocusCandidate } from '../src/select-focus/focus-selector';

/**
 * An accepted optimisation record built by the real code (one step of the deviation threshold,
 * gated `gap -> met` on every target), for specs that need a record without running a Focus.
 * `unique` (12 hex) makes its Focus, refs, candidate and data version its own.
 */
export function recordFixture(unique: string, tickets: readonly string[]): { record: OptimizationRecord; candidate: FocusCandidate } {
  const data = localDataAccess();
  const { blockingCriterionId, criteria } = criteriaFor('lock_waits');
  const judged = (caseId: string, status: 'met' | 'gap'): JudgedReplay => ({ caseId, role: 'target', executed: true, judgement: { caseId, results: criteria.map((c) => ({ criterionId: c.id, status, reason: 'r' })) }, leadingFamily: null, error: null });
  const diff = { edits: [{ path: 'services/router/data/family-rules.json', pointer: '/deviationThreshold', value: 3, because: 'one step down' }] };
  const candidate: FocusCandidate = {
    groupingDigest: unique,
    signature: 'quality:lock_waits',
    problemStatement: 'answers lead with CPU where the customers confirmed lock waits',
    blockingCriterionId,
    criteria,
    targets: tickets.map((ticketKey) => ({ ticketKey, ref: `sig_${unique}_${ticketKey}`, source: { runId: `run-${ticketKey}`, answerFingerprint: 'f'.repeat(64), cutoff: null, ticketDigest: 'd', referenceComments: [] }, statement: `${ticketKey}: named CPU; the customer confirmed lock waits` })),
    controls: [],
  };
  const built = buildRecord({
    focus: { focusId: `focus-${unique}`, focusDigest: 'focus:fixture', candidate },
    attempt: 1,
    proposer: 'test',
    baseVersion: data.baseVersion(),
    candidateDigest: `cand:${unique}${'0'.repeat(20)}`,
    diff,
    before: new Map([[diff.edits[0].path, data.read(diff.edits[0].path)]]),
    after: checkCandidate(diff, data.manifest, data.read).files ?? new Map(),
    manifest: data.manifest,
    read: data.read,
    unifiedDiff: '--- a/services/router/data/family-rules.json\n+++ b/services/router/data/family-rules.json\n-  "deviationThreshold": 4,\n+  "deviationThreshold": 3,\n',
    gate: candidateGate(tickets.map((t) => judged(t, 'gap')), tickets.map((t) => judged(t, 'met')), blockingCriterionId),
    commit: null,
    kinds: new Map(),
    at: new Date('2026-12-01T04:00:00Z'),
  });
  // A data version of its own: a shared database keeps answers of earlier runs.
  return { record: parseRecord({ ...built, data: { ...built.data, dataVersion: `data:${unique}${'0'.repeat(20)}` } }), candidate };
}
