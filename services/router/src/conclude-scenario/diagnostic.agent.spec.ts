import { AgentRuntime, BuiltinRegistry } from '@aoc/agent-runtime';
import { chatCompletion, startFakeModel, type FakeChatCompletionsServer, type FakeReplyScript } from '@aoc/agent-runtime/testing';
import type { EvidenceFactV1 } from '@aoc/contracts';
import { builtinDiagnose, diagnoseTurn, registerBuiltinDiagnostic, type DiagnosticInputV1 } from './diagnostic.agent';
import { OPEN_HYPOTHESES_KIND } from './hypotheses/open-evidence';
import { REFINEMENT_RULES, priorDailyWindows } from './refinement-rules';

const WINDOW = { from: '2026-11-21T14:00:00.000Z', to: '2026-11-21T15:00:00.000Z' };

const metric = (queryId: string, first: number, max: number, extra: Record<string, string | number> = {}, labels = 'component=tidb'): EvidenceFactV1 => ({
  queryId,
  kind: 'metric_summary',
  subject: `${queryId}{${labels}}`,
  value: max,
  unit: null,
  attributes: { first, last: max, min: first, mean: (first + max) / 2, maxAt: '2026-11-21T14:05:00.000Z', points: 60, ...extra },
});

const round0 = (facts: EvidenceFactV1[]) => ({
  round: 0,
  status: 'complete',
  question: 'What were CPU utilisation per component and the statements consuming most CPU during the window?',
  facts,
  observations: ['CPU seconds per second by component: peak 7.6 at 14:05Z on component=tidb.'],
  gaps: [],
  failures: [],
});

const input = (over: Partial<DiagnosticInputV1> = {}): DiagnosticInputV1 => ({
  scenario: 'cpu-saturation',
  hypothesis: 'Suspect a component ran out of CPU: the ticket mentions "cpu".',
  strongestAlternative: 'requests queue on I/O or locks while CPU is not the limit',
  window: WINDOW,
  reportedOnset: null,
  round: 0,
  refinementAvailable: true,
  refinementKinds: ['prior_7_daily_same_clock'],
  rounds: [round0([metric('cpu_by_component', 2.8, 7.6)])],
  rulesVersion: 'test',
  ...over,
});

const history = (peakOf: (day: number) => number | null) => ({
  round: 1,
  status: 'complete',
  question: REFINEMENT_RULES.find((r) => r.scenario === 'cpu-saturation')?.question ?? '',
  facts: [1, 2, 3, 4, 5, 6, 7].flatMap((d) => {
    const peak = peakOf(d);
    return peak === null ? [] : [metric(`cpu_by_component_prior_${d}d`, 2.8, peak)];
  }),
  observations: [],
  gaps: [],
  failures: [],
});

describe('built-in diagnostic agent', () => {
  it('spends its single refinement on history when a CPU peak appears in the first round', () => {
    const out = builtinDiagnose(input());
    expect(typeof out.refinement?.stopCondition).toBe('string');
    expect(out).toEqual({
      decision: 'refine',
      brief: null,
      refinement: { kind: 'prior_7_daily_same_clock', question: expect.stringContaining('prior seven days'), stopCondition: out.refinement?.stopCondition },
    });
  });

  it('asks for the series its open failure modes need when the first round shows no peak worth comparing', () => {
    const out = builtinDiagnose(input({ rounds: [round0([metric('cpu_by_component', 2.8, 3)])] }));
    expect(out).toMatchObject({ decision: 'refine', brief: null, refinement: { kind: OPEN_HYPOTHESES_KIND } });
    // A neutral question: families to measure, never the suspicion.
    expect(out.refinement?.question).toMatch(/^How did .+ change across the window\?$/);
    expect(out.refinement?.question).toContain('query rate');
    expect(out.refinement?.question).not.toMatch(/suspect|hypothes|cause/i);
  });

  it('concludes after the open-hypotheses round, reading it as more evidence rather than as history', () => {
    const asked = builtinDiagnose(input({ rounds: [round0([metric('cpu_by_component', 2.8, 3)])] }));
    const second = { ...history(() => null), question: asked.refinement?.question ?? '', facts: [] };
    const out = builtinDiagnose(input({ round: 1, refinementAvailable: false, rounds: [round0([metric('cpu_by_component', 2.8, 3)]), second] }));
    expect(out.decision).toBe('conclude');
    expect(out.brief?.leadingMechanism.strength).toBe('weak');
    expect(out.brief?.undetermined.join(' ')).not.toContain('prior seven days');
  });

  it('lowers severity and says the load recurs when most prior days peaked alike', () => {
    const out = builtinDiagnose(input({ round: 1, refinementAvailable: false, rounds: [round0([metric('cpu_by_component', 2.8, 7.6)]), history(() => 7.2)] }));
    expect(out.decision).toBe('conclude');
    expect(out.brief?.severity).toBe('medium');
    expect(out.brief?.counterObservations.join(' ')).toContain('on 7 of the 7 prior days with data: this load recurs daily');
    expect(out.brief?.mitigationOrHandoff).toContain('recurs daily');
  });

  it('says the load is new when no prior day came close', () => {
    const out = builtinDiagnose(input({ round: 1, refinementAvailable: false, rounds: [round0([metric('cpu_by_component', 2.8, 7.6)]), history(() => 3.1)] }));
    expect(out.brief?.severity).toBe('high');
    expect(out.brief?.observations.at(-1)).toBe('At the same clock on the 7 prior days with data the peak never exceeded 3.1 (today 7.6): the load is new.');
  });

  it('keeps history undetermined when the prior days returned nothing', () => {
    const out = builtinDiagnose(input({ round: 1, refinementAvailable: false, rounds: [round0([metric('cpu_by_component', 2.8, 7.6)]), history(() => null)] }));
    expect(out.brief?.undetermined[0]).toContain('the prior seven days returned no data');
  });

  // Family rules (issue 9) took over from the single "most anomalous series" statement: an unclassified metric still leads, weakly.
  it('leads, weakly, with the most anomalous series of a metric no rule knows', () => {
    const unknown = metric('mystery_metric', 10, 95, { anomalyScore: 41.2, baselineMedian: 10, recentMedian: 90, shiftAt: '2026-11-21T14:20:00.000Z' }, 'instance=x');
    const quiet = metric('other_metric', 5, 5.2, { anomalyScore: 0.4, baselineMedian: 5, recentMedian: 5.1 }, '');
    const out = builtinDiagnose(input({ scenario: 'general-health', refinementAvailable: false, rounds: [round0([quiet, unknown])] }));
    expect(out.brief?.leadingMechanism).toEqual({
      statement: 'Unclassified metric (mystery_metric) rose from its usual level of 10 to 95, starting at 14:20 UTC (highest at 14:05 UTC).',
      strength: 'weak',
      openLink: 'what drove this change and how it reaches the reported symptom',
      family: 'unknown',
      mode: null,
    });
  });

  it('generates the seven prior windows at the same clock', () => {
    const windows = priorDailyWindows(WINDOW);
    expect(windows).toHaveLength(7);
    expect(windows[0]).toEqual({ from: '2026-11-20T14:00:00.000Z', to: '2026-11-20T15:00:00.000Z' });
    expect(windows[6]).toEqual({ from: '2026-11-14T14:00:00.000Z', to: '2026-11-14T15:00:00.000Z' });
  });
});

describe('diagnostic turn through the model port', () => {
  let server: FakeChatCompletionsServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });
  const openai = async (script: FakeReplyScript) => {
    const fake = await startFakeModel('scenario_diagnostic', script, registerBuiltinDiagnostic(new BuiltinRegistry()));
    server = fake.server;
    return fake.runtime;
  };

  it('runs the built-in engine by default', async () => {
    const step = await diagnoseTurn(new AgentRuntime({ config: {}, builtin: registerBuiltinDiagnostic(new BuiltinRegistry()) }), input());
    expect(step).toMatchObject({ decision: 'refine', kind: 'prior_7_daily_same_clock', engine: expect.stringContaining('builtin:diagnostic-rules') });
  });

  it('refuses a second refinement from a model and concludes over the same facts', async () => {
    const model = await openai(() => ({
      status: 200,
      json: chatCompletion(JSON.stringify({ decision: 'refine', brief: null, refinement: { kind: 'prior_7_daily_same_clock', question: 'again?', stopCondition: 'more' } })),
    }));
    const step = await diagnoseTurn(model, input({ round: 1, refinementAvailable: false }));
    expect(step.decision).toBe('conclude');
    expect(step.engine).toContain('fallback: protocol');
  });

  it('passes on the rule\'s neutral refinement question, never the model\'s text, and refuses kinds the scenario has no rule for', async () => {
    const refine = { decision: 'refine', brief: null, refinement: { kind: 'prior_7_daily_same_clock', question: 'Prove the export job (our hypothesis) caused it', stopCondition: 'confirmed' } };
    const model = await openai(() => ({ status: 200, json: chatCompletion(JSON.stringify(refine)) }));
    const step = await diagnoseTurn(model, input());
    expect(step).toMatchObject({ decision: 'refine', question: expect.stringContaining('prior seven days'), stopCondition: expect.stringContaining('seven prior windows') });
    expect(JSON.stringify(step)).not.toContain('hypothesis');
    const other = await diagnoseTurn(model, input({ scenario: 'replication-lag' }));
    expect(other.decision).toBe('conclude');
  });

  it('falls back to the built-in brief when the model output is truncated', async () => {
    const model = await openai(() => ({ status: 200, json: chatCompletion('{"decision":"concl', { finishReason: 'length' }) }));
    const step = await diagnoseTurn(model, input({ refinementAvailable: false }));
    expect(step).toMatchObject({ decision: 'conclude', engine: expect.stringContaining('fallback: MODEL.TRUNCATED') });
  });

  it('uses a valid model brief as it is', async () => {
    const brief = {
      observations: ['CPU of tidb peaked at 7.6 at 14:05Z.'],
      counterObservations: [],
      hypotheses: [], leadingMechanism: { mode: null, statement: 'tidb CPU saturated by added load', strength: 'moderate', openLink: 'which statements' },
      strongestAlternative: 'I/O',
      workloadAttribution: null,
      mitigationOrHandoff: 'find the statements',
      severity: 'high',
      undetermined: ['which statements'],
    };
    const model = await openai(() => ({ status: 200, json: chatCompletion(JSON.stringify({ decision: 'conclude', brief, refinement: null })) }));
    const step = await diagnoseTurn(model, input());
    // A model brief without a family is read with family null (the field is nullable in the contract).
    expect(step).toEqual({ decision: 'conclude', brief: { ...brief, leadingMechanism: { ...brief.leadingMechanism, family: null } }, engine: 'fake-model' });
  });
});
