import type { JudgeTimelineCommentV1 } from '../judge-answer/judge-input.schema';
import { factsOf, states, type Fact } from './facts/facts';
import { CONFIRMS, EXONERATES, FOLLOW_UP_SIDE, MANUAL_WORK, REFUTES, SEPARATE_ISSUE } from './judge-rules.data';

/**
 * Where each fact of the human answer first appears, and what the customer said afterwards.
 * Only facts the AI could have had (`own`: the human's own claims about the system) count
 * against it; facts from a later customer comment, an internal note or manual work after the
 * anchor do not.
 */
export type Provenance = 'ticket' | 'late_customer' | 'internal_note' | 'manual_work' | 'own';

export interface TaggedFact {
  fact: Fact;
  provenance: Provenance;
}

const sentences = (text: string) => text.split(/(?<=[.!?])\s+|\n+/).filter((s) => s.trim().length > 0);

export function tagProvenance(
  humanFacts: readonly Fact[],
  selected: readonly JudgeTimelineCommentV1[],
  timeline: readonly JudgeTimelineCommentV1[],
  anchor: number,
  internalNotes: readonly JudgeTimelineCommentV1[] = [],
): TaggedFact[] {
  const answeredAt = Math.max(...selected.map((c) => Date.parse(c.createdAt)));
  const lateCustomer = timeline
    .filter((c) => c.authorRole === 'customer' && !c.visibleToAi && Date.parse(c.createdAt) > anchor && Date.parse(c.createdAt) < answeredAt)
    .flatMap((c) => factsOf(c.body));
  const internal = internalNotes.filter((c) => Date.parse(c.createdAt) > anchor && Date.parse(c.createdAt) < answeredAt).flatMap((c) => factsOf(c.body));
  const manual = selected.flatMap((c) => sentences(c.body).filter((s) => MANUAL_WORK.test(s))).flatMap((s) => factsOf(s));
  return humanFacts.map((fact) => ({
    fact,
    provenance: states(lateCustomer, fact) ? 'late_customer' : states(internal, fact) ? 'internal_note' : states(manual, fact) ? 'manual_work' : 'own',
  }));
}

export type FollowUpKind = 'confirms' | 'refutes' | 'separate_issue';

export interface FollowUp {
  id: string;
  kind: FollowUpKind;
  /** Facts the customer stated with it (the mechanism they name). */
  facts: Fact[];
  /** For a separate issue: facts of the clauses that do not set the human's claim aside (the real cause, if named). */
  remaining: Fact[];
  /** The answer the customer sides with by naming its author ("as Support said"), if any. */
  side: 'human' | 'ai' | null;
}

/** The facts of a follow-up; a component a clause clears ("the network was fine") is a negated claim. */
function followUpFacts(clauses: readonly string[]): Fact[] {
  const cleared = (f: Fact): Fact => (f.kind === 'term' && !f.negated ? { ...f, key: `not:${f.key}`, display: `not ${f.display}`, negated: true } : f);
  // Read comma by comma: "the pool was too small, the network was fine" clears only the network.
  const facts = clauses.flatMap((c) => c.split(/,\s+/)).flatMap((s) => (EXONERATES.test(s) ? factsOf(s).map(cleared) : factsOf(s)));
  return facts.filter((f, i) => facts.findIndex((g) => g.key === f.key) === i);
}

function sideOf(body: string): FollowUp['side'] {
  const human = FOLLOW_UP_SIDE.human.test(body);
  const ai = FOLLOW_UP_SIDE.ai.test(body);
  return human === ai ? null : human ? 'human' : 'ai';
}

/**
 * Customer comments after the human answer that confirm or refute a diagnosis of the same
 * problem (a confirmation may be an outcome: "after adding the index it's fine"), or call the
 * human's suspicion a separate issue. Thanks, chasers and "still happening" are none of these and
 * are ignored.
 */
export function followUps(timeline: readonly JudgeTimelineCommentV1[], after: number): FollowUp[] {
  const out: FollowUp[] = [];
  for (const c of timeline) {
    if (c.authorRole !== 'customer' || Date.parse(c.createdAt) <= after) continue;
    const kind: FollowUpKind | null = SEPARATE_ISSUE.test(c.body) ? 'separate_issue' : REFUTES.test(c.body) ? 'refutes' : CONFIRMS.test(c.body) ? 'confirms' : null;
    const clauses = c.body.split(/[.;!?\n]+|,\s*(?:but|and|while)\s+|\s+but\s+/i);
    const remaining = kind === 'separate_issue' ? clauses.filter((s) => !SEPARATE_ISSUE.test(s)).flatMap((s) => factsOf(s)) : [];
    if (kind) out.push({ id: c.id, kind, facts: followUpFacts(clauses), remaining, side: sideOf(c.body) });
  }
  return out;
}
