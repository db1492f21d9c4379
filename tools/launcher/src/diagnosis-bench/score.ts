// Diagnosis benchmark (bench/diagnosis/): what one run's briefs say, the scoring of one case and
// the aggregates the report prints. Pure.
import { CausalStrength, LocalCausalBriefV1 } from '@aoc/contracts';
import { rankBriefs } from '@aoc/service-router';
import type { ReferencePick } from './reference';

/** confirmed 4 > strong 3 > moderate 2 > weak 1 > undetermined 0 (the contract's order). */
export function strengthRank(strength: string | null): number {
  const i = strength === null ? -1 : (CausalStrength.options as readonly string[]).indexOf(strength);
  return i < 0 ? -1 : CausalStrength.options.length - 1 - i;
}

export interface BriefSummary {
  scenario: string;
  evidenceStatus: string | null;
  strength: string | null;
  family: string | null;
  statement: string | null;
  undetermined: string[];
}

/** One ticket's run as the benchmark sees it. */
export interface EngineOutcome {
  status: 'published' | 'crash' | 'timeout';
  error: string | null;
  runId: string | null;
  ms: number;
  decision: string | null;
  evidenceStatus: string | null;
  customerReply: string;
  briefs: BriefSummary[];
  /** Family of the brief the router reconciles first (strength, then the confirmed mode's score); null when it names none. */
  leadingFamily: string | null;
  leadingStrength: string | null;
  /** Some brief has strength >= moderate and a family. */
  namesCause: boolean;
  /** No cause named, and some brief lists what it could not determine. */
  saysMissing: boolean;
}

/** A row of `router.scenario_threads` (scenario, brief, evidence_status), in scenario-id order. */
export interface ThreadRow {
  scenario: string;
  brief: { leadingMechanism?: { strength?: string; family?: string | null; statement?: string }; undetermined?: string[] } | null;
  evidence_status: string | null;
}

export function summariseBriefs(rows: readonly ThreadRow[], title = ''): Pick<EngineOutcome, 'briefs' | 'leadingFamily' | 'leadingStrength' | 'namesCause' | 'saysMissing'> {
  const briefs: BriefSummary[] = rows.map((r) => ({
    scenario: r.scenario,
    evidenceStatus: r.evidence_status,
    strength: r.brief?.leadingMechanism?.strength ?? null,
    family: r.brief?.leadingMechanism?.family ?? null,
    statement: r.brief?.leadingMechanism?.statement ?? null,
    undetermined: r.brief?.undetermined ?? [],
  }));
  // The router's own reconciliation order, so the scored lead is the one the answer names.
  const parsed = rows.map((r, i) => ({ i, brief: LocalCausalBriefV1.safeParse(r.brief) }));
  const valid = parsed.filter((p) => p.brief.success).map((p) => ({ i: p.i, brief: p.brief.data as LocalCausalBriefV1 }));
  const first = valid.length === parsed.length && valid.length > 0 ? rankBriefs(valid, title)[0] : null;
  const leading = first ? briefs[first.i] : ([...briefs].filter((b) => strengthRank(b.strength) >= 0).sort((a, b) => strengthRank(b.strength) - strengthRank(a.strength))[0] ?? null);
  const namesCause = briefs.some((b) => strengthRank(b.strength) >= strengthRank('moderate') && b.family !== null);
  return {
    briefs,
    leadingFamily: leading?.family ?? null,
    leadingStrength: leading?.strength ?? null,
    namesCause,
    saysMissing: !namesCause && briefs.some((b) => b.undetermined.length > 0),
  };
}

export interface CaseExpectation {
  suite: 'A' | 'B';
  id: string;
  /** The cluster label the ticket names (suite A: the opaque case number). */
  cluster?: string;
  /** Cause (suite A) or scenario kind (suite B). */
  group: string;
  compound: boolean;
  /** Accepted families; ["none"] when no cause should be named. */
  families: string[];
  decisions: string[];
  state?: string;
  redHerring?: string;
  mustMention?: string[];
}

export interface CaseResult extends CaseExpectation {
  engine: EngineOutcome;
  /** null: the reference ranker does not apply (a case without a usable target). */
  reference: ReferencePick | null;
  familyOk: boolean;
  /** null: the reference does not apply to the case. */
  referenceOk: boolean | null;
  decisionOk: boolean;
  mentionOk: boolean | null;
  herringTaken: boolean | null;
}

/**
 * Family: expected "none" is a hit when no brief names a cause (strength >= moderate with a
 * family); otherwise the leading brief's family must be one of the accepted ones. A crashed or
 * timed-out run scores nothing.
 */
export function judge(expect: CaseExpectation, engine: EngineOutcome, reference: ReferencePick | null): CaseResult {
  const published = engine.status === 'published';
  const none = expect.families.length === 1 && expect.families[0] === 'none';
  const familyOk = published && (none ? !engine.namesCause : engine.leadingFamily !== null && expect.families.includes(engine.leadingFamily));
  const referenceOk = reference === null ? null : none ? reference.family === 'none' : expect.families.includes(reference.family);
  const reply = engine.customerReply.toLowerCase();
  return {
    ...expect,
    engine,
    reference,
    familyOk,
    referenceOk,
    decisionOk: published && engine.decision !== null && expect.decisions.includes(engine.decision),
    mentionOk: expect.mustMention?.length ? published && expect.mustMention.every((m) => reply.includes(m.toLowerCase())) : null,
    herringTaken: expect.redHerring ? published && engine.leadingFamily === expect.redHerring : null,
  };
}

export interface Aggregate {
  label: string;
  n: number;
  family: number;
  reference: number;
  /** Cases the reference was scored on. */
  referenceN: number;
  decision: number;
  namesCause: number;
  causeOrMissing: number;
  mention: number;
  mentionN: number;
  herring: number;
  herringN: number;
  crashes: number;
  timeouts: number;
}

export function aggregate(label: string, results: readonly CaseResult[]): Aggregate {
  const count = (f: (r: CaseResult) => boolean) => results.filter(f).length;
  return {
    label,
    n: results.length,
    family: count((r) => r.familyOk),
    reference: count((r) => r.referenceOk === true),
    referenceN: count((r) => r.referenceOk !== null),
    decision: count((r) => r.decisionOk),
    namesCause: count((r) => r.engine.namesCause),
    causeOrMissing: count((r) => r.engine.namesCause || r.engine.saysMissing),
    mention: count((r) => r.mentionOk === true),
    mentionN: count((r) => r.mentionOk !== null),
    herring: count((r) => r.herringTaken === true),
    herringN: count((r) => r.herringTaken !== null),
    crashes: count((r) => r.engine.status === 'crash'),
    timeouts: count((r) => r.engine.status === 'timeout'),
  };
}

/** Aggregates per group in first-seen order. */
export function byGroup(results: readonly CaseResult[]): Aggregate[] {
  const groups = new Map<string, CaseResult[]>();
  for (const r of results) groups.set(r.group, [...(groups.get(r.group) ?? []), r]);
  return [...groups].map(([g, list]) => aggregate(g, list));
}

export interface Target {
  name: string;
  goal: string;
  value: string;
  pass: boolean | null;
}

export const TARGETS = { suiteBFamily: 0.9, suiteASingleTop1: 0.7 } as const;

const share = (k: number, n: number) => (n === 0 ? Number.NaN : k / n);

export function targets(suiteB: Aggregate | null, suiteASingle: Aggregate | null, all: Aggregate): Target[] {
  const pct = (v: number) => (Number.isNaN(v) ? 'n/a' : `${(v * 100).toFixed(1)}%`);
  const out: Target[] = [];
  if (suiteB) {
    const v = share(suiteB.family, suiteB.n);
    out.push({ name: 'suite B leading family', goal: `>= ${TARGETS.suiteBFamily * 100}%`, value: pct(v), pass: Number.isNaN(v) ? null : v >= TARGETS.suiteBFamily });
  }
  if (suiteASingle) {
    const v = share(suiteASingle.family, suiteASingle.n);
    out.push({ name: 'suite A top-1 family, single causes', goal: `>= ${TARGETS.suiteASingleTop1 * 100}%`, value: pct(v), pass: Number.isNaN(v) ? null : v >= TARGETS.suiteASingleTop1 });
  }
  out.push({ name: 'crashes + timeouts', goal: '0', value: String(all.crashes + all.timeouts), pass: all.crashes + all.timeouts === 0 });
  return out;
}
