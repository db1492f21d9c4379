import { AgentRuntime, BuiltinRegistry } from '@aoc/agent-runtime';
import { chatCompletion, startFakeModel, type FakeChatCompletionsServer, type FakeReplyScript } from '@aoc/agent-runtime/testing';
import type { LocalCausalBriefV1 } from '@aoc/contracts';
import { registerBuiltinFinalResponse, writeResponse } from './final-response.agent';
import { reconcile, type ConcludedScenario } from './final-response';

const brief = (over: Partial<LocalCausalBriefV1> = {}): LocalCausalBriefV1 => ({
  observations: ['p99 statement duration: peak 0.094 at 10:41Z.'],
  counterObservations: [],
  leadingMechanism: { mode: null, statement: 'p99 rose 1.9x with 1.3x more statements', strength: 'moderate', openLink: 'which statements make up the added load', family: 'statement_rate' },
  strongestAlternative: 'the network',
  workloadAttribution: null,
  mitigationOrHandoff: 'Find the new statements.',
  severity: 'high',
  undetermined: ['which statements make up the added load'],
  hypotheses: [],
  ...over,
});

const scenario = (target: string | null, b: LocalCausalBriefV1 = brief()): ConcludedScenario => ({ scenarioId: 'latency-regression', scenario: 'latency-regression', provider: target ? 'prometheus' : 'none', target, evidenceStatus: 'complete', brief: b });

describe('Final Response', () => {
  let server: FakeChatCompletionsServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });
  const openai = async (script: FakeReplyScript) => {
    const fake = await startFakeModel('final_response', script, registerBuiltinFinalResponse(new BuiltinRegistry()));
    server = fake.server;
    return fake.runtime;
  };

  it('writes both messages with the built-in templates by default', async () => {
    const scenarios = [scenario('tidb-prod-7f3a')];
    const out = await writeResponse(new AgentRuntime({ config: {}, builtin: registerBuiltinFinalResponse(new BuiltinRegistry()) }), 'slow', reconcile(scenarios), scenarios);
    expect(out.customerReplyMarkdown).toContain('Most likely cause: p99 rose 1.9x');
    expect(out.internalHandoffMarkdown).toContain('**Open link:** which statements make up the added load');
    expect(out).toMatchObject({ decision: 'human_required', status: 'succeeded' });
  });

  it('takes only the texts from a model: the decision and the clarification stay the router\'s', async () => {
    const model = await openai(() => ({ status: 200, json: chatCompletion(JSON.stringify({ customerReplyMarkdown: 'Please send the cluster ID.', internalHandoffMarkdown: 'Waiting for the customer.' })) }));
    const scenarios = [scenario(null, brief({ observations: [], leadingMechanism: { mode: null, statement: 'Not determined', strength: 'undetermined', openLink: 'no target', family: null } }))];
    const out = await writeResponse(model, 'Something is off', reconcile(scenarios), scenarios);
    expect(out).toMatchObject({
      customerReplyMarkdown: 'Please send the cluster ID.',
      decision: 'human_required',
      clarificationSimulation: { required: true, requestedContext: ['the ID of the affected cluster', 'when the problem started (with time zone)'] },
      status: 'succeeded',
    });
    const sent = JSON.parse((server as FakeChatCompletionsServer).requests[0].body.messages[1].content) as { decision: string; requestedContext: string[] };
    expect(sent.decision).toBe('human_required');
  });

  it('falls back to the templates, and says so, when the model fails permanently', async () => {
    const model = await openai(() => ({ status: 400, json: { error: { message: 'bad request' } } }));
    const scenarios = [scenario('tidb-prod-7f3a')];
    const out = await writeResponse(model, 'slow', reconcile(scenarios), scenarios);
    expect(out.status).toBe('fallback');
    expect(out.engine).toContain('fallback: MODEL.REQUEST_REJECTED');
    expect(out.customerReplyMarkdown).toContain('tidb-prod-7f3a');
  });
});
