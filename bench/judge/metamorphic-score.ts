// Runs the metamorphic variants of the labelled cases and scores the relations: the share kept
// (overall, per transformation, per rule of the source case), human_better precision on the
// variants, and the broken relations by name. The gate is what the spec enforces.
import type { ModelPort } from '@aoc/agent-runtime';
import type { Verdict } from '@aoc/contracts';
import { runCases, type CaseRun } from './harness';
import type { Relation, Variant } from './metamorphic';
import { rate, type Ratio } from './score';

export interface VariantRun {
  transform: string;
  relation: Relation;
  sourceId: string;
  rule: string;
  /** The source case's label and the judge's verdict on it. */
  sourceLabel: Verdict;
  sourceVerdict: Verdict;
  verdict: Verdict;
  abstentionCode: string | null;
  kept: boolean;
  /** Whether human_better is right for the variant by the source's label (keep) or the stated direction (change). */
  humanBetterAllowed: boolean;
}

export interface MetamorphicScores {
  variants: number;
  kept: Ratio;
  keepRelations: Ratio;
  changeRelations: Ratio;
  byTransform: [string, Ratio][];
  byRule: [string, Ratio][];
  /** Variants judged human_better that the label or the direction allows. */
  humanBetterPrecision: Ratio;
  /** Keep relations whose variant was judged human_better without the label allowing it. */
  falseHumanBetter: VariantRun[];
  broken: VariantRun[];
}

/** Goals of issue 19 item 6. */
export const METAMORPHIC_GOALS = { kept: 0.95, humanBetterPrecision: 0.95 } as const;

export function relationHolds(relation: Relation, source: Verdict, variant: Verdict): boolean {
  return relation.kind === 'keep' ? variant === source : relation.to.includes(variant);
}

export function toVariantRun(v: Variant, source: CaseRun, run: CaseRun): VariantRun {
  return {
    transform: v.transform,
    relation: v.relation,
    sourceId: v.source.id,
    rule: v.source.rule,
    sourceLabel: v.source.expected.verdict,
    sourceVerdict: source.verdict,
    verdict: run.verdict,
    abstentionCode: run.abstentionCode,
    kept: relationHolds(v.relation, source.verdict, run.verdict),
    humanBetterAllowed: v.relation.kind === 'keep' ? v.source.expected.verdict === 'human_better' : v.relation.to.includes('human_better'),
  };
}

/** Judges every variant; `sources` are the runs of the labelled cases, by id. */
export async function runVariants(model: ModelPort, variants: readonly Variant[], sources: ReadonlyMap<string, CaseRun>, concurrency: number): Promise<VariantRun[]> {
  const runs = await runCases(model, variants.map((v) => ({ file: v.transform, case: v.case })), concurrency);
  return variants.map((v, i) => {
    const source = sources.get(v.source.id);
    if (!source) throw new Error(`no run of the source case ${v.source.id}`);
    return toVariantRun(v, source, runs[i]);
  });
}

const ratioOf = (runs: readonly VariantRun[]): Ratio => ({ hits: runs.filter((r) => r.kept).length, of: runs.length });

function grouped(runs: readonly VariantRun[], key: (r: VariantRun) => string): [string, Ratio][] {
  const keys = [...new Set(runs.map(key))];
  return keys.map((k): [string, Ratio] => [k, ratioOf(runs.filter((r) => key(r) === k))]);
}

export function scoreVariants(runs: readonly VariantRun[]): MetamorphicScores {
  const judgedHb = runs.filter((r) => r.verdict === 'human_better');
  return {
    variants: runs.length,
    kept: ratioOf(runs),
    keepRelations: ratioOf(runs.filter((r) => r.relation.kind === 'keep')),
    changeRelations: ratioOf(runs.filter((r) => r.relation.kind === 'change')),
    byTransform: grouped(runs, (r) => r.transform),
    byRule: grouped(runs, (r) => r.rule),
    humanBetterPrecision: { hits: judgedHb.filter((r) => r.humanBetterAllowed).length, of: judgedHb.length },
    falseHumanBetter: judgedHb.filter((r) => r.relation.kind === 'keep' && !r.humanBetterAllowed),
    broken: runs.filter((r) => !r.kept),
  };
}

/**
 * What fails the metamorphic goals: the kept share under its goal, human_better precision on the
 * variants under its goal (no human_better verdict at all is no failure: nothing was blamed), or
 * a keep relation that produced a human_better the label does not allow. Empty when all hold.
 */
export function metamorphicFailures(s: MetamorphicScores): string[] {
  const out: string[] = [];
  const kept = rate(s.kept);
  if (kept === null || kept < METAMORPHIC_GOALS.kept) out.push(`relations kept ${s.kept.hits}/${s.kept.of} < ${METAMORPHIC_GOALS.kept}`);
  const hb = rate(s.humanBetterPrecision);
  if (hb !== null && hb < METAMORPHIC_GOALS.humanBetterPrecision) out.push(`human_better precision on variants ${s.humanBetterPrecision.hits}/${s.humanBetterPrecision.of} < ${METAMORPHIC_GOALS.humanBetterPrecision}`);
  for (const r of s.falseHumanBetter) out.push(`${r.transform} on ${r.sourceId}: human_better, labelled ${r.sourceLabel}`);
  return out;
}

const pct = (r: Ratio) => {
  const v = rate(r);
  return v === null ? '   n/a' : `${(v * 100).toFixed(1).padStart(5)}%`;
};
const frac = (r: Ratio) => `${pct(r)} (${r.hits}/${r.of})`;
const pad = (s: string, n: number) => s.padEnd(n);
const expectation = (r: VariantRun) => (r.relation.kind === 'keep' ? `keep ${r.sourceVerdict}` : r.relation.says);

/** The report section printed after the labelled figures. */
export function metamorphicReport(s: MetamorphicScores, skipped: ReadonlyMap<string, number>, whatOf: ReadonlyMap<string, string>): string[] {
  const width = Math.max(24, ...s.byTransform.map(([id]) => id.length + 2));
  const lines = ['', `Metamorphic relations: ${s.variants} variants of the labelled cases`, `${pad('transformation', width)}${pad('kept', 20)}not applicable`];
  for (const [id, r] of s.byTransform) lines.push(`${pad(id, width)}${pad(frac(r), 20)}${skipped.get(id) ?? 0}   ${whatOf.get(id) ?? ''}`);
  lines.push('', `${pad('rule of the source', 28)}kept`);
  for (const [rule, r] of s.byRule) lines.push(`${pad(rule, 28)}${frac(r)}`);
  lines.push('', 'Metamorphic totals');
  lines.push(`  relations kept                  ${frac(s.kept)}   (keep ${frac(s.keepRelations)}, change ${frac(s.changeRelations)})`);
  lines.push(`  human_better precision (variants) ${frac(s.humanBetterPrecision)}`);
  const failures = metamorphicFailures(s);
  lines.push(`  ${failures.length === 0 ? 'PASS' : 'MISS'}  goals: relations kept >= ${METAMORPHIC_GOALS.kept}, human_better precision on variants >= ${METAMORPHIC_GOALS.humanBetterPrecision}, no false human_better on a keep relation`);
  if (s.broken.length > 0) {
    lines.push('', `Broken relations (${s.broken.length})`);
    for (const r of s.broken) lines.push(`  ${pad(r.transform, 22)} ${pad(r.sourceId, 40)} want ${pad(expectation(r), 28)} got ${r.verdict}${r.abstentionCode ? ` (${r.abstentionCode})` : ''}`);
  }
  return lines;
}
