import type { LocalCausalBriefV1 } from '@aoc/contracts';
import { scenarioStatus } from '../conclude-scenario/evidence-rounds';
import { executionRecord, plainWords, reconcile, writeFinalResponse, type ConcludedScenario } from './final-response';

const brief = (strength: LocalCausalBriefV1['leadingMechanism']['strength'], observations: string[] = []): LocalCausalBriefV1 => ({
  observations,
  counterObservations: [],
  hypotheses: [], leadingMechanism: { mode: null, statement: 'A full table scan on orders competes with lookups.', strength, openLink: null, family: 'rows_read' },
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

  it('an answer with no series for any query is degraded evidence (EVIDENCE.NO_DATA), and the reply never says metrics could not be retrieved', () => {
    const record = { provider: 'prometheus', queries: [{ queryId: 'connections', outcome: 'empty', attempts: 1 }, { queryId: 'cpu', outcome: 'empty', attempts: 1 }], failures: [] };
    const round = { round: 0, batchId: 'b', status: 'complete' as const, question: 'q', facts: [], observations: [], gaps: [], failures: [] };
    expect(scenarioStatus([round], record)).toBe('no_data');
    expect(scenarioStatus([round], { ...record, queries: [...record.queries, { queryId: 'qps', outcome: 'complete', attempts: 1 }] })).toBe('complete');
    const s = [scenario({ evidenceStatus: 'no_data', brief: brief('undetermined') })];
    const rec = executionRecord(s, [record]);
    expect(rec.evidenceAcquisition.status).toBe('degraded');
    expect(rec.failureCodes).toEqual(['EVIDENCE.NO_DATA']);
    const reply = writeFinalResponse('Connections maxed out', reconcile(s), s).customerReplyMarkdown;
    expect(reply).toContain('holds no data for this cluster');
    expect(reply).not.toMatch(/could not (be )?retrieve/i);
  });

  it('says the target names it tried, or lists the candidates, when no single target could be used', () => {
    const s = [scenario({ target: null, provider: 'none', evidenceStatus: 'not_executed', brief: brief('undetermined') })];
    expect(reconcile(s, { problem: 'several', candidates: ['payments-prod', 'orders-prod'], tried: [] }).needsCustomerContext[0]).toBe('which of these is the affected cluster or instance: payments-prod, orders-prod');
    expect(reconcile(s, { problem: 'none', candidates: [], tried: ['inventory-prod'] }).needsCustomerContext[0]).toContain('we found none of inventory-prod among the targets we monitor');
  });

  it('keeps internal statistics vocabulary out of the customer reply', () => {
    const obs = 'p99 statement duration on cluster=x rose from a baseline median of 0.04 to 0.09 (robust z 12.3, shift at 10:40Z); peak 0.094 at 10:41Z.';
    const s = [scenario({ brief: { ...brief('strong', [obs]), hypotheses: [], leadingMechanism: { mode: null, statement: 'Latency rose (highest robust z 8.1) sharply.', strength: 'strong', openLink: null, family: 'statement_latency' } } })];
    const r = writeFinalResponse('p99 doubled', reconcile(s), s);
    expect(r.customerReplyMarkdown).not.toMatch(/robust z|baseline median|\bMAD\b/);
    expect(r.customerReplyMarkdown).toContain('rose from a usual level of 0.04 to 0.09; peak 0.094 at 10:41Z.');
    expect(r.internalHandoffMarkdown).toContain('robust z 12.3');
    expect(plainWords('no series shifts (highest robust z 1.2).')).toBe('no series shifts.');
  });
});
