import { AocError } from '@aoc/errors';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { AgentRuntime, MODEL_SPAN_ATTRIBUTES } from './agent-runtime';
import { BuiltinRegistry } from './builtin/builtin.engine';
import { chatCompletion, startFakeChatCompletionsServer } from './testing/fake-chat-completions.server';

const API_KEY = 'sk-runtime-spec-abcdef123456';
const Out = z.object({ label: z.enum(['yes', 'no']) });
const instructions = { id: 'judge.yes-no', version: '7', text: 'SECRET PROMPT TEXT: say yes or no' };

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('test') };
}

describe('AgentRuntime', () => {
  it('routes a role without configuration to its registered built-in function', async () => {
    const builtin = new BuiltinRegistry().register({ role: 'judge', instructionsId: 'judge.yes-no', model: 'yes-no-v1', run: (input) => ({ label: (input as { n: number }).n > 0 ? 'yes' : 'no' }) });
    const { exporter, tracer } = tracing();
    const runtime = new AgentRuntime({ config: {}, builtin, tracer });
    const result = await runtime.invoke({ role: 'judge', instructions, input: { n: 3 }, output: Out });
    expect(result).toEqual({ output: { label: 'yes' }, engine: 'builtin', model: 'builtin:yes-no-v1', usage: null, attempts: 1 });
    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe('model.invoke judge');
    expect(span.attributes[MODEL_SPAN_ATTRIBUTES.engine]).toBe('builtin');
    expect(span.attributes[MODEL_SPAN_ATTRIBUTES.instructionsVersion]).toBe('7');
  });

  it('fails with MODEL.BUILTIN_MISSING when nothing is registered, and MODEL.OUTPUT_INVALID on bad built-in output', async () => {
    const runtime = new AgentRuntime({ config: {}, builtin: new BuiltinRegistry().register({ role: 'judge', instructionsId: 'judge.bad', model: 'bad', run: () => ({ label: 'maybe' }) }) });
    await expect(runtime.invoke({ role: 'evidence', instructions, input: {}, output: Out })).rejects.toMatchObject({ code: 'MODEL.BUILTIN_MISSING' });
    await expect(runtime.invoke({ role: 'judge', instructions: { ...instructions, id: 'judge.bad' }, input: {}, output: Out })).rejects.toMatchObject({ code: 'MODEL.OUTPUT_INVALID', details: { field: 'label' } });
    await expect(runtime.invoke({ role: 'judge', instructions: { ...instructions, id: 'Not A Slug' }, input: {}, output: Out })).rejects.toMatchObject({ code: 'MODEL.INSTRUCTIONS_INVALID' });
  });

  it('records one span per OpenAI call with role, engine, model, instructions, tokens and attempts, and no prompt or key', async () => {
    const server = await startFakeChatCompletionsServer((_r, i) => (i === 0 ? { status: 503, json: { error: { message: 'busy' } } } : { status: 200, json: chatCompletion('{"label":"no"}', { usage: { prompt: 40, completion: 3 }, model: 'served-model' }) }));
    try {
      const { exporter, tracer } = tracing();
      const runtime = new AgentRuntime({
        config: { judge: { engine: 'openai', baseUrl: server.baseUrl, model: 'judge-m', apiKey: API_KEY, timeoutMs: 2000, maxRetries: 2 } },
        tracer,
        retry: { baseDelayMs: 1, maxDelayMs: 5 },
      });
      const result = await runtime.invoke({ role: 'judge', instructions, input: { text: 'USER INPUT TEXT' }, output: Out });
      expect(result).toMatchObject({ output: { label: 'no' }, engine: 'openai', model: 'served-model', usage: { promptTokens: 40, completionTokens: 3 }, attempts: 2 });
      const spans = exporter.getFinishedSpans();
      expect(spans).toHaveLength(1);
      const A = MODEL_SPAN_ATTRIBUTES;
      expect(spans[0].attributes).toMatchObject({
        [A.role]: 'judge',
        [A.engine]: 'openai',
        [A.model]: 'served-model',
        [A.instructionsId]: 'judge.yes-no',
        [A.instructionsVersion]: '7',
        [A.promptTokens]: 40,
        [A.completionTokens]: 3,
        [A.attempts]: 2,
      });
      const serialised = JSON.stringify({ attributes: spans[0].attributes, events: spans[0].events, status: spans[0].status, name: spans[0].name });
      expect(serialised).not.toContain(API_KEY);
      expect(serialised).not.toContain('SECRET PROMPT TEXT');
      expect(serialised).not.toContain('USER INPUT TEXT');
    } finally {
      await server.close();
    }
  });

  it('marks the span as failed with the error code only', async () => {
    const server = await startFakeChatCompletionsServer(() => ({ status: 401, json: { error: { message: `invalid key ${API_KEY}` } } }));
    try {
      const { exporter, tracer } = tracing();
      const runtime = new AgentRuntime({ config: { judge: { engine: 'openai', baseUrl: server.baseUrl, model: 'judge-m', apiKey: API_KEY, timeoutMs: 2000, maxRetries: 2 } }, tracer });
      const error = (await runtime.invoke({ role: 'judge', instructions, input: {}, output: Out }).catch((e: unknown) => e)) as AocError;
      expect(error.code).toBe('MODEL.REQUEST_REJECTED');
      expect(error.message).not.toContain(API_KEY);
      const [span] = exporter.getFinishedSpans();
      expect(span.status).toEqual({ code: 2, message: 'MODEL.REQUEST_REJECTED' });
      expect(span.attributes[MODEL_SPAN_ATTRIBUTES.errorCode]).toBe('MODEL.REQUEST_REJECTED');
      expect(span.attributes[MODEL_SPAN_ATTRIBUTES.attempts]).toBe(1);
      expect(JSON.stringify(span.attributes)).not.toContain(API_KEY);
    } finally {
      await server.close();
    }
  });
});
