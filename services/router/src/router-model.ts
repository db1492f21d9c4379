import { createAgentRuntime, BuiltinRegistry, type AgentRole, type AgentRuntime } from '@aoc/agent-runtime';
import { registerBuiltinDiagnostic } from './conclude-scenario/diagnostic.agent';
import { registerBuiltinFinalResponse } from './reconcile-run/final-response.agent';
import { registerBuiltinRouter } from './select-scenarios/scenario-router.agent';

/** Injection token of the router's model port (Scenario Router, Diagnostic Agent, Final Response). */
export const ROUTER_MODEL = Symbol('ROUTER_MODEL');

export const ROUTER_ROLES: readonly AgentRole[] = ['scenario_router', 'scenario_diagnostic', 'final_response'];

/**
 * One model port for the router's three agent roles; each role picks its engine by
 * configuration (`AOC_MODEL_ENGINE_SCENARIO_ROUTER=openai`, ...), the built-in rules by default.
 */
export function createRouterModel(env: Record<string, string | undefined> = process.env): AgentRuntime {
  const builtin = registerBuiltinFinalResponse(registerBuiltinDiagnostic(registerBuiltinRouter(new BuiltinRegistry())));
  return createAgentRuntime({ env, roles: ROUTER_ROLES, builtin });
}
