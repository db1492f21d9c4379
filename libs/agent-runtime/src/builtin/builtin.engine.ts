import { modelError } from '../model.errors';
import type { AgentRole, EngineResult, Instructions, ModelEngine, ModelRequest } from '../model-port';

/** A deterministic stand-in for a model: same input, same output, no network. */
export type BuiltinFunction = (input: unknown, instructions: Instructions) => unknown;

export interface BuiltinRegistration {
  role: AgentRole;
  instructionsId: string;
  /** Reported as `builtin:<model>`, e.g. `builtin:rubric-judge-v3`. */
  model: string;
  run: BuiltinFunction;
}

/** The built-in engine's functions, one per (role, instructions id). */
export class BuiltinRegistry {
  private readonly entries = new Map<string, BuiltinRegistration>();

  register(registration: BuiltinRegistration): this {
    const key = `${registration.role}/${registration.instructionsId}`;
    const existing = this.entries.get(key);
    if (existing && existing.run !== registration.run) throw new Error(`a built-in function is already registered for ${key}`);
    this.entries.set(key, registration);
    return this;
  }

  find(role: AgentRole, instructionsId: string): BuiltinRegistration | undefined {
    return this.entries.get(`${role}/${instructionsId}`);
  }
}

/** Runs the registered deterministic function and holds its output to the same schema as a model's. */
export class BuiltinEngine implements ModelEngine {
  readonly kind = 'builtin' as const;

  constructor(private readonly registry: BuiltinRegistry) {}

  async invoke<T>(request: ModelRequest<T>): Promise<EngineResult<T>> {
    const entry = this.registry.find(request.role, request.instructions.id);
    if (!entry) {
      throw modelError('MODEL.BUILTIN_MISSING', `no built-in function for role ${request.role} and instructions ${request.instructions.id}`, {
        role: request.role,
        instructionsId: request.instructions.id,
      });
    }
    const raw = await entry.run(request.input, request.instructions);
    const parsed = request.output.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || '(root)';
      throw modelError('MODEL.OUTPUT_INVALID', `built-in ${entry.model} returned invalid output: field "${field}": ${issue?.message ?? 'invalid'}`, { field, attempts: 1 });
    }
    return { output: parsed.data, model: `builtin:${entry.model}`, usage: null, attempts: 1 };
  }
}
