import { ACTION_VERB } from './judge-rules.data';

/** The handoff's next action line, if any. */
export function nextActionOf(handoff: string): string | null {
  return /next (?:internal )?action[^:]*:\**\s*(.*)/i.exec(handoff)?.[1]?.trim() ?? null;
}

/** The handoff leaves Support a follow-up action (query, check, retry, escalation). */
export function leavesSupportAction(handoff: string): boolean {
  const action = nextActionOf(handoff);
  return /\bsupport\b/i.test(handoff) && action !== null && ACTION_VERB.test(action) && !/^none\b/i.test(action);
}
