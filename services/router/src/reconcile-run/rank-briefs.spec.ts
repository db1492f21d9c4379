import type { LocalCausalBriefV1 } from '@aoc/contracts';
import { modesTested, reconcile, ruledOutLines, writeFinalResponse, type ConcludedScenario } from './final-response';
import { rankBriefs, ticketCoverage } from './rank-briefs';

const brief = (mode: string | null, family: string | null, score: number, over: Partial<LocalCausalBriefV1> = {}): LocalCausalBriefV1 => ({
  observations: ['o'],
  counterObservations: [],
  leadingMechanism: { statement: `${mode} statement`, strength: 'strong', openLink: 'which job', family, mode },
  strongestAlternative: 'alt',
  workloadAttribution: null,
  mitigationOrHandoff: 'do it',
  severity: 'high',
  undetermined: [],
  hypotheses: mode ? [{ mode, verdict: 'confirmed', score, explainedBy: null, evidence: ['e'] }] : [],
  ...over,
});
const scenario = (id: string, b: LocalCausalBriefV1): ConcludedScenario => ({ scenarioId: id, scenario: id, provider: 'prometheus', target: 'db-1', evidenceStatus: 'complete', brief: b });

describe('reconciliation over failure modes', () => {
  it('among equally strong briefs, the confirmed mode with the higher score leads, whatever the scenario order', () => {
    const a = scenario('a-io', brief('io-limit', 'iops', 0.41));
    const b = scenario('b-lag', brief('replication-lag-write-volume', 'replication_lag', 0.77));
    expect(rankBriefs([a, b]).map((s) => s.scenarioId)).toEqual(['b-lag', 'a-io']);
    expect(reconcile([a, b]).primary?.scenarioId).toBe('b-lag');
  });

  it('the ticket naming the symptom adds coverage to the mode that explains it', () => {
    const lag = brief('replication-lag-write-volume', 'replication_lag', 0.5);
    expect(ticketCoverage(lag, 'replica lag keeps growing on orders-db')).toBe(1);
    expect(ticketCoverage(lag, 'our checkout has errors')).toBe(0);
    const a = scenario('a-io', brief('io-limit', 'iops', 0.6));
    const b = scenario('b-lag', lag);
    expect(rankBriefs([a, b], 'replica lag keeps growing')[0].scenarioId).toBe('b-lag');
    expect(rankBriefs([a, b], 'the database is slow')[0].scenarioId).toBe('a-io');
  });

  it('a stronger brief still wins over a higher score', () => {
    const weak = scenario('a', brief('io-limit', 'iops', 0.9, { leadingMechanism: { statement: 's', strength: 'moderate', openLink: null, family: 'iops', mode: 'io-limit' } }));
    const strong = scenario('b', brief('restart', 'restarts', 0.1));
    expect(rankBriefs([weak, strong])[0].scenarioId).toBe('b');
  });

  it('both messages name what was ruled out, and the handoff lists every mode tested', () => {
    const b = brief('connection-exhaustion', 'connections', 0.8, {
      counterObservations: ['Ruled out lock contention: lock waits stayed near their usual level of 2.', 'Connections climbed steadily.'],
      hypotheses: [
        { mode: 'connection-exhaustion', verdict: 'confirmed', score: 0.8, explainedBy: null, evidence: ['e'] },
        { mode: 'lock-contention', verdict: 'refuted', score: 0, explainedBy: null, evidence: ['lock waits stayed'] },
        { mode: 'memory-pressure', verdict: 'undetermined', score: 0, explainedBy: null, evidence: ['no swap data'] },
      ],
    });
    expect(ruledOutLines(b)).toEqual(['Ruled out lock contention: lock waits stayed near their usual level of 2.']);
    expect(modesTested(b)).toBe('connection-exhaustion confirmed; lock-contention ruled out; memory-pressure not tested');
    const s = scenario('connection-exhaustion', b);
    const out = writeFinalResponse('too many clients', reconcile([s]), [s]);
    expect(out.customerReplyMarkdown).toContain('What we ruled out:\n- Ruled out lock contention');
    expect(out.internalHandoffMarkdown).toContain('**Failure modes tested:** connection-exhaustion confirmed; lock-contention ruled out');
  });
});

describe('the decision follows whose move the confirmed mode is', () => {
  it('a confirmed mode the customer can act on goes out without a human; one needing an operation on the service does not', () => {
    const own = scenario('connection-exhaustion', brief('connection-exhaustion', 'connections', 0.8));
    expect(reconcile([own]).confident).toBe(true);
    const operator = scenario('storage-full', brief('storage-full-data', 'storage_free', 0.8));
    expect(reconcile([operator]).confident).toBe(false);
    const noMode = scenario('cpu-saturation', brief(null, 'cpu', 0));
    expect(reconcile([noMode]).confident).toBe(false);
  });
});

describe('health against a cause', () => {
  it('a healthy reading from one scenario ranks after a cause another scenario confirmed', () => {
    const healthy = scenario('a-alarm', brief('healthy', null, 0.9, { severity: 'info', leadingMechanism: { statement: 'healthy', strength: 'strong', openLink: null, family: null, mode: 'healthy' } }));
    const cause = scenario('b-locks', brief('deadlocks', 'deadlocks', 0.4, { leadingMechanism: { statement: 'deadlocks', strength: 'moderate', openLink: 'x', family: 'deadlocks', mode: 'deadlocks' } }));
    expect(rankBriefs([healthy, cause])[0].scenarioId).toBe('b-locks');
    expect(rankBriefs([healthy])[0].scenarioId).toBe('a-alarm');
  });
});
