import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { AgentRuntime } from '../agent-runtime';
import { BuiltinRegistry } from '../builtin/builtin.engine';
import type { AgentRole } from '../model-port';

/** One request the fake server received. */
export interface RecordedChatRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: ChatRequestBody;
}

export interface ChatRequestBody {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { name: string; strict: boolean; schema: Record<string, unknown> } };
}

/** What the fake server answers: a status and a body, optionally late, or no answer at all. */
export type FakeReply =
  | { status: number; json?: unknown; text?: string; headers?: Record<string, string>; delayMs?: number }
  | { hang: true };

export type FakeReplyScript = (request: RecordedChatRequest, index: number) => FakeReply | Promise<FakeReply>;

export interface FakeChatCompletionsServer {
  /** Base URL to configure, e.g. `http://127.0.0.1:41234/v1`. */
  readonly baseUrl: string;
  readonly requests: RecordedChatRequest[];
  close(): Promise<void>;
}

/** A 200 chat-completions body around `content`. */
export function chatCompletion(
  content: string | null,
  options: { finishReason?: string; refusal?: string | null; usage?: { prompt: number; completion: number } | null; model?: string } = {},
): Record<string, unknown> {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 0,
    model: options.model ?? 'fake-model',
    choices: [{ index: 0, finish_reason: options.finishReason ?? 'stop', message: { role: 'assistant', content, refusal: options.refusal ?? null } }],
    usage:
      options.usage === null
        ? null
        : { prompt_tokens: options.usage?.prompt ?? 11, completion_tokens: options.usage?.completion ?? 7, total_tokens: (options.usage?.prompt ?? 11) + (options.usage?.completion ?? 7) },
  };
}

/**
 * A real HTTP server on 127.0.0.1 (any free port) speaking enough of the chat-completions API
 * for tests: each POST `/v1/chat/completions` is recorded and answered by the script.
 */
export async function startFakeChatCompletionsServer(script: FakeReplyScript): Promise<FakeChatCompletionsServer> {
  const requests: RecordedChatRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
          return;
        }
        let body: ChatRequestBody;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody;
        } catch {
          res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'body is not JSON' } }));
          return;
        }
        const recorded: RecordedChatRequest = { path: req.url, headers: req.headers, body };
        requests.push(recorded);
        const reply = await script(recorded, requests.length - 1);
        if ('hang' in reply) {
          hanging.add(res);
          return;
        }
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (res.destroyed) return;
        const payload = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(payload);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * An agent runtime whose `role` runs on an OpenAI-compatible engine pointed at a fresh fake
 * server (no retries, tiny backoff), with the given built-in registry for the other roles.
 */
export async function startFakeModel(
  role: AgentRole,
  script: FakeReplyScript,
  builtin: BuiltinRegistry = new BuiltinRegistry(),
): Promise<{ runtime: AgentRuntime; server: FakeChatCompletionsServer }> {
  const server = await startFakeChatCompletionsServer(script);
  const runtime = new AgentRuntime({
    config: { [role]: { engine: 'openai', baseUrl: server.baseUrl, model: `${role}-test-model`, apiKey: 'sk-test-secret-123456', timeoutMs: 5000, maxRetries: 0 } },
    builtin,
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
  });
  return { runtime, server };
}
