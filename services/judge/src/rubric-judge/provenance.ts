import type { JudgeTimelineCommentV1 } from '../judge-answer/judge-input.schema';
import { factsOf, states, type Fact } from './facts/facts';
import { CONFIRMS, EXONERATES, FOLLOW_UP_SIDE, MANUAL_WORK, REFUTES, SEPARATE_ISSUE } from './judge-rules.data';
import { unavailableKindOf, type TierReading } from './tier';
import type { TierDataKind } from './tier-expectations.data';

/**
 * Where each fact of the human answer came from, anchored on the Support reply that first states
 * it. Only facts the AI could have had (`own`: the human's own claims about the system) count
 * against it. A fact is later information when it reached the human after the AI's cutoff and
 * before that reply was written: a customer comment the AI did not see, an internal note, a
 * manual look the reply describes. A fact the human wrote before the customer restated it stays
 * the human's own. On a tier that does not provide a kind of data (`tier.ts`), a fact the reply
 * rests on such data for is `unavailable_data`: the AI could not have had it either.
 */
export type Provenance = 'ticket' | 'late_customer' | 'internal_note' | 'manual_work' | 'unavailable_data' | 'own';

export interface TaggedFact {
  fact: Fact;
  provenance: Provenance;
  /** The Support reply that first states the fact, and when it was written. */
  firstStated: { id: string; at: string } | null;
  /** For `unavailable_data`: the kind of data the tier does not provide. */
  unavailable: TierDataKind | null;
}

export interface ProvenanceInput {
  /** Facts of the human answer beyond the ticket. */
  humanFacts: readonly Fact[];
  /** Support replies after the anchor (the human answer's and the others): when the human first wrote each fact. */
  replies: readonly JudgeTimelineCommentV1[];
  timeline: readonly JudgeTimelineCommentV1[];
  anchor: number;
  internalNotes?: readonly JudgeTimelineCommentV1[];
  tier?: TierReading | null;
}

const sentences = (text: string) => text.split(/(?<=[.!?])\s+|\n+/).filter((s) => s.trim().length > 0);
const byTime = (a: JudgeTimelineCommentV1, b: JudgeTimelineCommentV1) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id.localeCompare(b.id);
const timed = (comments: readonly JudgeTimelineCommentV1[]) => comments.map((c) => ({ at: Date.parse(c.createdAt), facts: factsOf(c.body) }));

export function tagProvenance(p: ProvenanceInput): TaggedFact[] {
  const replies = [...p.replies].sort(byTime).map((r) => ({ reply: r, at: Date.parse(r.createdAt), facts: factsOf(r.body), sentences: sentences(r.body).map((s) => ({ text: s, facts: factsOf(s) })) }));
  const lastAt = Math.max(p.anchor, ...replies.map((r) => r.at));
  // Customer comments the AI did not see (after its cutoff), and internal notes after the anchor.
  const customer = timed(p.timeline.filter((c) => c.authorRole === 'customer' && !c.visibleToAi));
  const notes = timed((p.internalNotes ?? []).filter((c) => Date.parse(c.createdAt) > p.anchor));
  const before = (items: ReturnType<typeof timed>, at: number, fact: Fact) => items.some((i) => i.at < at && states(i.facts, fact));
  return p.humanFacts.map((fact) => {
    const first = replies.find((r) => states(r.facts, fact));
    // A fact no reply states as such (read across the whole answer) keeps the widest window: up to the last reply.
    const at = first?.at ?? lastAt;
    const firstStated = first ? { id: first.reply.id, at: first.reply.createdAt } : null;
    if (before(customer, at, fact)) return { fact, provenance: 'late_customer', firstStated, unavailable: null };
    if (before(notes, at, fact)) return { fact, provenance: 'internal_note', firstStated, unavailable: null };
    if (!first) return { fact, provenance: 'own', firstStated, unavailable: null };
    // The sentences of that reply that state the fact say how the human had it.
    const stating = first.sentences.filter((s) => states(s.facts, fact));
    if (stating.some((s) => MANUAL_WORK.test(s.text))) return { fact, provenance: 'manual_work', firstStated, unavailable: null };
    const unavailable = stating.map((s) => unavailableKindOf(s.text, p.tier ?? null)).find((k) => k !== null) ?? null;
    return { fact, provenance: unavailable ? 'unavailable_data' : 'own', firstStated, unavailable };
  });
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
