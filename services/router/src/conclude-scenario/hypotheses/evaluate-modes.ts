import { familyLabel } from '@aoc/metric-ontology';
import { deviatesBadly, recovered } from '../family-rules';
import { evaluateCondition, type ConditionResult } from './conditions';
import { deviatingFamilies, queried, worst, type EvidenceContext } from './evidence-context';
import { RANKING, conditionFamilies, explainsMode, type Clause, type Condition, type FailureMode } from './failure-modes.data';

/**
 * Tests failure modes against the evidence. A mode is `confirmed` when every clause of its
 * signature holds and nothing that refutes it holds; `refuted` when a clause fails on measured
 * data or a refuting condition holds; `undetermined` when a clause could not be decided (its
 * family or channel was not measured). Confirmed modes are ranked by how much of the symptom
 * they explain, how large their evidence is, when it began against the symptom, and support.
 */
export type Verdict = 'confirmed' | 'refuted' | 'undetermined';

export interface Hypothesis {
  mode: FailureMode;
  verdict: Verdict;
  /** The evidence lines that decided the verdict, most telling first. */
  deciding: string[];
  /** Supporting lines (confirmed modes only). */
  support: string[];
  /** For undetermined modes: what would settle them. */
  missing: string[];
  score: number;
  /** When the mode's evidence began (ms), when known. */
  at: number | null;
  /** The family its leading evidence is about. */
  family: string | null;
  /** The decisive signal was back near its usual level by the end of the window. */
  recovered: boolean;
  /** The families whose return showed it (empty when discrete findings such as log lines stopped). */
  recoveredFamilies: string[];
  /** Set when another confirmed mode explains this one. */
  explainedBy: string | null;
  /** The largest finding among its deciding evidence (0-1), and whether any of it is a state rather than a change. */
  magnitude: number;
  state: boolean;
  /** Some of that state names the mechanism outright (a log line, an event, a limit reached). */
  named: boolean;
  /** Families its deciding evidence is about. */
  families: string[];
  /** How well its onset fits the symptom's (0-1). */
  fit: number;
  /**
   * For undetermined modes, how close they came (0-1.5): the share of signature clauses already
   * holding, plus a half when a family the mode reads left its usual level. Orders what to ask next.
   */
  promise: number;
  /**
   * For undetermined modes: the families of the clauses still undecided, and whether every other
   * clause already holds (one clause from a verdict).
   */
  openFamilies: string[];
  nearVerdict: boolean;
}

interface ClauseResult {
  result: ConditionResult['result'];
  lines: ConditionResult[];
  /** Undecided for want of evidence nobody asked for yet (a family never queried, a channel not read). */
  open?: boolean;
}

/**
 * An undecided condition is open when what it reads was never asked for: a channel (a log, an
 * event, statement statistics) or a family no query requested. One whose families were all
 * queried and found absent is settled: the target does not have that evidence.
 */
function isOpen(c: Condition, r: ConditionResult, ctx: EvidenceContext): boolean {
  if (r.result !== 'unknown') return false;
  const families = conditionFamilies(c);
  return r.family === null || families.length === 0 || families.some((f) => !queried(ctx, f));
}

function evaluateAll(conds: readonly Condition[], ctx: EvidenceContext): ClauseResult {
  const rs = conds.map((c) => evaluateCondition(c, ctx));
  const result = rs.every((r) => r.result === 'holds') ? 'holds' : rs.some((r) => r.result === 'fails') ? 'fails' : 'unknown';
  return { result, lines: result === 'holds' ? rs : rs.filter((r) => r.result === result), open: result === 'unknown' && conds.some((c, i) => isOpen(c, rs[i], ctx)) };
}

function evaluateOne(c: Condition, ctx: EvidenceContext): ClauseResult {
  const r = evaluateCondition(c, ctx);
  return { result: r.result, lines: [r], open: isOpen(c, r, ctx) };
}

function evaluateClause(clause: Clause, ctx: EvidenceContext): ClauseResult {
  if (!('anyOf' in clause)) return evaluateOne(clause, ctx);
  const parts = clause.anyOf.map((alt) => ('allOf' in alt ? evaluateAll(alt.allOf, ctx) : evaluateOne(alt, ctx)));
  const held = parts.filter((p) => p.result === 'holds').sort((a, b) => Math.max(...b.lines.map((l) => l.magnitude)) - Math.max(...a.lines.map((l) => l.magnitude)));
  if (held.length > 0) return { result: 'holds', lines: held.flatMap((p) => p.lines) };
  // The alternatives are ways to measure one thing: what was measured decides unless a way not yet tried could still show it.
  if (parts.some((p) => p.result === 'fails') && !parts.some((p) => p.open === true)) return { result: 'fails', lines: parts.filter((p) => p.result === 'fails').flatMap((p) => p.lines) };
  return { result: 'unknown', lines: parts.filter((p) => p.result === 'unknown').flatMap((p) => p.lines) };
}

const unique = (xs: readonly string[]) => [...new Set(xs)];

/** Symptom families of the thread: what the scenario is about plus effect families that moved. */
export function symptomFamilies(ctx: EvidenceContext, asked: readonly string[]): string[] {
  const effects = ['statement_latency', 'errors', 'availability', 'active_sessions', 'connections', 'replication_lag'];
  return unique([...asked, ...deviatingFamilies(ctx).filter((f) => effects.includes(f))]);
}

/**
 * How well a mode's onset fits the symptom's: at the reported onset (or the symptom's own start)
 * within ten minutes fits best; a state already there when the window began fits an onset before
 * the window; evidence that begins long before or after the symptom fits less and less.
 */
function timing(at: number | null, ctx: EvidenceContext, symptomStart: number | null): number {
  const ref = ctx.onset ?? symptomStart;
  if (at === null) return 0.5;
  if (ref === null) return 0.7;
  const minutes = (at - ref) / 60_000;
  if (Math.abs(minutes) <= 10) return 1;
  if (minutes < 0) return at === ctx.window?.from ? 0.8 : Math.max(0.3, 1 - (-minutes - 10) / 40);
  return Math.max(0.1, 1 - (minutes - 10) / 20);
}

/**
 * The family a confirmed mode is reported under: that of its strongest deciding evidence when the
 * mode reads that family (a checkpoint storm shown by WAL volume is reported as WAL), else the
 * mode's own.
 */
function reportedFamily(mode: FailureMode, lead: ConditionResult | undefined): string {
  const own = new Set<string>([...mode.evidence.families, ...mode.symptoms]);
  return lead?.family && own.has(lead.family) ? lead.family : mode.family;
}

/** Quiet this long before the window ends, a discrete finding (a restart, log lines) is over. */
const OVER_MS = 10 * 60_000;

/** Every deciding finding is discrete (an event, log lines) and was last seen well before the window ended. */
function discreteOver(lines: readonly ConditionResult[], ctx: EvidenceContext): boolean {
  const end = ctx.window?.to;
  if (end === undefined || lines.length === 0) return false;
  return lines.every((l) => l.lastAt !== undefined && l.lastAt !== null && l.lastAt <= end - OVER_MS);
}

/** How close an undetermined mode came: clauses holding, and whether what it reads moved. */
function promiseOf(mode: FailureMode, clauses: readonly ClauseResult[], ctx: EvidenceContext): number {
  const held = clauses.filter((c) => c.result === 'holds').length / clauses.length;
  const moved = deviatingFamilies(ctx);
  const reads = new Set<string>([...mode.symptoms, ...mode.evidence.families]);
  return held + (moved.some((f) => reads.has(f)) ? 0.5 : 0);
}

/** How a mode ended: whether it is over, and the families whose return to their usual level shows it (none when discrete findings stopped). */
export interface Recovery {
  recovered: boolean;
  back: string[];
}

/**
 * The families among these that left their usual level, when every one of them is back near it
 * (recovered), or null when none left it: a family that stayed steady (a discriminator such as
 * "traffic stayed flat") says nothing of recovery.
 */
function familiesBack(families: readonly string[], ctx: EvidenceContext): Recovery | null {
  const states = families.map((f) => worst(ctx, f)).filter((st): st is NonNullable<typeof st> => st !== null && (st.elevatedAtStart || deviatesBadly(st.signal)));
  if (states.length === 0) return null;
  const back = states.every((st) => recovered(st.signal));
  return { recovered: back, back: back ? unique(states.map((st) => st.signal.family)) : [] };
}

/** Families a mode's effects show in: its symptoms and what its supporting conditions read. */
function effectFamilies(mode: FailureMode): string[] {
  return unique([...mode.symptoms, ...mode.supporting.flatMap((c) => conditionFamilies(c))]);
}

/**
 * Whether the incident is over: the metric evidence that decided the mode is back near its usual
 * level; without metric evidence, its discrete findings (log lines, events) stopped well before the
 * window ended. A statement's share is a total over the statistics' lifetime and says nothing of
 * now: a mode decided by statements alone is over when the effects it had (its symptoms and
 * supporting families that left their usual level) are all back, and never on the share alone.
 */
function recoveryOf(mode: FailureMode, lines: readonly ConditionResult[], ctx: EvidenceContext): Recovery {
  const decided = unique(lines.map((l) => l.family).filter((f): f is string => f !== null));
  const byMetrics = familiesBack(decided, ctx);
  if (byMetrics !== null) return byMetrics;
  const discrete = lines.filter((l) => l.lastAt !== undefined);
  if (discrete.length > 0) return { recovered: discreteOver(discrete, ctx), back: [] };
  return familiesBack(effectFamilies(mode), ctx) ?? { recovered: false, back: [] };
}

const recoveryFields = (r: Recovery) => ({ recovered: r.recovered, recoveredFamilies: r.back });

/**
 * The lines that decided a confirmed mode, as an engineer states them: what names the mechanism
 * first (a limit reached, a log line, two series growing in step), then the largest finding; one
 * line per family, so a lag is not told three times (rose, climbed, held).
 */
function decidingLines(lines: readonly ConditionResult[]): string[] {
  const ordered = [...lines].sort((a, b) => Number(b.names === true) - Number(a.names === true) || b.magnitude - a.magnitude);
  const told = new Set<string>();
  const kept: string[] = [];
  for (const l of ordered) {
    // A line that names the mechanism is told besides the family's own measure, never instead of it.
    if (l.names !== true && l.family !== null) {
      if (told.has(l.family)) continue;
      told.add(l.family);
    }
    kept.push(l.line);
  }
  return unique(kept).slice(0, 3);
}

/** What the ranking knows besides the mode's own evidence. */
export interface RankingContext {
  symptoms: readonly string[];
  symptomStart: number | null;
  /** The family of the earliest sustained change among simultaneous ones (the family rules' order), when there is one. */
  orderLead: string | null;
}

export function evaluateMode(mode: FailureMode, ctx: EvidenceContext, rank: RankingContext): Hypothesis {
  const { symptoms, symptomStart } = rank;
  const base = { mode, support: [] as string[], missing: [] as string[], score: 0, at: null, family: null, recovered: false, recoveredFamilies: [] as string[], explainedBy: null, magnitude: 0, state: false, named: false, families: [] as string[], fit: 0, promise: 0, openFamilies: [] as string[], nearVerdict: false };
  const refuting = mode.refutedBy.map((c) => ('allOf' in c ? evaluateAll(c.allOf, ctx) : evaluateOne(c, ctx))).find((r) => r.result === 'holds');
  if (refuting) return { ...base, verdict: 'refuted', deciding: [refuting.lines.map((l) => l.line).join('; ')] };
  const clauses = mode.signature.map((c) => evaluateClause(c, ctx));
  const failed = clauses.find((c) => c.result === 'fails');
  if (failed) return { ...base, verdict: 'refuted', deciding: failed.lines.slice(0, 2).map((l) => l.line) };
  const open = clauses.filter((c) => c.result === 'unknown');
  if (open.length > 0) {
    const undecided = mode.signature.filter((_, i) => clauses[i].result === 'unknown');
    const openFamilies = unique(undecided.flatMap((c) => ('anyOf' in c ? c.anyOf.flatMap((alt) => ('allOf' in alt ? alt.allOf : [alt])) : [c])).flatMap(conditionFamilies));
    Object.assign(base, { openFamilies, nearVerdict: open.length === 1 && clauses.length > 1 && clauses.every((c) => c.result !== 'fails') });
  }
  if (open.length > 0) return { ...base, verdict: 'undetermined', promise: promiseOf(mode, clauses, ctx), deciding: [], missing: unique(open.flatMap((c) => [...c.lines].sort((a, b) => Number(a.family !== null) - Number(b.family !== null)).map((l) => l.line))).slice(0, 3) };
  const lines = clauses.flatMap((c) => c.lines);
  const support = mode.supporting.map((c) => evaluateCondition(c, ctx)).filter((r) => r.result === 'holds');
  const magnitude = Math.max(...lines.map((l) => l.magnitude));
  const times = lines.map((l) => l.at).filter((t): t is number => t !== null);
  const at = times.length > 0 ? Math.min(...times) : null;
  const covered = symptoms.length === 0 ? 0.5 : symptoms.filter((f) => (mode.symptoms as readonly string[]).includes(f) || (mode.evidence.families as readonly string[]).includes(f)).length / symptoms.length;
  const supportShare = mode.supporting.length === 0 ? 0.5 : support.length / mode.supporting.length;
  const fit = timing(at, ctx, symptomStart);
  const first = rank.orderLead !== null && lines.some((l) => l.family === rank.orderLead) ? 1 : 0;
  const score = RANKING.magnitude * magnitude + RANKING.coverage * covered + RANKING.timing * fit + RANKING.support * supportShare + RANKING.order * first;
  const lead = [...lines].sort((a, b) => b.magnitude - a.magnitude)[0];
  return {
    ...base,
    verdict: 'confirmed',
    deciding: decidingLines(lines),
    support: unique(support.map((s) => s.line)).slice(0, 2),
    score,
    at,
    family: reportedFamily(mode, lead),
    magnitude,
    state: lines.some((l) => l.state === true && l.chronic !== true),
    named: lines.some((l) => l.names === true && l.chronic !== true),
    fit,
    families: unique(lines.map((l) => l.family).filter((f): f is string => f !== null)),
    ...recoveryFields(recoveryOf(mode, lines, ctx)),
  };
}

/**
 * A cause explains an effect only when it is a firm finding that began first (a minute's slack),
 * or a state such as an event, which is recorded when it completes (a promotion is logged after
 * the primary it replaces went away): five minutes' slack.
 */
const FIRM = 0.6;
const SLACK_MS = 60_000;
const STATE_SLACK_MS = 5 * 60_000;
function canExplain(cause: Hypothesis, effect: Hypothesis): boolean {
  if (cause.magnitude < FIRM && !cause.state) return false;
  return cause.at === null || effect.at === null || cause.at <= effect.at + (cause.state ? STATE_SLACK_MS : SLACK_MS);
}

/** Every mode tested; confirmed ones ranked, those another confirmed mode explains marked and put after it. */
export function evaluateModes(modes: readonly FailureMode[], ctx: EvidenceContext, asked: readonly string[], orderLead: string | null = null): Hypothesis[] {
  const symptoms = symptomFamilies(ctx, asked);
  const starts = symptoms.map((f) => worst(ctx, f)).map((st) => (st ? (st.elevatedAtStart ? (ctx.window?.from ?? null) : st.signal.shiftAt) : null)).filter((t): t is number => t !== null);
  const symptomStart = starts.length > 0 ? Math.min(...starts) : null;
  const all = modes.map((m) => evaluateMode(m, ctx, { symptoms, symptomStart, orderLead }));
  // Health is not concluded from absence: the families the scenario is about must have been measured.
  const unmeasured = asked.length > 0 && !asked.some((f) => ctx.byFamily.has(f));
  for (const h of all) {
    if (unmeasured && h.mode.id === 'healthy' && h.verdict === 'confirmed') Object.assign(h, { verdict: 'undetermined', deciding: [], missing: [`no ${asked.map((f) => familyLabel(f)).join(' or ')} data for this target in the window`], score: 0 });
  }
  // Nor while the very symptom the scenario asks about left its usual level (the primary's latency
  // may stay flat while the replica lag the ticket reports grows).
  const symptom = asked.map((f) => worst(ctx, f)).find((st) => st !== null && (deviatesBadly(st.signal) || st.elevatedAtStart));
  for (const h of all) if (symptom && h.mode.id === 'healthy' && h.verdict === 'confirmed') Object.assign(h, { verdict: 'refuted', deciding: [`${familyLabel(symptom.signal.family)} left its usual level`], score: 0 });
  // A clean bill of health stands only when no fault is confirmed.
  const fault = all.filter((h) => h.verdict === 'confirmed' && h.mode.id !== 'healthy').sort((a, b) => b.score - a.score)[0];
  for (const h of all) if (fault && h.mode.id === 'healthy' && h.verdict === 'confirmed') Object.assign(h, { verdict: 'refuted', deciding: [`the evidence confirms ${fault.mode.name}: ${fault.deciding[0] ?? ''}`], score: 0 });
  const confirmed = all.filter((h) => h.verdict === 'confirmed').sort((a, b) => b.score - a.score);
  for (const h of confirmed) {
    const by = confirmed.find((o) => o !== h && explainsMode(o.mode, h.mode.id, o.families) && !explainsMode(h.mode, o.mode.id, h.families) && canExplain(o, h));
    if (by) h.explainedBy = by.mode.id;
  }
  const order = (h: Hypothesis) => (h.verdict === 'confirmed' ? (h.explainedBy ? 1 : 0) : h.verdict === 'undetermined' ? 2 : 3);
  return [...all].sort((a, b) => order(a) - order(b) || b.score - a.score);
}
