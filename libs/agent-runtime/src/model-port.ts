import { z } from 'zod';

/**
 * Agent roles that call a model. Each role picks its engine, model and endpoint by configuration
 * (`AOC_MODEL_<KEY>_<ROLE>`, ROLE being the upper-case role, e.g. `JUDGE`, `SCENARIO_ROUTER`).
 */
export const AGENT_ROLES = [
  'scenario_router',
  'scenario_diagnostic',
  'evidence',
  'final_response',
  'judge',
  'selector',
  'investigator',
  'proposer',
] as const;
export type AgentRole = (typeof AGENT_ROLES)[number];

export type ModelEngineKind = 'builtin' | 'openai';

/** Versioned instructions (a prompt is data: the optimizer changes, replays and gates it). */
export const Instructions = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'instructions id must be a lower-case slug'),
  version: z.string().min(1).max(32),
  text: z.string().min(1).max(100000),
});
export type Instructions = z.infer<typeof Instructions>;

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ModelRequest<T> {
  role: AgentRole;
  instructions: Instructions;
  /** Serialised as JSON for the model; must not carry secrets. */
  input: unknown;
  /** The structured output the caller accepts; the reply is parsed with it. */
  output: z.ZodType<T>;
}

export interface ModelResult<T> {
  output: T;
  engine: ModelEngineKind;
  /** Model that produced the output (`builtin:<name>` for the built-in engine). */
  model: string;
  /** Summed over every attempt that reported usage; null when the engine reports none. */
  usage: TokenUsage | null;
  /** HTTP attempts made (1 for the built-in engine). */
  attempts: number;
}

/** The one model port every agent role calls. */
export interface ModelPort {
  invoke<T>(request: ModelRequest<T>): Promise<ModelResult<T>>;
}

/** What an engine returns; the runtime adds the engine kind and the span. */
export type EngineResult<T> = Omit<ModelResult<T>, 'engine'>;

export interface ModelEngine {
  readonly kind: ModelEngineKind;
  invoke<T>(request: ModelRequest<T>): Promise<EngineResult<T>>;
}

/** `scenario_router` → `SCENARIO_ROUTER`: the suffix of the role's configuration keys. */
export function roleEnvSuffix(role: AgentRole): string {
  return role.toUpperCase();
}
