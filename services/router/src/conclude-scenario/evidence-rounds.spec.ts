import { EvidenceRequestedV1 } from '@aoc/contracts';
import { evidenceRequestId } from './evidence-rounds';

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
