// The labelled Judge benchmark set (bench/judge/cases/*.json) and its scoring: every case file
// parses, ids are unique, every declared rule has at least two cases, expected human comment ids
// are public Support replies after the anchor, and each case becomes valid contract objects the
// judge's planner accepts. The judge's verdicts themselves are measured by `npm run bench:judge`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFeedbackCommand } from '@aoc/feedback';
// bench/ belongs to no Nx project and jest only collects specs under libs, services, tools and
// deploy, so the benchmark's spec lives beside diagnosis-bench.spec.ts and reaches into bench/.
/* eslint-disable @nx/enforce-module-boundaries */
import { CASES_DIR, RULE_TAGS, anchorAt, loadCases, parseCaseFile, type JudgeCase } from '../../../bench/judge/case.schema';
import { NO_PLAN, abstentionCodeOf, planOf, type CaseRun } from '../../../bench/judge/harness';
import { selectCases } from '../../../bench/judge/main';
import { goalMet, goals, score } from '../../../bench/judge/score';
/* eslint-enable @nx/enforce-module-boundaries */

const loaded = loadCases();
const cases = loaded.map((l) => l.case);

describe('judge benchmark cases', () => {
  it('parses every case file with at least 48 cases and unique ids', () => {
    expect(cases.length).toBeGreaterThanOrEqual(48);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
  });

  it.each(RULE_TAGS)('has at least two cases for rule %s', (rule) => {
    expect(cases.filter((c) => c.rule === rule).length).toBeGreaterThanOrEqual(2);
  });

  it('is roughly balanced: human_better is not the majority and every verdict occurs', () => {
    const count = (v: string) => cases.filter((c) => c.expected.verdict === v).length;
    expect(count('human_better') / cases.length).toBeLessThan(0.4);
    for (const v of ['ai_better', 'equivalent', 'different_but_valid', 'human_better', 'not_compared']) expect(count(v)).toBeGreaterThanOrEqual(3);
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s: expected human comments are public Support replies after the anchor', (_id, c: JudgeCase) => {
    const byId = new Map(c.timeline.map((m) => [m.id, m]));
    for (const id of c.expected.humanCommentIds) {
      const m = byId.get(id);
      expect(m).toBeDefined();
      expect(m?.visibility).toBe('public');
      expect(['support', 'engineer']).toContain(m?.authorRole);
      expect(Date.parse(m?.createdAt ?? '')).toBeGreaterThan(Date.parse(anchorAt(c.answer)));
      expect(parseFeedbackCommand(m?.body ?? '')).toBeNull();
    }
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s: becomes contract objects the planner judges', (_id, c: JudgeCase) => {
    const plan = planOf(c);
    const anySupportReply = c.timeline.some((m) => m.visibility === 'public' && (m.authorRole === 'support' || m.authorRole === 'engineer') && Date.parse(m.createdAt) > Date.parse(anchorAt(c.answer)));
    if (!anySupportReply) {
      expect(plan).toBeNull();
      expect(c.expected.verdict).toBe('not_compared');
      return;
    }
    expect(plan).not.toBeNull();
    for (const id of c.expected.humanCommentIds) expect(plan?.candidates.has(id)).toBe(true);
    // Write-mode cases carry a revise|wrong bound to the version they replaced.
    if (c.rule.startsWith('write_')) {
      expect(plan?.input.previousAnswer?.runId).toBe(c.previous?.runId);
      expect(plan?.previousComplaint).toBe(true);
    } else {
      expect(plan?.input.previousAnswer ?? null).toBeNull();
    }
  });
});

describe('judge benchmark loader', () => {
  const file = readFileSync(join(CASES_DIR, '01-paraphrase-units.json'), 'utf8');

  it('names the file and the field of a bad case', () => {
    const raw = JSON.parse(file) as { cases: { id: string; timeline: { visibleToAi: boolean }[]; expected: { humanCommentIds: string[] } }[] };
    raw.cases[0].timeline[0].visibleToAi = !raw.cases[0].timeline[0].visibleToAi;
    raw.cases[1].expected.humanCommentIds = ['c-404'];
    let message = '';
    try {
      parseCaseFile('broken.json', JSON.stringify(raw));
    } catch (error) {
      message = error instanceof Error ? error.message : String(error);
    }
    expect(message).toContain('broken.json');
    expect(message).toContain(`cases[0] (id "${raw.cases[0].id}").timeline[0].visibleToAi`);
    expect(message).toContain(`cases[1] (id "${raw.cases[1].id}").expected.humanCommentIds[0]: no comment c-404`);
  });

  it('rejects unknown fields and invalid JSON, naming the file', () => {
    const raw = JSON.parse(file) as { cases: Record<string, unknown>[] };
    raw.cases[0]['extra'] = 1;
    expect(() => parseCaseFile('extra.json', JSON.stringify(raw))).toThrow(/extra\.json:[\s\S]*cases\[0\]/);
    expect(() => parseCaseFile('bad.json', '{')).toThrow(/bad\.json: invalid JSON/);
  });

  it('quick mode keeps the first case of every rule', () => {
    const quick = selectCases(loaded, { quick: true, only: null });
    expect(quick.map((l) => l.case.rule).sort()).toEqual([...RULE_TAGS].sort());
    expect(selectCases(loaded, { quick: false, only: /^units-/ }).every((l) => l.case.rule === 'units_rounding')).toBe(true);
  });
});

describe('judge benchmark scores', () => {
  const run = (expected: CaseRun['expected']['verdict'], verdict: CaseRun['verdict'], ids: string[] = ['c-1'], want: string[] = ['c-1'], code: string | null = null): CaseRun => ({
    id: `${expected}-${verdict}-${ids.join('')}`,
    rule: 'paraphrase',
    file: 'x.json',
    expected: { verdict: expected, humanCommentIds: want },
    verdict,
    humanCommentIds: ids,
    abstentionCode: code,
    ordersAgree: true,
    previousComplaint: false,
    verdictReason: null,
    judgeEngine: null,
    error: null,
    ms: 0,
  });

  it('computes exact, projection on decided cases, precision, coverage, ids and abstentions', () => {
    const s = score([
      run('equivalent', 'equivalent'),
      run('equivalent', 'different_but_valid'), // exact miss, projection hit (1 = 1)
      run('ai_better', 'human_better'), // projection miss
      run('human_better', 'human_better', ['c-1', 'c-2'], ['c-2']), // ids miss
      run('not_compared', 'not_compared', [], [], NO_PLAN),
      run('human_better', 'not_compared', [], ['c-1'], 'JUDGE.NEEDS_MODEL'),
      run('not_compared', 'equivalent', ['c-1'], []), // decided a not_compared case: projection miss
    ]);
    expect(s.exact).toEqual({ hits: 3, of: 7 });
    expect(s.coverage).toEqual({ hits: 5, of: 7 });
    expect(s.projection).toEqual({ hits: 3, of: 5 });
    expect(s.precision.human_better).toEqual({ hits: 1, of: 2 });
    expect(s.recall.human_better).toEqual({ hits: 1, of: 2 });
    expect(s.ids).toEqual({ hits: 3, of: 5 });
    expect([...s.abstentions]).toEqual([
      ['JUDGE.NEEDS_MODEL', 1],
      [NO_PLAN, 1],
    ]);
    expect(goals(s).map(goalMet)).toEqual([false, false, false]);
  });

  it('reads the abstention code defensively', () => {
    expect(abstentionCodeOf({ verdict: 'not_compared' })).toBeNull();
    expect(abstentionCodeOf({ abstentionCode: null })).toBeNull();
    expect(abstentionCodeOf({ abstentionCode: 'JUDGE.ORDER_DISAGREEMENT' })).toBe('JUDGE.ORDER_DISAGREEMENT');
  });
});
