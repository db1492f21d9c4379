// Judge benchmark: loads the labelled cases, runs the configured judge on each and prints the
// report (entry: bench/judge.bench.ts).
import { writeFileSync } from 'node:fs';
import type { ModelPort } from '@aoc/agent-runtime';
import { createJudgeModel } from '../../services/judge/src/judge-answer/judge-model.provider';
import { intEnv } from '../bus/config';
import { CASES_DIR, RULE_TAGS, loadCases, type LoadedCase } from './case.schema';
import { runCases, type CaseRun } from './harness';
import { TRANSFORMATIONS, variantsOf } from './metamorphic';
import { metamorphicReport, runVariants, scoreVariants, type VariantRun } from './metamorphic-score';
import { VERDICTS, byRule, goalMet, goals, rate, score, type Ratio, type Scores } from './score';

export interface BenchOptions {
  quick: boolean;
  json: string | null;
  concurrency: number;
  only: RegExp | null;
  dir: string;
  /** Also run the metamorphic variants of the selected cases (BENCH_JUDGE_METAMORPHIC=0 turns it off). */
  metamorphic: boolean;
}

export function optionsFrom(argv: readonly string[], env: Record<string, string | undefined> = process.env): BenchOptions {
  const jsonAt = argv.indexOf('--json');
  if (jsonAt >= 0 && !argv[jsonAt + 1]) throw new Error('--json needs a file path');
  const concurrency = intEnv('BENCH_JUDGE_CONCURRENCY', 4);
  if (concurrency === 0) throw new Error('BENCH_JUDGE_CONCURRENCY must be positive');
  return {
    quick: env['BENCH_QUICK'] === '1' || argv.includes('--quick'),
    json: jsonAt >= 0 ? argv[jsonAt + 1] : null,
    concurrency,
    only: env['BENCH_JUDGE_ONLY'] ? new RegExp(env['BENCH_JUDGE_ONLY']) : null,
    dir: env['BENCH_JUDGE_CASES_DIR'] || CASES_DIR,
    metamorphic: env['BENCH_JUDGE_METAMORPHIC'] !== '0',
  };
}

/** BENCH_QUICK: the first case of every rule (file order), for CI. */
export function selectCases(all: readonly LoadedCase[], options: Pick<BenchOptions, 'quick' | 'only'>): LoadedCase[] {
  let cases = options.only ? all.filter((c) => options.only?.test(c.case.id)) : [...all];
  if (options.quick) {
    const seen = new Set<string>();
    cases = cases.filter((c) => (seen.has(c.case.rule) ? false : (seen.add(c.case.rule), true)));
  }
  return cases;
}

const pct = (r: Ratio) => {
  const v = rate(r);
  return v === null ? '   n/a' : `${(v * 100).toFixed(1).padStart(5)}%`;
};
const frac = (r: Ratio) => `${pct(r)} (${r.hits}/${r.of})`;
const pad = (s: string | number, n: number) => String(s).padEnd(n);
const lpad = (s: string | number, n: number) => String(s).padStart(n);

function ruleTable(runs: readonly CaseRun[]): string[] {
  const head = `${pad('rule', 28)}${lpad('n', 3)}  ${pad('exact', 8)}${pad('decided', 9)}${pad('proj ok', 9)}${pad('ids ok', 8)}${pad('hb pred/ok', 11)}expected verdicts`;
  const lines = [head, '-'.repeat(head.length + 12)];
  for (const [rule, rs] of byRule(runs, RULE_TAGS)) {
    const s = score(rs);
    const expected = [...new Set(rs.map((r) => r.expected.verdict))].join(',');
    const hb = s.precision.human_better;
    lines.push(
      `${pad(rule, 28)}${lpad(rs.length, 3)}  ${pad(`${s.exact.hits}/${s.exact.of}`, 8)}${pad(`${s.coverage.hits}/${s.coverage.of}`, 9)}${pad(`${s.projection.hits}/${s.projection.of}`, 9)}${pad(`${s.ids.hits}/${s.ids.of}`, 8)}${pad(`${hb.of}/${hb.hits}`, 11)}${expected}`,
    );
  }
  return lines;
}

function confusionTable(s: Scores): string[] {
  const short: Record<string, string> = { ai_better: 'ai_b', equivalent: 'equiv', different_but_valid: 'dbv', human_better: 'hum_b', not_compared: 'n/c' };
  const lines = [`${pad('expected \\ judged', 22)}${VERDICTS.map((v) => lpad(short[v], 7)).join('')}`];
  for (const e of VERDICTS) lines.push(`${pad(e, 22)}${VERDICTS.map((v) => lpad(s.confusion[e][v] || '.', 7)).join('')}`);
  return lines;
}

export function report(runs: readonly CaseRun[], engine: string): string {
  const s = score(runs);
  const lines = [`Judge benchmark: ${runs.length} cases, judge engine ${engine}`, '', ...ruleTable(runs), '', 'Totals'];
  lines.push(`  exact verdict accuracy          ${frac(s.exact)}`);
  lines.push(`  projection accuracy (decided)   ${frac(s.projection)}`);
  lines.push(`  coverage (share decided)        ${frac(s.coverage)}`);
  for (const v of VERDICTS) lines.push(`  precision ${pad(v, 22)}${frac(s.precision[v])}   recall ${frac(s.recall[v])}`);
  lines.push(`  human comment ids exact         ${frac(s.ids)}`);
  lines.push(`  judge errors                    ${s.errors}`);
  lines.push('', 'Abstentions (not_compared) by code');
  if (s.abstentions.size === 0) lines.push('  none');
  for (const [code, n] of s.abstentions) lines.push(`  ${pad(code, 32)}${n}`);
  lines.push('', ...confusionTable(s), '', 'Goals (built-in judge)');
  for (const g of goals(s)) lines.push(`  ${goalMet(g) ? 'PASS' : 'MISS'}  ${pad(g.name, 30)} ${frac(g.value)}  goal >= ${g.min}`);
  const misses = runs.filter((r) => r.verdict !== r.expected.verdict || (r.expected.humanCommentIds.length > 0 && r.humanCommentIds.join(',') !== r.expected.humanCommentIds.join(',')));
  if (misses.length > 0) {
    lines.push('', `Mismatches (${misses.length})`);
    for (const r of misses) {
      const ids = `ids [${r.humanCommentIds.join(',')}] want [${r.expected.humanCommentIds.join(',')}]`;
      lines.push(`  ${pad(r.id, 40)} ${pad(r.expected.verdict, 20)} -> ${pad(r.verdict, 20)} ${pad(r.abstentionCode ?? '', 24)} ${ids}${r.error ? `  error: ${r.error}` : ''}`);
    }
  }
  return lines.join('\n');
}

/** Runs the metamorphic variants of the selected cases and prints their section of the report. */
async function metamorphic(model: ModelPort, cases: readonly LoadedCase[], runs: readonly CaseRun[], concurrency: number): Promise<VariantRun[]> {
  const { variants, skipped } = variantsOf(cases.map((c) => c.case));
  process.stderr.write(`[bench:judge] ${variants.length} metamorphic variants\n`);
  const variantRuns = await runVariants(model, variants, new Map(runs.map((r) => [r.id, r])), concurrency);
  const whatOf = new Map(TRANSFORMATIONS.map((t) => [t.id, t.what]));
  process.stdout.write(`${metamorphicReport(scoreVariants(variantRuns), skipped, whatOf).join('\n')}\n`);
  return variantRuns;
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  const options = optionsFrom(argv);
  const cases = selectCases(loadCases(options.dir), options);
  if (cases.length === 0) throw new Error('no case selected');
  const { model, description } = createJudgeModel(process.env);
  const configured = typeof description['engine'] === 'string' ? description['engine'] : 'unknown';
  process.stderr.write(`[bench:judge] ${cases.length} cases${options.quick ? ' (quick)' : ''}, engine ${configured}\n`);
  const runs = await runCases(model, cases, options.concurrency);
  const models = [...new Set(runs.map((r) => r.judgeEngine).filter((e): e is string => e !== null))];
  const engine = models.length > 0 ? `${configured} (${models.join(', ')})` : configured;
  process.stdout.write(`${report(runs, engine)}\n`);
  const variants = options.metamorphic ? await metamorphic(model, cases, runs, options.concurrency) : [];
  if (options.json) {
    writeFileSync(options.json, `${JSON.stringify({ engine, quick: options.quick, results: runs, variants }, null, 2)}\n`);
    process.stderr.write(`[bench:judge] per-case results written to ${options.json}\n`);
  }
  return 0;
}
