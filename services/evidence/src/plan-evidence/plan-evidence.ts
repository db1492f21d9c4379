import { MAX_QUERIES_PER_BATCH, type EvidenceBatchPlannedV1, type EvidenceRequestedV1 } from '@aoc/contracts';
import { QUERY_TEMPLATES } from './query-templates';

const SAFE_TARGET = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Plans one bounded read-only batch for a neutral evidence question. */
export function planEvidence(request: EvidenceRequestedV1): EvidenceBatchPlannedV1 {
  const base = {
    runId: request.runId,
    scenarioId: request.scenarioId,
    requestId: request.requestId,
    batchId: `${request.requestId}:b0`,
    planRevision: 0,
    provider: request.provider,
    target: request.target,
    window: request.window,
  } as const;
  if (request.provider === 'none' || request.target === null) {
    return { ...base, queries: [], plannerNotes: 'No usable provider target was given; nothing can be queried.' };
  }
  if (!SAFE_TARGET.test(request.target)) {
    return { ...base, queries: [], plannerNotes: 'The target is not a safe identifier; no query was planned.' };
  }
  const question = request.question.toLowerCase();
  const chosen = QUERY_TEMPLATES.filter((t) => t.asks.some((a) => question.includes(a))).slice(0, MAX_QUERIES_PER_BATCH);
  const target = request.target;
  return {
    ...base,
    queries: chosen.map((t) => ({ id: t.id, operation: t.operation, expression: t.expression.replace(/\$TARGET/g, target), purpose: t.purpose })),
    plannerNotes: chosen.length === 0 ? 'No query template matches what the question asks to measure.' : '',
  };
}
