import { EvidenceBatchMaterializedV1, type EvidenceBatchPlannedV1 } from '@aoc/contracts';
import { executeBatch } from './execute-batch';

const plan = (queries: EvidenceBatchPlannedV1['queries']): EvidenceBatchPlannedV1 => ({
  runId: 'run-1',
  scenarioId: 'cpu-saturation',
  requestId: 'run-1:cpu-saturation:0',
  batchId: 'run-1:cpu-saturation:0:b0',
  planRevision: 0,
  provider: 'prometheus',
  target: 'tidb-1',
  window: { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' },
  queries,
  plannerNotes: '',
});

describe('executeBatch without connectors', () => {
  it('executes nothing, reports every query as skipped with a bounded failure, and invents no fact', () => {
    const result = executeBatch(plan([{ id: 'cpu', operation: 'promql_range', expression: 'up', purpose: 'cpu' }]));
    expect(EvidenceBatchMaterializedV1.parse(result)).toEqual(result);
    expect(result.status).toBe('not_executed');
    expect(result.facts).toEqual([]);
    expect(result.handoff.observations).toEqual([]);
    expect(result.queries).toEqual([{ queryId: 'cpu', outcome: 'skipped', attempts: 0 }]);
    expect(result.failures.map((f) => f.code)).toEqual(['PROVIDER.NOT_CONFIGURED']);
  });

  it('passes the planner note on when the plan is empty', () => {
    const result = executeBatch({ ...plan([]), plannerNotes: 'No usable provider target was given.' });
    expect(result.handoff.gaps).toEqual(['No usable provider target was given.']);
    expect(result.failures).toEqual([]);
  });
});
