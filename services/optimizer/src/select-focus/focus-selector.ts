import { createHash } from 'node:crypto';
import type { Verdict } from '@aoc/contracts';
import { familyLabel, isMetricFamilyId, type MetricFamilyId } from '@aoc/metric-ontology';
import type { Criterion } from '../judge-criteria/criterion-judge';
import type { ProblemSignalRef, SignalSource } from '../collect-signals/signal-refs';
import { FOCUS_LIMITS } from '../focus/focus-limits';

/**
 * The built-in Focus selector: groups open problem signals by signature and proposes one narrow
 * problem with 2-5 targets (each citing exactly one signal ref of its own ticket), 0-2 controls
 * (answers judged at least as good as the human's, with no AI gap, on the same family) and exactly
 * one blocking criterion. Broad or unclassifiable signatures and runtime coverage are refused; a
 * grouping a baseline rejected is not proposed again within the rejection lookback.
 */

export interface SelectableSignal extends ProblemSignalRef {
  /** Consumed by a Focus, or suppressed after its source changed: not selectable. */
  unavailable: boolean;
}

export interface ControlCandidate {
  ticketKey: string;
  source: SignalSource;
  verdict: Verdict;
  aiGapCount: number;
  /** Ontology family of the answer's leading mechanism (null: none named). */
  leadingFamily: string | null;
}

export interface FocusTarget {
  ticketKey: string;
  ref: string;
  source: SignalSource;
  statement: string;
}

export interface FocusControl {
  ticketKey: string;
  source: SignalSource;
}

export interface FocusCandidate {
  /** Digest of the grouping (target refs and control tickets): its identity for rejection memory. */
  groupingDigest: string;
  signature: string;
  problemStatement: string;
  blockingCriterionId: string;
  criteria: Criterion[];
  targets: FocusTarget[];
  controls: FocusControl[];
}

/** `note`: how the selection came about when it is not the plain built-in grouping (a model selection refused, say). */
export type Selection = { kind: 'candidate'; candidate: FocusCandidate; note?: string } | { kind: 'none'; reason: string };

const KIND_ORDER: Record<ProblemSignalRef['kind'], number> = { explicit_feedback: 0, ai_gap: 1, key_difference: 2, runtime: 3 };
const CONTROL_VERDICTS: ReadonlySet<Verdict> = new Set(['ai_better', 'equivalent']);

export function groupingDigest(targetRefs: readonly string[], controlTickets: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([[...targetRefs].sort(), [...controlTickets].sort()]))
    .digest('hex');
}

/** The identity of a set of target refs whatever its controls (a model must not re-propose rejected targets with other controls). */
export function targetSetKey(refs: readonly string[]): string {
  return [...refs].sort().join(',');
}

/** The family a quality signature names, or null for signatures the selector refuses as broad. */
export function familyOf(signature: string): MetricFamilyId | null {
  const m = /^quality:([a-z_]+)$/.exec(signature);
  return m && m[1] !== 'unknown' && isMetricFamilyId(m[1]) ? m[1] : null;
}

/** Blocking: the leading mechanism belongs to the family; kept alongside: that family was measured. */
export function criteriaFor(family: MetricFamilyId): { blockingCriterionId: string; criteria: Criterion[] } {
  const blocking: Criterion = { id: `lead-${family.replace(/_/g, '-')}`, kind: 'leading_mechanism_family', family, requiredCapabilities: ['provider_evidence'] };
  const queried: Criterion = { id: `queried-${family.replace(/_/g, '-')}`, kind: 'evidence_family_queried', family, requiredCapabilities: [] };
  return { blockingCriterionId: blocking.id, criteria: [blocking, queried] };
}

/**
 * One target per ticket: its strongest signal of the signature (explicit feedback first), stable
 * by ref. Refs no live rejection has tried come first, per ticket and across tickets, so a new ref
 * makes a new grouping instead of hiding behind the rejected one (seed §5: a new problem ref may retry).
 */
function targetsOf(signals: readonly SelectableSignal[], rejectedRefs: ReadonlySet<string>): FocusTarget[] {
  const tried = (s: SelectableSignal) => (rejectedRefs.has(s.ref) ? 1 : 0);
  const byTicket = new Map<string, SelectableSignal>();
  for (const s of [...signals].sort((a, b) => tried(a) - tried(b) || KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.ref.localeCompare(b.ref))) {
    if (!byTicket.has(s.ticketKey)) byTicket.set(s.ticketKey, s);
  }
  return [...byTicket.values()]
    .sort((a, b) => tried(a) - tried(b) || a.ticketKey.localeCompare(b.ticketKey))
    .slice(0, FOCUS_LIMITS.maxTargets)
    .sort((a, b) => a.ticketKey.localeCompare(b.ticketKey))
    .map((s) => ({ ticketKey: s.ticketKey, ref: s.ref, source: s.source, statement: s.statement }));
}

/** A control is an answer as good as the human's, without gaps, leading with the Focus family, on a ticket that is not a target. */
export function isControlFor(family: string, c: ControlCandidate, targets: readonly FocusTarget[]): boolean {
  return CONTROL_VERDICTS.has(c.verdict) && c.aiGapCount === 0 && c.leadingFamily === family && !targets.some((t) => t.ticketKey === c.ticketKey);
}

/** The problem statement of a Focus on one family (deterministic: no model text reaches the Focus). */
export function problemStatementFor(family: MetricFamilyId, targets: number): string {
  return `On ${targets} tickets the human answer attributes the incident to ${familyLabel(family)} and the published answer leads with something else.`;
}

function controlsOf(family: string, candidates: readonly ControlCandidate[], targets: readonly FocusTarget[]): FocusControl[] {
  return candidates
    .filter((c) => isControlFor(family, c, targets))
    .sort((a, b) => a.ticketKey.localeCompare(b.ticketKey))
    .slice(0, FOCUS_LIMITS.maxControls)
    .map((c) => ({ ticketKey: c.ticketKey, source: c.source }));
}

/**
 * Proposes the narrow problem with the most distinct tickets (ties: signature order), or says why
 * there is none. `rejectedGroupings` and `rejectedRefs` are the rejections inside the lookback only.
 */
export function selectFocus(signals: readonly SelectableSignal[], controls: readonly ControlCandidate[], rejectedGroupings: ReadonlySet<string>, rejectedRefs: ReadonlySet<string> = new Set()): Selection {
  const open = signals.filter((s) => !s.unavailable);
  const bySignature = new Map<string, SelectableSignal[]>();
  for (const s of open) bySignature.set(s.signature, [...(bySignature.get(s.signature) ?? []), s]);
  const refused: string[] = [];
  const proposals: FocusCandidate[] = [];
  for (const [signature, group] of [...bySignature].sort(([a], [b]) => a.localeCompare(b))) {
    const family = familyOf(signature);
    if (family === null) {
      refused.push(signature.startsWith('runtime:') ? `${signature} (runtime coverage is investigated, not tuned)` : `${signature} (too broad)`);
      continue;
    }
    const targets = targetsOf(group, rejectedRefs);
    if (targets.length < FOCUS_LIMITS.minTargets) continue;
    const chosenControls = controlsOf(family, controls, targets);
    const digest = groupingDigest(
      targets.map((t) => t.ref),
      chosenControls.map((c) => c.ticketKey),
    );
    if (rejectedGroupings.has(digest)) continue;
    proposals.push({
      groupingDigest: digest,
      signature,
      problemStatement: problemStatementFor(family, targets.length),
      ...criteriaFor(family),
      targets,
      controls: chosenControls,
    });
  }
  if (proposals.length === 0) {
    const why = open.length === 0 ? 'no open problem signal' : 'no narrow problem is shared by two or more tickets';
    return { kind: 'none', reason: refused.length > 0 ? `${why}; refused: ${refused.slice(0, 5).join(', ')}` : why };
  }
  proposals.sort((a, b) => b.targets.length - a.targets.length || a.signature.localeCompare(b.signature));
  return { kind: 'candidate', candidate: proposals[0] };
}
