import { EvidenceRequestedV1 } from '@aoc/contracts';
import type { EvidenceRound } from '../persistence/scenario-thread.entity';
import { combinedStatus, evidenceRequestId } from './evidence-rounds';
import { REFINEMENT_RULES } from './refinement-rules';

describe('evidence request ids', () => {
  it('reads plainly when short and stays within the contract when the run id is long', () => {
    expect(evidenceRequestId('run-1', 'latency-regression', 0)).toBe('run-1:latency-regression:0');
    const long = evidenceRequestId(`run-${'x'.repeat(120)}`, 'latency-regression', 1);
    expect(long).toMatch(/^rq-[a-f0-9]{40}:1$/);
    expect(long).toBe(evidenceRequestId(`run-${'x'.repeat(120)}`, 'latency-regression', 1));
    expect(long).not.toBe(evidenceRequestId(`run-${'x'.repeat(120)}`, 'hotspot', 1));
    expect(EvidenceRequestedV1.shape.requestId.safeParse(long).success).toBe(true);
  });
});

describe('scenario evidence status over rounds', () => {
  const round = (n: number, status: EvidenceRound['status'], question = 'How did lock waits change across the window?'): EvidenceRound => ({ round: n, batchId: `b${n}`, status, question, facts: [], observations: [], gaps: [], failures: [] });

  it('is not degraded by an open-hypotheses round that planned nothing, but is by a failed one', () => {
    expect(combinedStatus([round(0, 'complete'), round(1, 'not_executed')])).toBe('complete');
    expect(combinedStatus([round(0, 'complete'), round(1, 'failed')])).toBe('partial');
    // A history comparison that ran nothing still says so.
    const history = REFINEMENT_RULES[0].question;
    expect(combinedStatus([round(0, 'complete'), round(1, 'not_executed', history)])).toBe('partial');
  });
});
