import type { EvidenceFactV1, TimeWindow } from '@aoc/contracts';
import { leadStats } from './mechanism-rules';

/**
 * Refinement rules v1 (versioned data): when the first round shows a peak whose meaning depends
 * on history (a daily pattern or a new event changes severity and mitigation), the diagnostic
 * agent may spend its single adaptive refinement on the typed prior-seven-days comparison.
 */
export const REFINEMENT_RULES_VERSION = 'refinements-v1';

export interface RefinementRule {
  id: string;
  scenario: string;
  kind: 'prior_7_daily_same_clock';
  /** Query whose lead series must have risen within the window for the comparison to matter. */
  query: string;
  minRise: number;
  question: string;
  stopCondition: string;
}

export const REFINEMENT_RULES: readonly RefinementRule[] = [
  {
    id: 'cpu-peak-vs-history',
    scenario: 'cpu-saturation',
    kind: 'prior_7_daily_same_clock',
    query: 'cpu_by_component',
    minRise: 1.5,
    question: 'How did CPU per component at the same clock on each of the prior seven days compare with the incident window?',
    stopCondition: 'CPU per component is available for each of the seven prior windows, or the provider reports none.',
  },
  {
    id: 'store-load-vs-history',
    scenario: 'hotspot',
    kind: 'prior_7_daily_same_clock',
    query: 'store_cpu',
    minRise: 1.5,
    question: 'How was load distributed across stores at the same clock on each of the prior seven days?',
    stopCondition: 'Per-store load is available for each of the seven prior windows, or the provider reports none.',
  },
];

export interface ChosenRefinement {
  rule: RefinementRule;
  question: string;
  stopCondition: string;
}

/** The refinement worth asking after the first round, if any: a peak appeared and history was not yet asked. */
export function chooseRefinement(scenario: string, facts: readonly EvidenceFactV1[]): ChosenRefinement | null {
  const stats = leadStats(facts);
  for (const rule of REFINEMENT_RULES) {
    if (rule.scenario !== scenario) continue;
    const rise = stats.get(rule.query)?.rise;
    if (rise !== null && rise !== undefined && rise >= rule.minRise) return { rule, question: rule.question, stopCondition: rule.stopCondition };
  }
  return null;
}

/** Seven windows at the same clock on each of the prior seven days, generated from the incident window. */
export function priorDailyWindows(window: TimeWindow): TimeWindow[] {
  const day = 86_400_000;
  return Array.from({ length: 7 }, (_, i) => ({
    from: new Date(Date.parse(window.from) - (i + 1) * day).toISOString(),
    to: new Date(Date.parse(window.to) - (i + 1) * day).toISOString(),
  }));
}

export interface HistoryComparison {
  /** Prior days with data. */
  daysWithData: number;
  /** Prior days whose peak reached 80% of the incident peak. */
  comparableDays: number;
  highestPrior: number | null;
  incidentPeak: number | null;
}

const PRIOR_ID = /^(.+)_prior_(\d)d$/;

/** Compares the incident peak of a query with its peaks at the same clock on the prior days. */
export function compareWithHistory(query: string, facts: readonly EvidenceFactV1[]): HistoryComparison {
  const incidentPeak = leadStats(facts.filter((f) => f.queryId === query)).get(query)?.peak ?? null;
  const perDay = new Map<string, number>();
  for (const f of facts) {
    const m = PRIOR_ID.exec(f.queryId);
    if (!m || m[1] !== query || f.kind !== 'metric_summary' || typeof f.value !== 'number') continue;
    perDay.set(f.queryId, Math.max(perDay.get(f.queryId) ?? -Infinity, f.value));
  }
  const peaks = [...perDay.values()];
  return {
    daysWithData: peaks.length,
    comparableDays: incidentPeak === null ? 0 : peaks.filter((p) => p >= 0.8 * incidentPeak).length,
    highestPrior: peaks.length > 0 ? Math.max(...peaks) : null,
    incidentPeak,
  };
}
