import { AgentRuntime, BuiltinRegistry, describeRoleModelConfig, loadAgentRuntimeConfig, type ModelPort } from '@aoc/agent-runtime';
import { registerRubricJudge } from '../rubric-judge/rubric-judge';

/** Injection token of the Judge's model port. */
export const JUDGE_MODEL = Symbol('JUDGE_MODEL');

/**
 * The Judge's model port: the built-in rubric judge is registered for the Judge instructions;
 * `AOC_MODEL_ENGINE_JUDGE=openai` (with base URL, model name, key) switches to an
 * OpenAI-compatible model. Parsed once; bad keys stop the service at boot, naming them.
 */
export function createJudgeModel(env: Record<string, string | undefined> = process.env): { model: ModelPort; description: Record<string, unknown> } {
  const config = loadAgentRuntimeConfig(env, ['judge']);
  const runtime = new AgentRuntime({ config, builtin: registerRubricJudge(new BuiltinRegistry()) });
  return { model: runtime, description: config.judge ? describeRoleModelConfig(config.judge) : { engine: 'builtin' } };
}
