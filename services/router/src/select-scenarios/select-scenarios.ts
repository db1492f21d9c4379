import type { EntityRef, ProviderName, TicketAnalysisRequestedV1, TimeWindow } from '@aoc/contracts';
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
}

const CLUSTER_PATTERNS = [/\bcluster[\s_-]*(?:id)?\s*[:=#]?\s*([A-Za-z0-9][A-Za-z0-9_-]{3,63})\b/gi, /\b(tidb-[a-z0-9-]{3,60})\b/gi];
const STOP_WORDS = new Set(['is', 'was', 'has', 'the', 'and', 'for', 'with', 'since', 'that', 'this', 'keeps', 'seems']);

/** Distinct cluster references in the customer-visible text, in order of appearance. */
export function extractClusterIds(text: string): string[] {
  const found: string[] = [];
  for (const pattern of CLUSTER_PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const id = m[1];
      if (!STOP_WORDS.has(id.toLowerCase()) && !found.includes(id)) found.push(id);
    }
  }
  return found;
}

/** The provider window: frozen to [cutoff - 1h, cutoff] for replays, else the hour before the request. */
export function analysisWindow(request: Pick<TicketAnalysisRequestedV1, 'cutoff' | 'requestedAt'>): TimeWindow {
  const end = Date.parse(request.cutoff ?? request.requestedAt);
  return { from: new Date(end - 3600_000).toISOString(), to: new Date(end).toISOString() };
}

/** Deterministic scenario selection over the ticket text the AI may see. */
export function selectScenarios(request: TicketAnalysisRequestedV1): Selection {
  const visibleText = [request.ticket.title, request.ticket.description, ...request.ticket.comments.filter((c) => c.authorRole === 'customer' && c.visibility === 'public').map((c) => c.body)].join('\n');
  const lower = visibleText.toLowerCase();
  const matched: SelectedScenario[] = SCENARIO_CATALOG.map((playbook) => ({ playbook, matchedSignals: playbook.signals.filter((s) => lower.includes(s)) }))
    .filter((s) => s.matchedSignals.length > 0)
    .sort((a, b) => b.matchedSignals.length - a.matchedSignals.length)
    .slice(0, MAX_SCENARIOS_PER_RUN);
  const scenarios = matched.length > 0 ? matched : [{ playbook: GENERAL_HEALTH, matchedSignals: [] }];
  const clusters = extractClusterIds(visibleText);
  let target: string | null = null;
  let targetProblem: string | null = null;
  if (clusters.length === 1) target = clusters[0];
  else if (clusters.length === 0) targetProblem = 'the ticket names no cluster';
  else targetProblem = `the ticket names several clusters (${clusters.join(', ')}) and does not say which one is affected`;
  return {
    scenarios,
    entity: target ? { kind: 'cluster', id: target } : { kind: 'unknown', id: 'unidentified' },
    target,
    provider: target ? 'prometheus' : 'none',
    window: analysisWindow(request),
    targetProblem,
  };
}
