import { AocError } from '@aoc/errors';
import { z } from 'zod';
import { chatCompletion, startFakeChatCompletionsServer, type FakeChatCompletionsServer, type FakeReplyScript } from '../testing/fake-chat-completions.server';
import type { ModelRequest } from '../model-port';
import { OpenAiChatEngine, type OpenAiRoleConfig } from './openai-chat.engine';

const API_KEY = 'sk-test-0123456789abcdef-very-secret';

const Verdict = z.object({ verdict: z.enum(['good', 'bad']), score: z.number().int().min(0).max(10), notes: z.array(z.string()) });
type Verdict = z.infer<typeof Verdict>;

const request: ModelRequest<Verdict> = {
  role: 'judge',
  instructions: { id: 'judge.test', version: '3', text: 'Grade the answer. SYSTEM-PROMPT-MARKER' },
  input: { answer: 'hello', marker: 'USER-INPUT-MARKER' },
  output: Verdict,
};

const valid = JSON.stringify({ verdict: 'good', score: 7, notes: ['fine'] });

describe('OpenAI-compatible chat engine (real HTTP against a local server)', () => {
  let server: FakeChatCompletionsServer | null = null;
  const started: FakeChatCompletionsServer[] = [];

  afterEach(async () => {
    for (const s of started.splice(0)) await s.close();
    server = null;
  });

  async function engineWith(script: FakeReplyScript, overrides: Partial<OpenAiRoleConfig> = {}): Promise<OpenAiChatEngine> {
    server = await startFakeChatCompletionsServer(script);
    started.push(server);
    return new OpenAiChatEngine({
      config: { engine: 'openai', baseUrl: server.baseUrl, model: 'judge-model-1', apiKey: API_KEY, timeoutMs: 2000, maxRetries: 2, ...overrides },
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
    });
  }

  async function failure(promise: Promise<unknown>): Promise<AocError> {
    try {
      await promise;
    } catch (error) {
      expect(error).toBeInstanceOf(AocError);
      const e = error as AocError;
      // Whatever happened, the key never leaks.
      expect(e.message).not.toContain(API_KEY);
      expect(JSON.stringify(e)).not.toContain(API_KEY);
      expect(String(e.stack)).not.toContain(API_KEY);
      return e;
    }
    throw new Error('expected the call to fail');
  }

  it('sends system instructions, JSON input and a strict json_schema; parses the output and records usage', async () => {
    const engine = await engineWith(() => ({ status: 200, json: chatCompletion(valid, { usage: { prompt: 120, completion: 30 }, model: 'judge-model-1-2026' }) }));
    const result = await engine.invoke(request);
    expect(result).toEqual({ output: { verdict: 'good', score: 7, notes: ['fine'] }, model: 'judge-model-1-2026', usage: { promptTokens: 120, completionTokens: 30 }, attempts: 1 });
    const sent = server!.requests[0];
    expect(sent.headers['authorization']).toBe(`Bearer ${API_KEY}`);
    expect(sent.body.model).toBe('judge-model-1');
    expect(sent.body.messages).toEqual([
      { role: 'system', content: request.instructions.text },
      { role: 'user', content: JSON.stringify(request.input) },
    ]);
    expect(sent.body.response_format?.type).toBe('json_schema');
    expect(sent.body.response_format?.json_schema?.name).toBe('judge_test');
    expect(sent.body.response_format?.json_schema?.strict).toBe(true);
    const schema = sent.body.response_format?.json_schema?.schema as { required: string[]; additionalProperties: boolean; $schema?: string };
    expect(schema.required).toEqual(['verdict', 'score', 'notes']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.$schema).toBeUndefined();
  });

  it('sends no Authorization header without a key', async () => {
    const engine = await engineWith(() => ({ status: 200, json: chatCompletion(valid) }), { apiKey: null });
    await engine.invoke(request);
    expect(server!.requests[0].headers['authorization']).toBeUndefined();
  });

  it('sums usage over attempts and tolerates a reply without usage', async () => {
    const engine = await engineWith((_r, i) => (i === 0 ? { status: 200, json: chatCompletion('{"verdict":', { usage: { prompt: 100, completion: 5 } }) } : { status: 200, json: chatCompletion(valid, { usage: { prompt: 110, completion: 20 } }) }));
    const result = await engine.invoke(request);
    expect(result.usage).toEqual({ promptTokens: 210, completionTokens: 25 });
    expect(result.attempts).toBe(2);
    const noUsage = await engineWith(() => ({ status: 200, json: chatCompletion(valid, { usage: null }) }));
    expect((await noUsage.invoke(request)).usage).toBeNull();
  });

  it('retries a 500 and succeeds', async () => {
    const engine = await engineWith((_r, i) => (i === 0 ? { status: 500, json: { error: { message: 'upstream overloaded' } } } : { status: 200, json: chatCompletion(valid) }));
    const result = await engine.invoke(request);
    expect(result.attempts).toBe(2);
    expect(server!.requests).toHaveLength(2);
  });

  it('retries 429 and gives up after the bound as a transient MODEL.RATE_LIMITED', async () => {
    const engine = await engineWith(() => ({ status: 429, json: { error: { message: 'slow down' } }, headers: { 'retry-after': '0' } }));
    const error = await failure(engine.invoke(request));
    expect(error.code).toBe('MODEL.RATE_LIMITED');
    expect(error.retryable).toBe(true);
    expect(error.details['attempts']).toBe(3);
    expect(server!.requests).toHaveLength(3);
  });

  it('recovers from 429 when a later attempt succeeds', async () => {
    const engine = await engineWith((_r, i) => (i < 2 ? { status: 429, json: { error: { message: 'slow down' } } } : { status: 200, json: chatCompletion(valid) }));
    expect((await engine.invoke(request)).attempts).toBe(3);
  });

  it('does not retry a 400 and never echoes the key even when the server does', async () => {
    const engine = await engineWith((r) => ({ status: 400, json: { error: { message: `bad request; you sent authorization=${String(r.headers['authorization'])} and key ${API_KEY}` } } }));
    const error = await failure(engine.invoke(request));
    expect(error.code).toBe('MODEL.REQUEST_REJECTED');
    expect(error.retryable).toBe(false);
    expect(error.details['status']).toBe(400);
    expect(error.message).toContain('HTTP 400');
    expect(error.message).toContain('[redacted]');
    expect(server!.requests).toHaveLength(1);
    expect(server!.requests[0].headers['authorization']).toBe(`Bearer ${API_KEY}`);
  });

  it('times out, retries within the bound, then fails with a transient MODEL.TIMEOUT', async () => {
    const engine = await engineWith(() => ({ hang: true }), { timeoutMs: 150, maxRetries: 1 });
    const started = Date.now();
    const error = await failure(engine.invoke(request));
    expect(error.code).toBe('MODEL.TIMEOUT');
    expect(error.retryable).toBe(true);
    expect(error.details['attempts']).toBe(2);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports a network failure as transient and retries it', async () => {
    const closed = await startFakeChatCompletionsServer(() => ({ status: 200, json: chatCompletion(valid) }));
    const baseUrl = closed.baseUrl;
    await closed.close();
    const engine = new OpenAiChatEngine({ config: { engine: 'openai', baseUrl, model: 'm', apiKey: API_KEY, timeoutMs: 1000, maxRetries: 1 }, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
    const error = await failure(engine.invoke(request));
    expect(error.code).toBe('MODEL.NETWORK_ERROR');
    expect(error.details['attempts']).toBe(2);
  });

  it('turns malformed JSON output into MODEL.OUTPUT_INVALID after one re-ask', async () => {
    const engine = await engineWith(() => ({ status: 200, json: chatCompletion('this is not json {') }));
    const error = await failure(engine.invoke(request));
    expect(error.code).toBe('MODEL.OUTPUT_INVALID');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('not valid JSON');
    expect(server!.requests).toHaveLength(2);
  });

  it('names the field of schema-invalid output', async () => {
    const engine = await engineWith(() => ({ status: 200, json: chatCompletion(JSON.stringify({ verdict: 'meh', score: 7, notes: [] })) }));
    const error = await failure(engine.invoke(request));
    expect(error.code).toBe('MODEL.OUTPUT_INVALID');
    expect(error.details['field']).toBe('verdict');
    expect(error.message).toContain('field "verdict"');
    expect(server!.requests).toHaveLength(2);
  });

  it('accepts a valid reply after one schema-invalid reply', async () => {
    const engine = await engineWith((_r, i) => ({ status: 200, json: chatCompletion(i === 0 ? JSON.stringify({ verdict: 'good', score: 70, notes: [] }) : valid) }));
    expect((await engine.invoke(request)).attempts).toBe(2);
  });

  it('fails at once with MODEL.TRUNCATED on finish_reason=length', async () => {
    const engine = await engineWith(() => ({ status: 200, json: chatCompletion('{"verdict":"go', { finishReason: 'length' }) }));
    const error = await failure(engine.invoke(request));
    expect(error.code).toBe('MODEL.TRUNCATED');
    expect(server!.requests).toHaveLength(1);
  });

  it('fails at once with MODEL.REFUSED on a refusal', async () => {
    const engine = await engineWith(() => ({ status: 200, json: chatCompletion(null, { refusal: 'I cannot help with that.' }) }));
    const error = await failure(engine.invoke(request));
    expect(error.code).toBe('MODEL.REFUSED');
    expect(error.retryable).toBe(false);
    expect(server!.requests).toHaveLength(1);
  });

  it('treats a reply that is not a chat completion as MODEL.RESPONSE_INVALID', async () => {
    const engine = await engineWith(() => ({ status: 200, json: { choices: [] } }));
    const error = await failure(engine.invoke(request));
    expect(error.code).toBe('MODEL.RESPONSE_INVALID');
    expect(error.message).toContain('choices');
  });

  it('refuses output schemas strict mode cannot express, naming the field', async () => {
    const engine = await engineWith(() => ({ status: 200, json: chatCompletion(valid) }));
    const error = await failure(engine.invoke({ ...request, output: z.object({ a: z.string(), b: z.object({ c: z.string().optional() }) }) }));
    expect(error.code).toBe('MODEL.SCHEMA_UNSUPPORTED');
    expect(error.details['field']).toBe('b.c');
    expect(server!.requests).toHaveLength(0);
  });
});
