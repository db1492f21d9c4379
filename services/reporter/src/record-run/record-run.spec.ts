import { execution, judged, published, startEmbeddedReporter, type ReporterHarness } from '../../test/reporter-harness';

const DAY = '2026-11-20';

describe('recording execution state', () => {
  let h: ReporterHarness & { stop(): Promise<void> };

  beforeAll(async () => {
    h = await startEmbeddedReporter();
  }, 120000);

  afterAll(async () => {
    await h?.stop();
  });

  beforeEach(async () => {
    await h.reset();
  });

  const first = execution('r1', 'SUP-1', '2026-11-20T10:00:30+08:00', {
    evidenceStatus: 'failed',
    providers: ['clinic'],
    failureCodes: ['CLINIC.HTTP_5XX'],
    providerQueryEvents: [{ scenarioId: 's1', queryId: 'q1', provider: 'clinic', outcome: 'failed', supplemental: false, at: '2026-11-20T10:00:01+08:00' }],
    providerHttpAttempts: [
      { scenarioId: 's1', queryId: 'q1', provider: 'clinic', statusClass: '500', at: '2026-11-20T10:00:01+08:00' },
      { scenarioId: 's1', queryId: 'q1', provider: 'clinic', statusClass: '500', at: '2026-11-20T10:00:02+08:00' },
    ],
  });
  // A later record of the same run (e.g. the run was recorded again after a correction).
  const second = execution('r1', 'SUP-1', '2026-11-20T10:05:00+08:00', {
    evidenceStatus: 'degraded',
    providers: ['clinic', 'none'],
    failureCodes: ['CLINIC.PARTIAL'],
    providerQueryEvents: [
      { scenarioId: 's1', queryId: 'q1', provider: 'clinic', outcome: 'complete', supplemental: false, at: '2026-11-20T10:04:01+08:00' },
      { scenarioId: 's1', queryId: 'q2', provider: 'clinic', outcome: 'failed', supplemental: false, at: '2026-11-20T10:04:02+08:00' },
    ],
    providerHttpAttempts: [{ scenarioId: 's1', queryId: 'q1', provider: 'clinic', statusClass: '200', at: '2026-11-20T10:04:01+08:00' }],
  });

  const state = async () => {
    const report = await h.reader.daily(DAY);
    return { health: report.providerHealth, signals: report.runtimeSignals.map((s) => [s.runId, s.evidenceStatus, s.provider, s.failureCodes]) };
  };

  it('keeps the newest record of a run and replaces its events, never appends them', async () => {
    await h.deliver(published('r1', 'SUP-1', '2026-11-20T10:00:00+08:00'), first, second, first, second);
    const expected = {
      health: [
        {
          day: DAY,
          provider: 'clinic',
          queries: 2,
          succeeded: 1,
          failed: 1,
          successRate: 0.5,
          http: { status200: 1, status400: 0, status500: 0, status502: 0, other: 0 },
          supplemental: { queries: 0, succeeded: 0, failed: 0 },
        },
      ],
      signals: [['r1', 'degraded', 'clinic', ['CLINIC.PARTIAL']]],
    };
    expect(await state()).toEqual(expected);
    await h.reset();
    await h.deliver(second, first, published('r1', 'SUP-1', '2026-11-20T10:00:00+08:00'), second);
    expect(await state()).toEqual(expected);
  });

  it('keeps the tool-call audit records of the newest record of a run', async () => {
    const call = { scenarioId: 's1', provider: 'clinic' as const, callId: 'call-1', tool: 'clinic_evidence_batch', operations: ['metrics'], target: 'org-1/cluster-1', window: null, outcome: 'success' as const, errorCode: null, durationMs: 40, outputBytes: 99, startedAt: '2026-11-20T02:00:01.000Z' };
    await h.deliver(published('r1', 'SUP-1', '2026-11-20T10:00:00+08:00'), execution('r1', 'SUP-1', '2026-11-20T10:06:00+08:00', { providerToolCalls: [call] }), first);
    const rows: { tool_calls: unknown[] }[] = await h.dataSource.query(`SELECT "tool_calls" FROM ${h.tables.executions} WHERE "run_id" = 'r1'`);
    // `first` is older than the record with the call: the call stays.
    expect(rows[0].tool_calls).toEqual([call]);
  });

  it('waits for the publication before counting provider facts (the trigger decides whether a run is counted)', async () => {
    await h.deliver(first);
    expect(await state()).toEqual({ health: [], signals: [] });
    await h.deliver(published('r1', 'SUP-1', '2026-11-20T10:00:00+08:00', { trigger: 'continuation' }));
    expect(await state()).toEqual({ health: [], signals: [] });
  });

  it('raises no runtime signal without a selected provider, with complete evidence, or when generation failed', async () => {
    await h.deliver(
      published('n1', 'SUP-1', '2026-11-20T10:00:00+08:00'),
      execution('n1', 'SUP-1', '2026-11-20T10:01:00+08:00', { evidenceStatus: 'failed', providers: ['none'] }),
      published('n2', 'SUP-2', '2026-11-20T10:00:00+08:00'),
      execution('n2', 'SUP-2', '2026-11-20T10:01:00+08:00', { evidenceStatus: 'complete', providers: ['clinic'] }),
      published('n3', 'SUP-3', '2026-11-20T10:00:00+08:00'),
      execution('n3', 'SUP-3', '2026-11-20T10:01:00+08:00', { evidenceStatus: 'failed', providers: ['clinic'], responseStatus: 'deadline_exceeded' }),
      published('n4', 'SUP-4', '2026-11-20T10:00:00+08:00'),
      execution('n4', 'SUP-4', '2026-11-20T10:01:00+08:00', { evidenceStatus: 'failed', providers: [] }),
      published('y1', 'SUP-5', '2026-11-20T10:00:00+08:00'),
      execution('y1', 'SUP-5', '2026-11-20T10:01:00+08:00', { evidenceStatus: 'failed', providers: ['wetech', 'none', 'manus'] }),
    );
    expect((await state()).signals).toEqual([['y1', 'failed', 'manus+wetech', []]]);
  });

  it("stores an evaluation's eligibility and derives it for one recorded before the field", async () => {
    const withField = judged('e-1', 'r1', 'SUP-1', 'r1', 'not_compared', '2026-11-20T11:00:00+08:00');
    const older = judged('e-2', 'r1', 'SUP-1', 'r1', 'not_compared', '2026-11-20T12:00:00+08:00');
    if (withField.topic !== 'evaluation.judged') throw new Error('expected an evaluation');
    await h.deliver(published('r1', 'SUP-1', '2026-11-20T10:00:00+08:00'), { ...withField, payload: { ...withField.payload, abstentionCode: 'JUDGE.HUMAN_ANSWER_EMPTY', eligibility: 'human_answer_before_cutoff' } }, older);
    const [version] = await h.reader.answerVersions('SUP-1');
    expect(version.evaluations?.map((e) => [e.evaluationId, e.eligibility])).toEqual([
      ['e-1', 'human_answer_before_cutoff'],
      ['e-2', 'undecided'],
    ]);
  });
});
