import { metricsSnapshot, shutdownMetrics, startMetrics, type MetricPoint } from '@aoc/telemetry';
import { z } from 'zod';
import type { ModelRequest } from '../model-port';
import { chatCompletion, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from '../testing/fake-chat-completions.server';
import { OpenAiChatEngine } from './openai-chat.engine';

const API_KEY = 'sk-test-metrics-0123456789-secret';
const Out = z.object({ verdict: z.enum(['good', 'bad']) });
const request: ModelRequest<z.infer<typeof Out>> = {
  role: 'judge',
  instructions: { id: 'judge.metrics', version: '1', text: 'Grade it.' },
  input: { ticket: 'the db is slow since 10:00' },
  output: Out,
};

const sum = (points: MetricPoint[], name: string, labels: Record<string, string>) =>
  points.filter((p) => p.name === name && Object.entries(labels).every(([k, v]) => p.labels[k] === v)).reduce((n, p) => n + p.value, 0);

describe('model call metrics', () => {
  let server: FakeChatCompletionsServer;

  beforeEach(() => startMetrics({ serviceName: 'aoc-agent-runtime-test' }));
  afterEach(async () => {
    await shutdownMetrics();
    await server?.close();
  });

  it('times every API call by agent role and outcome and counts the tokens it reported', async () => {
    // A 503 first (retried), then an answer with usage.
    server = await startFakeChatCompletionsServer((_req, i) =>
      i === 0 ? { status: 503, json: { error: { message: 'overloaded' } } } : { status: 200, delayMs: 20, json: chatCompletion(JSON.stringify({ verdict: 'good' }), { usage: { prompt: 120, completion: 30 } }) },
    );
    const engine = new OpenAiChatEngine({ config: { engine: 'openai', baseUrl: server.baseUrl, model: 'judge-model', apiKey: API_KEY, timeoutMs: 2000, maxRetries: 2 }, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
    await engine.invoke(request);
    const points = await metricsSnapshot();
    const calls = points.filter((p) => p.name === 'aoc_model_call_duration_seconds');
    expect(calls.map((p) => [p.labels['agent_role'], p.labels['outcome'], p.count]).sort()).toEqual([
      ['judge', 'MODEL.UPSTREAM_UNAVAILABLE', 1],
      ['judge', 'ok', 1],
    ]);
    expect(calls.find((p) => p.labels['outcome'] === 'ok')?.sum).toBeGreaterThanOrEqual(0.015);
    expect(sum(points, 'aoc_model_tokens', { agent_role: 'judge', type: 'prompt' })).toBe(120);
    expect(sum(points, 'aoc_model_tokens', { agent_role: 'judge', type: 'completion' })).toBe(30);
    // Never the model, the key, the instructions or the input.
    expect(JSON.stringify(points)).not.toMatch(/judge-model|sk-test|Grade it|slow since/);
  });
});
