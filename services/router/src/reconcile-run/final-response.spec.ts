import type { LocalCausalBriefV1 } from '@aoc/contracts';
import { executionRecord, reconcile, writeFinalResponse, type ConcludedScenario } from './final-response';

const brief = (strength: LocalCausalBriefV1['leadingMechanism']['strength'], observations: string[] = []): LocalCausalBriefV1 => ({
  observations,
  counterObservations: [],
  leadingMechanism: { statement: 'A full table scan on orders competes with lookups.', strength, openLink: null, family: 'rows_read' },
  strongestAlternative: 'network latency',
  workloadAttribution: null,
  mitigationOrHandoff: 'add an index on orders(created_at)',
  severity: 'medium',
  undetermined: ['whether the report job runs hourly'],
});

const scenario = (over: Partial<ConcludedScenario>): ConcludedScenario => ({
  scenarioId: 'latency-regression',
  scenario: 'latency-regression',
  provider: 'prometheus',
  target: 'tidb-1',
  evidenceStatus: 'complete',
  brief: brief('strong', ['p99 duration rose from 40ms to 90ms at 10:38']),
  ...over,
});

describe('final response', () => {
  it('asks the customer for the target: human_required with a focused clarification', () => {
    const s = [scenario({ target: null, provider: 'none', evidenceStatus: 'not_executed', brief: brief('undetermined') })];
    const r = writeFinalResponse('Something is slow', reconcile(s), s);
    expect(r.decision).toBe('human_required');
    expect(r.clarificationSimulation).toEqual({ required: true, requestedContext: ['the ID of the affected cluster', 'when the problem started (with time zone)'] });
    expect(r.customerReplyMarkdown).toContain('the ID of the affected cluster');
  });

  it('states a cause only when the leading mechanism is at least moderate', () => {
    const strong = [scenario({})];
    const r = writeFinalResponse('p99 doubled', reconcile(strong), strong);
    expect(r.decision).toBe('internal_only');
    expect(r.customerReplyMarkdown).toContain('Most likely cause: A full table scan');
    const weak = [scenario({ brief: brief('weak', ['QPS unchanged']) })];
    const w = writeFinalResponse('p99 doubled', reconcile(weak), weak);
    expect(w.decision).toBe('human_required');
    expect(w.customerReplyMarkdown).not.toContain('Most likely cause');
  });

  it('records evidence status and de-duplicated failure codes without supplemental queries', () => {
    const s = [scenario({ evidenceStatus: 'partial' })];
    const rec = executionRecord(s, [
      {
        provider: 'prometheus',
        queries: [
          { queryId: 'q1', outcome: 'failed', attempts: 3 },
          { queryId: 'q2', outcome: 'failed', attempts: 1 },
          { queryId: 'q3', outcome: 'complete', attempts: 1 },
        ],
        failures: [
          { queryId: 'q1', code: 'PROVIDER.HTTP_5XX', supplemental: false },
          { queryId: 'q2', code: 'PROVIDER.HTTP_5XX', supplemental: false },
          { queryId: 'q4', code: 'PROVIDER.STATEMENTS_FAILED', supplemental: true },
        ],
      },
    ]);
    expect(rec.evidenceAcquisition).toEqual({ status: 'degraded', capability: 'partial', providers: ['prometheus'] });
    expect(rec.failureCodes).toEqual(['PROVIDER.HTTP_5XX']);
    expect(rec.providerAttempts.map((a) => [a.queryId, a.attempt, a.errorCode])).toEqual([
      ['q1', 3, 'PROVIDER.HTTP_5XX'],
      ['q2', 1, 'PROVIDER.HTTP_5XX'],
      ['q3', 1, null],
    ]);
  });
});
