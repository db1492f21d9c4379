import type { Decision } from '@aoc/contracts';
import type { PublishedAnswerV1 } from '../judge-answer/judge-input.schema';
import { causeClaim } from './cause-claim';
import { factsOf, minusFacts, states, type Fact } from './facts/facts';
import { leavesSupportAction, nextActionOf } from './handoff';
import { ACTION_VERB, RISK, UNDETERMINED } from './judge-rules.data';

/**
 * The published answer as the verdict rules read it: typed findings, never message text. Its
 * facts, its measurements, the cause it claims and how firmly, whether it says what it could not
 * determine, the risk it names and what its handoff leaves to Support.
 */
export type NextAction = 'concrete' | 'vague' | 'none' | 'not_required';

export type HandoffFinding =
  | { kind: 'no_next_action' }
  | { kind: 'vague_next_action'; action: string }
  | { kind: 'internal_only_leaves_support' }
  | { kind: 'identifier_missing'; fact: Fact };

export interface PublishedReading {
  text: string;
  facts: Fact[];
  /** Facts beyond the ticket. */
  own: Fact[];
  /** Facts of its measurements ("What the data shows", observations). */
  evidence: Fact[];
  /** Facts of the cause it claims, beyond the ticket; null without a claim. */
  claim: Fact[] | null;
  /** Whether the claim is firm (not weak or undetermined); null without a claim. */
  claimFirm: boolean | null;
  /** It says plainly what it could not determine. */
  undetermined: boolean;
  nextAction: NextAction;
  risk: { sentence: string; facts: Fact[] } | null;
  decision: Decision;
  handoff: HandoffFinding[];
}

/** The part of the published answer that reports measurements: its frozen evidence. */
function evidenceText(published: PublishedAnswerV1): string {
  const customer = /what the data shows:?([\s\S]*?)(?:\n\s*\n(?:most likely cause|what we found)|$)/i.exec(published.customerReplyMarkdown)?.[1] ?? '';
  const internal = /\*\*observations:\*\*([\s\S]*?)(?:\n\*\*|$)/i.exec(published.internalHandoffMarkdown)?.[1] ?? '';
  return `${customer}\n${internal}`;
}

function nextAction(published: PublishedAnswerV1): { nextAction: NextAction; finding: HandoffFinding | null } {
  if (published.decision === 'internal_only') return { nextAction: 'not_required', finding: leavesSupportAction(published.internalHandoffMarkdown) ? { kind: 'internal_only_leaves_support' } : null };
  const action = nextActionOf(published.internalHandoffMarkdown);
  if (action === null) return { nextAction: 'none', finding: { kind: 'no_next_action' } };
  if (!ACTION_VERB.test(action) && factsOf(action).length === 0) return { nextAction: 'vague', finding: { kind: 'vague_next_action', action: action.slice(0, 160) } };
  return { nextAction: 'concrete', finding: null };
}

export function readPublished(published: PublishedAnswerV1, ticketFacts: readonly Fact[], ticketIdentifiers: readonly Fact[]): PublishedReading {
  const text = `${published.customerReplyMarkdown}\n${published.internalHandoffMarkdown}`;
  const facts = factsOf(text);
  const claim = causeClaim(published.customerReplyMarkdown, published.internalHandoffMarkdown);
  const next = nextAction(published);
  const handoffFacts = factsOf(published.internalHandoffMarkdown);
  const missing = ticketIdentifiers.filter((id) => !states(handoffFacts, id)).map((fact): HandoffFinding => ({ kind: 'identifier_missing', fact }));
  const sentence = text.split(/(?<=[.!?])\s+|\n+/).find((s) => RISK.test(s));
  return {
    text,
    facts,
    own: minusFacts(facts, ticketFacts),
    evidence: factsOf(evidenceText(published)),
    claim: claim ? minusFacts(factsOf(claim.text), ticketFacts) : null,
    claimFirm: claim?.firm ?? null,
    undetermined: UNDETERMINED.test(text),
    nextAction: next.nextAction,
    // Risk facts beyond the ticket: the human states the risk when it states any of them (`full in 2 days` vs `lasts about 2 days`).
    risk: sentence ? { sentence: sentence.trim(), facts: factsOf(sentence).filter((f) => f.kind !== 'identifier' && !states(ticketFacts, f)) } : null,
    decision: published.decision,
    handoff: [...(next.finding ? [next.finding] : []), ...missing],
  };
}
