import { invokeOrFallback, type BuiltinRegistry, type Instructions, type ModelPort } from '@aoc/agent-runtime';
import { EvidenceFactV1, LocalCausalBriefV1, TimeWindow } from '@aoc/contracts';
import { z } from 'zod';
import { OPEN_HYPOTHESES_KIND } from './hypotheses/open-evidence';
import { buildLocalBrief, mergeRounds, openHypothesisRequest } from './local-brief';
import { MECHANISM_RULES_VERSION } from './mechanism-rules';
import { REFINEMENT_RULES, REFINEMENT_RULES_VERSION, chooseRefinement } from './refinement-rules';

export const DIAGNOSTIC_INSTRUCTIONS: Instructions = {
  id: 'router.scenario-diagnostic',
  version: '2026-12-02.1',
  text: [
    'You are the diagnostic agent of one scenario of a database support ticket. The input holds the scenario, the router\'s',
    'reason as a hypothesis to test (not a fact), its strongest alternative, the neutral question you asked, and the compact',
    'facts, observations, gaps and failures of each evidence round. Conclude a local causal brief: at most 4 load-bearing',
    'observations and 3 counter-observations taken from the facts, one leading mechanism with its causal strength',
    '(confirmed, strong, moderate, weak, undetermined) and the exact open link not yet shown (null only when nothing is open),',
    'the strongest alternative, workload attribution (or null), a mitigation or handoff, a severity, and what could not be',
    'determined. Never state a number, entity or time that is not in the facts. When round is 0 and refinementAvailable',
    'is true you may instead ask the single typed refinement (decision "refine"): kind "prior_7_daily_same_clock" if a new',
    'factual finding makes the historical comparison load-bearing for severity or mitigation, or kind "open_hypotheses" when',
    'failure modes that could explain the symptom stay undetermined because their series were not read; otherwise decide',
    '"conclude".',
  ].join('\n'),
};

export const EvidenceRoundInput = z.object({
  round: z.number().int().min(0).max(1),
  status: z.string(),
  question: z.string(),
  facts: z.array(EvidenceFactV1),
  observations: z.array(z.string()),
  gaps: z.array(z.string()),
  failures: z.array(z.object({ queryId: z.string(), code: z.string(), supplemental: z.boolean() })),
});

export const DiagnosticInputV1 = z.object({
  scenario: z.string(),
  hypothesis: z.string(),
  strongestAlternative: z.string(),
  window: TimeWindow,
  /** When the customer says the problem started (inside the window), or null. */
  reportedOnset: z.string().nullable().default(null),
  round: z.number().int().min(0).max(1),
  refinementAvailable: z.boolean(),
  refinementKinds: z.array(z.string()),
  rounds: z.array(EvidenceRoundInput),
  rulesVersion: z.string(),
});
export type DiagnosticInputV1 = z.infer<typeof DiagnosticInputV1>;

export const DiagnosticOutputV1 = z.object({
  decision: z.enum(['conclude', 'refine']),
  brief: LocalCausalBriefV1.nullable(),
  refinement: z
    .object({
      kind: z.enum(['prior_7_daily_same_clock', OPEN_HYPOTHESES_KIND]),
      question: z.string().min(1).max(1000),
      stopCondition: z.string().min(1).max(500),
    })
    .nullable(),
});
export type DiagnosticOutputV1 = z.infer<typeof DiagnosticOutputV1>;

/** The historical comparison the second round was, if it was one (an open-hypotheses round is read as more evidence). */
const refinementAsked = (input: DiagnosticInputV1) => {
  if (input.rounds.length < 2) return null;
  return REFINEMENT_RULES.find((r) => r.scenario === input.scenario && r.question === input.rounds[1].question) ?? null;
};

/** The open-hypotheses round the built-in rules would ask after round 0, or null. */
export function openHypothesesRefinement(input: DiagnosticInputV1): { question: string; stopCondition: string } | null {
  if (input.round !== 0 || !input.refinementAvailable) return null;
  const open = openHypothesisRequest(input, mergeRounds(input.rounds).facts);
  return open ? { question: open.question, stopCondition: open.stopCondition } : null;
}

/** The built-in diagnostic agent: mechanism rules, anomaly ranking, and the refinement rules. */
export function builtinDiagnose(input: DiagnosticInputV1): DiagnosticOutputV1 {
  const evidence = mergeRounds(input.rounds);
  if (input.round === 0 && input.refinementAvailable) {
    const chosen = chooseRefinement(input.scenario, evidence.facts);
    if (chosen) return { decision: 'refine', brief: null, refinement: { kind: chosen.rule.kind, question: chosen.question, stopCondition: chosen.stopCondition } };
    const open = openHypothesesRefinement(input);
    if (open) return { decision: 'refine', brief: null, refinement: { kind: OPEN_HYPOTHESES_KIND, ...open } };
  }
  const refinement = refinementAsked(input);
  // The comparison round is read as history (one line), not as seven more observations or gaps.
  const view = refinement ? { ...evidence, observations: input.rounds[0].observations, gaps: input.rounds[0].gaps } : evidence;
  return { decision: 'conclude', brief: buildLocalBrief(input, view, { refinement }), refinement: null };
}

export const BUILTIN_DIAGNOSTIC_MODEL = `diagnostic-rules:${MECHANISM_RULES_VERSION}+${REFINEMENT_RULES_VERSION}`;

export function registerBuiltinDiagnostic(registry: BuiltinRegistry): BuiltinRegistry {
  return registry.register({
    role: 'scenario_diagnostic',
    instructionsId: DIAGNOSTIC_INSTRUCTIONS.id,
    model: BUILTIN_DIAGNOSTIC_MODEL,
    run: (input) => builtinDiagnose(DiagnosticInputV1.parse(input)),
  });
}

export type DiagnosticStep =
  | { decision: 'conclude'; brief: LocalCausalBriefV1; engine: string }
  | { decision: 'refine'; question: string; stopCondition: string; kind: 'prior_7_daily_same_clock' | typeof OPEN_HYPOTHESES_KIND; engine: string };

/**
 * One turn of the diagnostic agent through the model port, held to the protocol: a refinement
 * only in round 0 and only once; a conclusion must carry a brief. A model that breaks the
 * protocol or produces nothing usable is replaced by the built-in brief over the same facts,
 * which says what it could not determine (retryable transport errors go back to the bus).
 */
export async function diagnoseTurn(model: ModelPort, input: DiagnosticInputV1): Promise<DiagnosticStep> {
  const { output, model: engine } = await invokeOrFallback(
    model,
    { role: 'scenario_diagnostic', instructions: DIAGNOSTIC_INSTRUCTIONS, input, output: DiagnosticOutputV1 },
    { model: BUILTIN_DIAGNOSTIC_MODEL, run: () => builtinDiagnose({ ...input, refinementAvailable: false }) },
  );
  // The question the Evidence Agent receives is the rule's neutral text, never the model's: a
  // model that has read the hypothesis could otherwise pass it on. Kinds the scenario has no rule for are refused.
  const rule = REFINEMENT_RULES.find((r) => r.scenario === input.scenario && r.kind === output.refinement?.kind);
  if (output.decision === 'refine' && output.refinement && rule && input.round === 0 && input.refinementAvailable) {
    return { decision: 'refine', question: rule.question, stopCondition: rule.stopCondition, kind: rule.kind, engine };
  }
  // The open-hypotheses question is the rules' own too: the families the open modes need, computed from the facts.
  const open = output.decision === 'refine' && output.refinement?.kind === OPEN_HYPOTHESES_KIND ? openHypothesesRefinement(input) : null;
  if (open) return { decision: 'refine', ...open, kind: OPEN_HYPOTHESES_KIND, engine };
  if (output.brief) return { decision: 'conclude', brief: output.brief, engine };
  const fallback = builtinDiagnose({ ...input, refinementAvailable: false });
  return { decision: 'conclude', brief: fallback.brief as LocalCausalBriefV1, engine: `${BUILTIN_DIAGNOSTIC_MODEL} (fallback: protocol)` };
}
