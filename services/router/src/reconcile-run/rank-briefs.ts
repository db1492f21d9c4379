import type { LocalCausalBriefV1 } from '@aoc/contracts';
import { familiesInText } from '@aoc/metric-ontology';
import { failureMode } from '../conclude-scenario/hypotheses/failure-modes.data';

/**
 * Ranking of the scenario briefs of a run: by strength first; among equally strong briefs, a
 * confirmed failure mode ranks by its own score (magnitude, coverage, timing, support) plus how
 * much of the symptom the ticket names it explains. Onset order entered that score as one
 * criterion; it is not the rule.
 */
const STRENGTH_RANK: Record<string, number> = { confirmed: 4, strong: 3, moderate: 2, weak: 1, undetermined: 0 };

export function strengthRank(brief: LocalCausalBriefV1): number {
  return STRENGTH_RANK[brief.leadingMechanism.strength] ?? 0;
}

/** Share of the families the ticket's words name that the lead mode shows in (0 when it names none). */
export function ticketCoverage(brief: LocalCausalBriefV1, title: string): number {
  const mode = brief.leadingMechanism.mode ? failureMode(brief.leadingMechanism.mode) : undefined;
  const named = [...new Set(familiesInText(title).map((f) => f.family as string))];
  if (!mode || named.length === 0) return 0;
  const explains = new Set<string>([...mode.symptoms, ...mode.evidence.families]);
  return named.filter((f) => explains.has(f)).length / named.length;
}

export function modeScore(brief: LocalCausalBriefV1): number {
  const lead = brief.leadingMechanism.mode;
  return lead ? (brief.hypotheses.find((h) => h.mode === lead && h.verdict === 'confirmed')?.score ?? 0) : 0;
}

/** A clean bill of health from one scenario does not outweigh a cause another scenario confirmed. */
export function isHealthy(brief: LocalCausalBriefV1): boolean {
  return brief.leadingMechanism.mode === 'healthy' || (brief.severity === 'info' && brief.leadingMechanism.family === null && strengthRank(brief) >= 3);
}

const namesCause = (brief: LocalCausalBriefV1) => !isHealthy(brief) && strengthRank(brief) >= 2 && brief.leadingMechanism.family !== null;

/** Briefs best first; equal ones keep their order (scenario id), as the router always reconciled. */
export function rankBriefs<T extends { brief: LocalCausalBriefV1 }>(scenarios: readonly T[], title = ''): T[] {
  const key = (s: T) => modeScore(s.brief) + 0.3 * ticketCoverage(s.brief, title);
  const anyCause = scenarios.some((s) => namesCause(s.brief));
  const rank = (s: T) => (anyCause && isHealthy(s.brief) ? 0 : strengthRank(s.brief));
  return [...scenarios].sort((a, b) => rank(b) - rank(a) || key(b) - key(a));
}
