// Metamorphic relations of the Judge benchmark (bench/judge/metamorphic.ts) over the labelled set:
// every transformation applies somewhere and makes valid cases, the built-in judge keeps at least
// the goal share of relations, and a keep relation never yields a human_better the label does not
// allow. The gate itself is checked on made-up runs, so the spec can fail.
// bench/ belongs to no Nx project (see judge-bench.spec.ts); the bench runs the judge service's built-in engine.
/* eslint-disable @nx/enforce-module-boundaries */
import { createJudgeModel } from '../../../services/judge/src/judge-answer/judge-model.provider';
import { loadCases } from '../../../bench/judge/case.schema';
import { runCases } from '../../../bench/judge/harness';
import { TRANSFORMATIONS, variantsOf } from '../../../bench/judge/metamorphic';
import { METAMORPHIC_GOALS, metamorphicFailures, relationHolds, runVariants, scoreVariants, type VariantRun } from '../../../bench/judge/metamorphic-score';
import { rate } from '../../../bench/judge/score';
/* eslint-enable @nx/enforce-module-boundaries */

const loaded = loadCases();
const { variants } = variantsOf(loaded.map((l) => l.case));

describe('judge benchmark metamorphic relations', () => {
  it.each(TRANSFORMATIONS.map((t) => [t.id] as const))('%s applies to at least one labelled case', (id) => {
    expect(variants.some((v) => v.transform === id)).toBe(true);
  });

  it('says why a transformation does not apply', () => {
    const progressOnly = loaded.find((l) => l.case.expected.humanCommentIds.length === 0)?.case;
    const out = TRANSFORMATIONS.find((t) => t.id === 'incidental_number')?.apply(progressOnly ?? loaded[0].case);
    expect(out?.applies).toBe(false);
    if (out && !out.applies) expect(out.why.length).toBeGreaterThan(0);
  });

  it('keeps the goal share of relations and blames no keep variant falsely (built-in judge)', async () => {
    const model = createJudgeModel({}).model;
    const sources = await runCases(model, loaded, 2);
    const runs = await runVariants(model, variants, new Map(sources.map((r) => [r.id, r])), 2);
    const s = scoreVariants(runs);
    expect(metamorphicFailures(s)).toEqual([]);
    expect(rate(s.kept)).toBeGreaterThanOrEqual(METAMORPHIC_GOALS.kept);
  }, 120_000);
});

describe('metamorphic gate', () => {
  const run = (over: Partial<VariantRun>): VariantRun => ({
    transform: 'paraphrase',
    relation: { kind: 'keep' },
    sourceId: 'x',
    rule: 'paraphrase',
    sourceLabel: 'equivalent',
    sourceVerdict: 'equivalent',
    verdict: 'equivalent',
    abstentionCode: null,
    kept: true,
    humanBetterAllowed: false,
    ...over,
  });

  it('reads keep and change relations', () => {
    expect(relationHolds({ kind: 'keep' }, 'equivalent', 'equivalent')).toBe(true);
    expect(relationHolds({ kind: 'keep' }, 'equivalent', 'different_but_valid')).toBe(false);
    expect(relationHolds({ kind: 'change', to: ['human_better'], says: 'x' }, 'equivalent', 'human_better')).toBe(true);
    expect(relationHolds({ kind: 'change', to: ['human_better'], says: 'x' }, 'human_better', 'equivalent')).toBe(false);
  });

  it('fails on a false human_better from a keep relation even when the share is met', () => {
    const runs = [...Array.from({ length: 40 }, () => run({})), run({ verdict: 'human_better', kept: false })];
    const failures = metamorphicFailures(scoreVariants(runs));
    expect(failures.some((f) => f.includes('paraphrase on x: human_better'))).toBe(true);
  });

  it('fails when the kept share drops below the goal', () => {
    const runs = [...Array.from({ length: 9 }, () => run({})), run({ verdict: 'not_compared', kept: false })];
    expect(metamorphicFailures(scoreVariants(runs))).toEqual([expect.stringContaining('relations kept 9/10')]);
  });

  it('fails when human_better precision on the variants drops below the goal', () => {
    const change = { kind: 'change' as const, to: ['ai_better' as const], says: 'becomes ai_better' };
    const runs = [...Array.from({ length: 40 }, () => run({})), run({ relation: change, verdict: 'human_better', kept: false })];
    expect(metamorphicFailures(scoreVariants(runs))).toEqual([expect.stringContaining('human_better precision on variants 0/1')]);
  });
});
