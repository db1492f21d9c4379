import type { JudgeInputV1 } from '../judge-answer/judge-input.schema';
import { DATA_KIND_CUES, TIERS, type TierDataKind, type TierExpectation } from './tier-expectations.data';

/**
 * The service tier of a ticket and what it means for the comparison: which kinds of data the
 * automated answer could not have had on it (`tier-expectations.data.ts`). Read generically from
 * the ticket's labels, else from its text (title, description, comments the AI saw); a ticket
 * that names two tiers, or none, has no tier, so nothing is excused on its account.
 */
export interface TierReading {
  tier: TierExpectation;
  /** Where the tier was read: a label decides over the text. */
  from: 'label' | 'text';
}

function single(found: readonly TierExpectation[]): TierExpectation | null {
  const ids = new Set(found.map((t) => t.id));
  return ids.size === 1 ? found[0] : null;
}

export function tierOf(ticket: Pick<JudgeInputV1['ticket'], 'labels' | 'title' | 'description'>, visibleText = ''): TierReading | null {
  const byLabel = single(TIERS.filter((t) => ticket.labels.some((l) => t.labels.test(l.trim()))));
  if (byLabel) return { tier: byLabel, from: 'label' };
  const text = `${ticket.title}\n${ticket.description}\n${visibleText}`;
  const byText = single(TIERS.filter((t) => t.text.test(text)));
  return byText ? { tier: byText, from: 'text' } : null;
}

/** The kind of data the tier does not provide that a sentence rests on, if any. */
export function unavailableKindOf(sentence: string, tier: TierReading | null): TierDataKind | null {
  if (!tier) return null;
  return tier.tier.unavailable.find((kind) => DATA_KIND_CUES[kind].test(sentence)) ?? null;
}
