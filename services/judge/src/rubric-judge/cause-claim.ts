import { readLeadingMechanism } from '@aoc/answers';

/**
 * The cause a published answer claims, apart from the evidence it reports: the customer reply's
 * cause line ("Most likely cause: ...") and the handoff's leading mechanism with its strength. The
 * observations mention every family that moved; only the claim says which one the answer blames,
 * and only a weak or undetermined claim is not firm.
 */
export interface CauseClaim {
  text: string;
  firm: boolean;
}

const CUSTOMER_CAUSE = /^\s*(?:most likely cause|likely cause|root cause|probable cause|what we found)\s*:\s*(.+)$/im;
const NOT_FIRM = /^(?:weak|undetermined)$/;
const NO_CLAIM = /^(?:none|not determined|undetermined)\b/i;

export function causeClaim(customerReply: string, handoff: string): CauseClaim | null {
  const lead = readLeadingMechanism(handoff);
  const customer = CUSTOMER_CAUSE.exec(customerReply)?.[1]?.trim() ?? null;
  const leadText = lead?.statement ?? null;
  const text = [customer, leadText].filter((t): t is string => t !== null && !NO_CLAIM.test(t)).join('\n');
  if (text === '') return null;
  const strength = lead?.strength ?? null;
  return { text, firm: strength === null || !NOT_FIRM.test(strength) };
}
