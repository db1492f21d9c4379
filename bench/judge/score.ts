// Scores of the judge benchmark (pure): exact verdicts, the 1/0/null quality projection on the
// cases the judge decided, per-verdict precision, coverage, human comment ids and abstentions.
import { expectedQualityScore, Verdict } from '@aoc/contracts';
import { UNCODED, type CaseRun } from './harness';

export const VERDICTS = Verdict.options;

export interface Ratio {
  hits: number;
  of: number;
}

export interface Scores {
  cases: number;
  exact: Ratio;
  /** Cases the judge decided (verdict != not_compared) whose 1/0 projection matches the label's. */
  projection: Ratio;
  /** Share of cases decided. */
  coverage: Ratio;
  /** Per verdict: correct among predicted (precision) and among expected (recall). */
  precision: Record<Verdict, Ratio>;
  recall: Record<Verdict, Ratio>;
  /** Exact selected ids over cases whose label names a human answer. */
  ids: Ratio;
  /** not_compared results by abstention code (UNCODED when the judge gave none). */
  abstentions: Map<string, number>;
  /** expected -> predicted -> count */
  confusion: Record<Verdict, Record<Verdict, number>>;
  errors: number;
}

export interface Goal {
  name: string;
  value: Ratio;
  min: number;
}

const ratio = (hits: number, of: number): Ratio => ({ hits, of });
export const rate = (r: Ratio): number | null => (r.of === 0 ? null : r.hits / r.of);
const sameIds = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id, i) => id === b[i]);
const perVerdict = <T>(make: () => T) => Object.fromEntries(VERDICTS.map((v) => [v, make()])) as Record<Verdict, T>;

export function score(runs: readonly CaseRun[]): Scores {
  const decided = runs.filter((r) => r.verdict !== 'not_compared');
  const withIds = runs.filter((r) => r.expected.humanCommentIds.length > 0);
  const precision = perVerdict(() => ratio(0, 0));
  const recall = perVerdict(() => ratio(0, 0));
  const confusion = perVerdict(() => perVerdict(() => 0));
  const abstentions = new Map<string, number>();
  for (const r of runs) {
    const ok = r.verdict === r.expected.verdict;
    precision[r.verdict].of++;
    recall[r.expected.verdict].of++;
    if (ok) {
      precision[r.verdict].hits++;
      recall[r.expected.verdict].hits++;
    }
    confusion[r.expected.verdict][r.verdict]++;
    if (r.verdict === 'not_compared') {
      const code = r.abstentionCode ?? UNCODED;
      abstentions.set(code, (abstentions.get(code) ?? 0) + 1);
    }
  }
  return {
    cases: runs.length,
    exact: ratio(runs.filter((r) => r.verdict === r.expected.verdict).length, runs.length),
    projection: ratio(decided.filter((r) => expectedQualityScore(r.verdict) === expectedQualityScore(r.expected.verdict)).length, decided.length),
    coverage: ratio(decided.length, runs.length),
    precision,
    recall,
    ids: ratio(withIds.filter((r) => sameIds(r.humanCommentIds, r.expected.humanCommentIds)).length, withIds.length),
    abstentions: new Map([...abstentions].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))),
    confusion,
    errors: runs.filter((r) => r.error !== null).length,
  };
}

/** The goals for the built-in judge (issue 12, item 9). */
export function goals(s: Scores): Goal[] {
  return [
    { name: 'human_better precision', value: s.precision.human_better, min: 0.9 },
    { name: 'projection accuracy (decided)', value: s.projection, min: 0.85 },
    { name: 'human comment ids exact', value: s.ids, min: 0.9 },
  ];
}

/** PASS when the rate is known and reaches the goal; MISS otherwise (no decided case is a MISS). */
export function goalMet(g: Goal): boolean {
  const r = rate(g.value);
  return r !== null && r >= g.min;
}

/** Runs grouped by rule, in the given rule order (rules without runs are left out). */
export function byRule(runs: readonly CaseRun[], order: readonly string[]): [string, CaseRun[]][] {
  return order.map((rule): [string, CaseRun[]] => [rule, runs.filter((r) => r.rule === rule)]).filter(([, rs]) => rs.length > 0);
}
