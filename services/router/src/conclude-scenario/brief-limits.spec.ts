import { LocalCausalBriefV1 } from '@aoc/contracts';
import { fitBrief } from './brief-limits';

describe('fitting a brief to its contract', () => {
  it('clips every list and text to the limits LocalCausalBriefV1 declares, and leaves a brief that fits untouched', () => {
    const long = (n: number) => 'y'.repeat(n);
    const lines = (k: number, n: number) => Array.from({ length: k }, () => long(n));
    const oversized: LocalCausalBriefV1 = {
      observations: lines(9, 2000),
      counterObservations: lines(7, 2000),
      leadingMechanism: { statement: long(3000), strength: 'strong', openLink: long(3000), family: 'cpu', mode: 'cpu-load' },
      strongestAlternative: long(3000),
      workloadAttribution: long(3000),
      mitigationOrHandoff: long(5000),
      severity: 'high',
      undetermined: lines(30, 2000),
      hypotheses: Array.from({ length: 20 }, () => ({ mode: 'cpu-load', verdict: 'confirmed' as const, score: 0.5, explainedBy: null, evidence: lines(6, 2000) })),
    };
    expect(LocalCausalBriefV1.safeParse(oversized).success).toBe(false);
    const fitted = fitBrief(oversized);
    expect(LocalCausalBriefV1.safeParse(fitted).success).toBe(true);
    expect(fitted.observations).toHaveLength(4);
    expect(fitted.leadingMechanism.statement.endsWith('…')).toBe(true);
    const small = LocalCausalBriefV1.parse({ ...oversized, observations: ['a'], counterObservations: [], leadingMechanism: { ...oversized.leadingMechanism, statement: 's', openLink: null }, strongestAlternative: 'x', workloadAttribution: null, mitigationOrHandoff: 'm', undetermined: [], hypotheses: [] });
    expect(fitBrief(small)).toEqual(small);
  });
});
