import { factsOf, sameFact, type Fact } from './facts/facts';
import { rolesOf, type Role } from './bearing';
import { OTHER_UNIT_FACTORS, TOLERANCE } from './facts/judge-vocabulary.data';
import type { Provenance, TaggedFact } from './provenance';
import type { TierDataKind } from './tier-expectations.data';

/**
 * The one fact comparison of a verdict: every fact of the human answer with where it came from,
 * what the human does with it and whether the published answer states it; and the published
 * answer's facts the human answer does not state. Grounds, gaps, strengths and key differences
 * are all read from it, so they cannot contradict each other.
 */
export interface Source {
  /** `ticket` for the title and description, else the id of a comment the AI saw. */
  id: string;
  text: string;
}

export interface HumanFinding {
  fact: Fact;
  /** `ticket`: the AI had it at its cutoff; `own`: the human's claim; else information the AI could not have had. */
  provenance: Provenance;
  /** The Support reply that first states it (what its provenance is anchored on). */
  firstStated: TaggedFact['firstStated'];
  /** For `unavailable_data`: the kind of data the ticket's tier does not provide. */
  unavailable: TierDataKind | null;
  /** Where the ticket states it (a `ticket` fact only). */
  source: string | null;
  role: Role;
  /** The published answer states the same fact (or the same number as written). */
  stated: boolean;
  /** The published answer measured the same subject in other units (not a contradiction). */
  otherUnits: boolean;
}

export interface FactComparison {
  human: HumanFinding[];
  /** Facts of the published answer beyond the ticket that no fact of the human answer states. */
  aiOnly: Fact[];
}

/** A bare number and a measured one of the same value and no other subject: one value read two ways ("81" and "81 per second"). */
function sameBareValue(a: Fact, b: Fact): boolean {
  const [x, y] = [a.quantity, b.quantity];
  if (!x || !y || (x.dimension !== 'number' && y.dimension !== 'number')) return false;
  if (x.subject !== null && y.subject !== null && x.subject !== y.subject) return false;
  return Math.abs(x.value - y.value) <= TOLERANCE.relative * Math.max(Math.abs(x.value), Math.abs(y.value));
}

/** Same fact, the same token as written, or one value read two ways: never a gap and a difference at once. */
export const matches = (a: Fact, b: Fact) => sameFact(a, b) || (a.kind === b.kind && a.display.toLowerCase() === b.display.toLowerCase()) || sameBareValue(a, b);
const anyMatch = (facts: readonly Fact[], f: Fact) => facts.some((g) => matches(g, f));

function otherUnits(f: Fact, ai: readonly Fact[]): boolean {
  const q = f.quantity;
  if (!q || q.subject === null || q.value === 0) return false;
  const near = (x: number, y: number) => Math.abs(x - y) / Math.max(Math.abs(x), Math.abs(y)) <= TOLERANCE.approximate;
  return ai.some((a) => {
    const v = a.quantity;
    if (!v || v.subject !== q.subject || v.dimension === q.dimension || v.value === 0) return false;
    return OTHER_UNIT_FACTORS.some((k) => near(q.value * k, v.value) || near(v.value * k, q.value));
  });
}

export interface ComparisonInput {
  /** Facts of the selected human replies, ticket facts included. */
  humanFacts: readonly Fact[];
  humanText: string;
  /** Provenance of the human facts beyond the ticket, by fact key (from `tagProvenance`). */
  tagged: ReadonlyMap<string, TaggedFact>;
  sources: readonly Source[];
  ticketFacts: readonly Fact[];
  aiFacts: readonly Fact[];
}

export function compareFacts(c: ComparisonInput): FactComparison {
  const roles = rolesOf(c.humanFacts, c.humanText, c.ticketFacts);
  const bySource = c.sources.map((s) => ({ id: s.id, facts: factsOf(s.text) }));
  const human = c.humanFacts.map((fact): HumanFinding => {
    const source = bySource.find((s) => anyMatch(s.facts, fact))?.id ?? null;
    const tagged = c.tagged.get(fact.key);
    return {
      fact,
      provenance: source !== null ? 'ticket' : (tagged?.provenance ?? 'own'),
      firstStated: tagged?.firstStated ?? null,
      unavailable: source !== null ? null : (tagged?.unavailable ?? null),
      source,
      role: roles.get(fact.key) ?? { bearing: null, incidental: 'context' },
      stated: anyMatch(c.aiFacts, fact),
      otherUnits: otherUnits(fact, c.aiFacts),
    };
  });
  const aiOnly = c.aiFacts.filter((a) => !anyMatch(c.ticketFacts, a) && !anyMatch(c.humanFacts, a));
  return { human, aiOnly };
}

/** A fact the human uses for the cause, the action or the decision. */
export const weighty = (f: HumanFinding) => f.role.bearing !== null;
/** Incidental: a target, a pleasantry, a restated symptom, or a number the AI measured in other units. */
export const incidental = (f: HumanFinding) => (f.role.bearing === null && f.role.incidental !== 'context') || (!f.stated && f.otherUnits);
/** Facts the AI could have had and that carry a finding: the human's own claims. */
export const fairFindings = (c: FactComparison) => c.human.filter((f) => f.provenance === 'own' && !incidental(f));
/** Facts the AI could not have had: later information, or data the ticket's tier does not provide. */
export const laterFindings = (c: FactComparison) => c.human.filter((f) => f.provenance !== 'own' && f.provenance !== 'ticket');
/**
 * Ticket values the human builds the cause, action or decision on and the AI does not use: a
 * quantity, a name (table, job, index) or a time. Terms are left out: the ticket's vocabulary is
 * restated by every answer in its own words.
 */
const SPECIFIC: readonly Fact['kind'][] = ['quantity', 'identifier', 'time'];
export const missedTicketFindings = (c: FactComparison) =>
  c.human.filter((f) => f.provenance === 'ticket' && SPECIFIC.includes(f.fact.kind) && weighty(f) && !f.stated && !incidental(f));
/** What the published answer misses that the AI could have had: the human's own findings and the ticket values with weight. */
export const missingFindings = (c: FactComparison) => [...c.human.filter((f) => f.provenance === 'own' && !f.stated && !incidental(f)), ...missedTicketFindings(c)];
