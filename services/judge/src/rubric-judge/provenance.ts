import type { JudgeTimelineCommentV1 } from '../judge-answer/judge-input.schema';
import { factsOf, states, type Fact } from './facts/facts';
import { CONFIRMS, MANUAL_WORK, REFUTES, SEPARATE_ISSUE } from './judge-rules.data';

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
}

/**
 * Customer comments after the human answer that confirm or refute a diagnosis of the same
 * problem, or call the human's suspicion a separate issue. Thanks, chasers and "still happening"
 * are none of these and are ignored.
 */
export function followUps(timeline: readonly JudgeTimelineCommentV1[], after: number): FollowUp[] {
  const out: FollowUp[] = [];
  for (const c of timeline) {
    if (c.authorRole !== 'customer' || Date.parse(c.createdAt) <= after) continue;
    const kind: FollowUpKind | null = SEPARATE_ISSUE.test(c.body) ? 'separate_issue' : REFUTES.test(c.body) ? 'refutes' : CONFIRMS.test(c.body) ? 'confirms' : null;
    const clauses = c.body.split(/[.;!?\n]+|,\s*(?:but|and|while)\s+|\s+but\s+/i);
    const remaining = kind === 'separate_issue' ? clauses.filter((s) => !SEPARATE_ISSUE.test(s)).flatMap((s) => factsOf(s)) : [];
    if (kind) out.push({ id: c.id, kind, facts: factsOf(c.body), remaining });
  }
  return out;
}
