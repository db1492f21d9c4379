import type { EntityRef, ProviderName, TicketAnalysisRequestedV1, TimeWindow } from '@aoc/contracts';
import { analysisWindowFor } from '../intake/analysis-window';
import { resolveAgainstInventory, type ProviderInventory } from './resolve-target';
import { matchSignals } from '@aoc/signal-match';
import { GENERAL_HEALTH, MAX_SCENARIOS_PER_RUN, SCENARIO_CATALOG, type ScenarioPlaybook } from './scenario-catalog';

export interface SelectedScenario {
  playbook: ScenarioPlaybook;
  matchedSignals: string[];
}

export interface Selection {
  scenarios: SelectedScenario[];
  entity: EntityRef;
  target: string | null;
  provider: ProviderName;
  window: TimeWindow;
  /** Why no target could be used, when none could. */
  targetProblem: string | null;
  /** Inventory targets the ticket matched when it matched several (the clarification lists them). */
  targetCandidates: string[];
}

export { extractClusterIds, extractTargetIds, resolveTarget, TARGET_PATTERNS, TARGET_RULES, type ResolvedTarget, type TargetPart, type TargetPattern } from './target-patterns';

/** The provider window: [cutoff - 1h, cutoff] for replays, else placed by the ticket's own times (see analysisWindowFor). */
export function analysisWindow(request: Pick<TicketAnalysisRequestedV1, 'cutoff' | 'requestedAt'> & Partial<Pick<TicketAnalysisRequestedV1, 'ticket'>>): TimeWindow {
  return analysisWindowFor(request, request.ticket ? visibleText({ ticket: request.ticket }) : '');
}

/** Customer-visible text of the request, the only text the router reasons over. */
export function visibleText(request: Pick<TicketAnalysisRequestedV1, 'ticket'>): string {
  return [request.ticket.title, request.ticket.description, ...request.ticket.comments.filter((c) => c.authorRole === 'customer' && c.visibility === 'public').map((c) => c.body)].join('\n');
}

/** Deterministic scenario selection over the ticket text the AI may see. */
export function selectScenarios(request: TicketAnalysisRequestedV1, inventories: readonly ProviderInventory[] = []): Selection {
  const text = visibleText(request);
  const matched: SelectedScenario[] = SCENARIO_CATALOG.map((playbook) => ({ playbook, matchedSignals: matchSignals(text, playbook.signals) }))
    .filter((s) => s.matchedSignals.length > 0)
    .sort((a, b) => b.matchedSignals.length - a.matchedSignals.length)
    .slice(0, MAX_SCENARIOS_PER_RUN);
  const scenarios = matched.length > 0 ? matched : [{ playbook: GENERAL_HEALTH, matchedSignals: [] }];
  const resolved = resolveAgainstInventory(text, inventories);
  return {
    scenarios,
    entity: resolved.cluster ? { kind: 'cluster', id: resolved.cluster } : { kind: 'unknown', id: 'unidentified' },
    target: resolved.target,
    provider: resolved.provider,
    window: analysisWindow(request),
    targetProblem: resolved.problem,
    targetCandidates: resolved.candidates.length > 1 ? resolved.candidates : [],
  };
}
