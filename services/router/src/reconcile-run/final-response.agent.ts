import { invokeOrFallback, type BuiltinRegistry, type Instructions, type ModelPort } from '@aoc/agent-runtime';
import { Decision, LocalCausalBriefV1 } from '@aoc/contracts';
import { z } from 'zod';
import { decidePublication, writeFinalResponse, type ConcludedScenario, type FinalResponse, type TicketDiagnosis } from './final-response';

export const FINAL_RESPONSE_INSTRUCTIONS: Instructions = {
  id: 'router.final-response',
  version: '2026-11-29.1',
  text: [
    'You write the two messages of one analysed support ticket from the ticket-level diagnosis in the input; you change no',
    'finding, strength, severity or decision. customerReplyMarkdown: for the customer, what the data shows, the most likely',
    'cause with what is still unconfirmed, and the next step; when requestedContext is not empty, ask exactly for those',
    'items and nothing else. Never promise an action that is not listed. internalHandoffMarkdown: for Support, the evidence',
    'boundary (providers and their status), observations, what is not determined, open alternatives, the leading',
    'mechanism and open link, the gap owner, the next internal action and when to escalate. Use only facts in the input.',
  ].join('\n'),
};

export const FinalResponseInputV1 = z.object({
  title: z.string(),
  decision: Decision,
  requestedContext: z.array(z.string()),
  diagnosis: z.object({
    determined: z.boolean(),
    confident: z.boolean(),
    healthy: z.boolean(),
    observations: z.array(z.string()),
    undetermined: z.array(z.string()),
    alternatives: z.array(z.string()),
    needsCustomerContext: z.array(z.string()),
    primaryScenario: z.string().nullable(),
  }),
  scenarios: z.array(z.object({ scenarioId: z.string(), scenario: z.string(), provider: z.string(), target: z.string().nullable(), evidenceStatus: z.string().nullable(), brief: LocalCausalBriefV1 })),
});
export type FinalResponseInputV1 = z.infer<typeof FinalResponseInputV1>;

export const FinalResponseOutputV1 = z.object({
  customerReplyMarkdown: z.string().min(1).max(20000),
  internalHandoffMarkdown: z.string().min(1).max(20000),
});
export type FinalResponseOutputV1 = z.infer<typeof FinalResponseOutputV1>;

function rebuild(input: FinalResponseInputV1): { diagnosis: TicketDiagnosis; scenarios: ConcludedScenario[] } {
  const scenarios: ConcludedScenario[] = input.scenarios;
  const primary = scenarios.find((s) => s.scenarioId === input.diagnosis.primaryScenario) ?? null;
  const { primaryScenario: _primary, ...rest } = input.diagnosis;
  return { diagnosis: { ...rest, primary }, scenarios };
}

export function builtinFinalResponse(input: FinalResponseInputV1): FinalResponseOutputV1 {
  const { diagnosis, scenarios } = rebuild(input);
  const written = writeFinalResponse(input.title, diagnosis, scenarios);
  return { customerReplyMarkdown: written.customerReplyMarkdown, internalHandoffMarkdown: written.internalHandoffMarkdown };
}

export const BUILTIN_FINAL_RESPONSE_MODEL = 'final-response-templates-v1';

export function registerBuiltinFinalResponse(registry: BuiltinRegistry): BuiltinRegistry {
  return registry.register({
    role: 'final_response',
    instructionsId: FINAL_RESPONSE_INSTRUCTIONS.id,
    model: BUILTIN_FINAL_RESPONSE_MODEL,
    run: (input) => builtinFinalResponse(FinalResponseInputV1.parse(input)),
  });
}

export function finalResponseInput(title: string, diagnosis: TicketDiagnosis, scenarios: ConcludedScenario[]): FinalResponseInputV1 {
  const decided = decidePublication(diagnosis);
  const { primary, ...rest } = diagnosis;
  return {
    title,
    decision: decided.decision,
    requestedContext: decided.clarificationSimulation.requestedContext,
    diagnosis: { ...rest, primaryScenario: primary?.scenarioId ?? null },
    scenarios,
  };
}

export interface WrittenResponse extends FinalResponse {
  engine: string;
  status: 'succeeded' | 'fallback';
}

/**
 * Final Response through the model port. The decision and the clarification request are the
 * router's (deterministic, from the diagnosis); the model only writes the two texts. If it
 * fails permanently the built-in templates write them, and the run records the fallback.
 */
export async function writeResponse(model: ModelPort, title: string, diagnosis: TicketDiagnosis, scenarios: ConcludedScenario[]): Promise<WrittenResponse> {
  const input = finalResponseInput(title, diagnosis, scenarios);
  const decided = decidePublication(diagnosis);
  const answered = await invokeOrFallback(
    model,
    { role: 'final_response', instructions: FINAL_RESPONSE_INSTRUCTIONS, input, output: FinalResponseOutputV1 },
    { model: BUILTIN_FINAL_RESPONSE_MODEL, run: () => builtinFinalResponse(input) },
  );
  return { ...answered.output, ...decided, engine: answered.model, status: answered.fellBack ? 'fallback' : 'succeeded' };
}
