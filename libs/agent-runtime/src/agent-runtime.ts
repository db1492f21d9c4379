import { AocError, errorCodeOf } from '@aoc/errors';
import { SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { Dispatcher } from 'undici';
import { loadAgentRuntimeConfig, type AgentRuntimeConfig } from './agent-runtime.config';
import { BuiltinEngine, BuiltinRegistry } from './builtin/builtin.engine';
import { modelError } from './model.errors';
import { AGENT_ROLES, Instructions, type AgentRole, type ModelEngine, type ModelPort, type ModelRequest, type ModelResult } from './model-port';
import { OpenAiChatEngine, type RetryTiming } from './openai/openai-chat.engine';

export interface AgentRuntimeOptions {
  config: AgentRuntimeConfig;
  /** Deterministic functions of the built-in engine; roles register theirs here. */
  builtin?: BuiltinRegistry;
  /** Tracer for the per-call span; the global `@aoc/agent-runtime` tracer by default. */
  tracer?: Tracer;
  retry?: RetryTiming;
  dispatcher?: Dispatcher;
}

/** Span attribute names (OpenTelemetry GenAI conventions where one exists). */
export const MODEL_SPAN_ATTRIBUTES = {
  role: 'aoc.agent.role',
  engine: 'aoc.model.engine',
  model: 'gen_ai.request.model',
  instructionsId: 'aoc.instructions.id',
  instructionsVersion: 'aoc.instructions.version',
  attempts: 'aoc.model.attempts',
  promptTokens: 'gen_ai.usage.input_tokens',
  completionTokens: 'gen_ai.usage.output_tokens',
  errorCode: 'aoc.error.code',
} as const;

/**
 * The model port: routes each call to the engine configured for its role and records one span
 * per call. Spans carry role, engine, model, instructions id/version, token counts and attempts;
 * never the instructions text, the input or the API key.
 */
export class AgentRuntime implements ModelPort {
  readonly builtin: BuiltinRegistry;
  private readonly engines = new Map<AgentRole, ModelEngine>();
  private readonly builtinEngine: BuiltinEngine;
  private readonly tracer: Tracer;

  constructor(private readonly options: AgentRuntimeOptions) {
    this.builtin = options.builtin ?? new BuiltinRegistry();
    this.builtinEngine = new BuiltinEngine(this.builtin);
    this.tracer = options.tracer ?? trace.getTracer('@aoc/agent-runtime');
    for (const role of AGENT_ROLES) {
      const roleConfig = options.config[role];
      if (roleConfig?.engine === 'openai') {
        this.engines.set(role, new OpenAiChatEngine({ config: roleConfig, retry: options.retry, dispatcher: options.dispatcher }));
      }
    }
  }

  /** Engine kind and model a role is configured with (for logs and reports; no secrets). */
  describe(role: AgentRole): { engine: 'builtin' | 'openai'; model: string | null } {
    const roleConfig = this.options.config[role];
    return roleConfig?.engine === 'openai' ? { engine: 'openai', model: roleConfig.model } : { engine: 'builtin', model: null };
  }

  async invoke<T>(request: ModelRequest<T>): Promise<ModelResult<T>> {
    const instructions = Instructions.safeParse(request.instructions);
    if (!instructions.success) {
      const issue = instructions.error.issues[0];
      throw modelError('MODEL.INSTRUCTIONS_INVALID', `instructions field "${issue?.path.join('.') ?? ''}": ${issue?.message ?? 'invalid'}`);
    }
    const engine = this.engines.get(request.role) ?? this.builtinEngine;
    const configured = this.describe(request.role);
    const A = MODEL_SPAN_ATTRIBUTES;
    return this.tracer.startActiveSpan(
      `model.invoke ${request.role}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [A.role]: request.role,
          [A.engine]: engine.kind,
          [A.instructionsId]: request.instructions.id,
          [A.instructionsVersion]: request.instructions.version,
          ...(configured.model ? { [A.model]: configured.model } : {}),
        },
      },
      async (span) => {
        try {
          const result = await engine.invoke(request);
          span.setAttribute(A.model, result.model);
          span.setAttribute(A.attempts, result.attempts);
          if (result.usage) {
            span.setAttribute(A.promptTokens, result.usage.promptTokens);
            span.setAttribute(A.completionTokens, result.usage.completionTokens);
          }
          return { ...result, engine: engine.kind };
        } catch (error) {
          const code = errorCodeOf(error, 'MODEL.UNEXPECTED');
          span.setAttribute(A.errorCode, code);
          const attempts = error instanceof AocError ? error.details['attempts'] : undefined;
          if (typeof attempts === 'number') span.setAttribute(A.attempts, attempts);
          // The code only: messages may quote upstream text.
          span.setStatus({ code: SpanStatusCode.ERROR, message: code });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }
}

export interface CreateAgentRuntimeOptions extends Omit<AgentRuntimeOptions, 'config'> {
  env?: Record<string, string | undefined>;
  /** Roles whose configuration is parsed (all by default). */
  roles?: readonly AgentRole[];
}

/** Parses the model configuration from the environment (fail fast) and builds the runtime. */
export function createAgentRuntime(options: CreateAgentRuntimeOptions = {}): AgentRuntime {
  const { env, roles, ...rest } = options;
  return new AgentRuntime({ ...rest, config: loadAgentRuntimeConfig(env ?? process.env, roles ?? AGENT_ROLES) });
}
