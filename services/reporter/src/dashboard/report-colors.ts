import type { Verdict } from '@aoc/contracts';

/** Fixed order and colours so the same verdict looks the same on every chart. */
export const VERDICT_ORDER: readonly (Verdict | 'unjudged')[] = ['ai_better', 'equivalent', 'different_but_valid', 'human_better', 'not_compared', 'unjudged'];

export const VERDICT_COLOR: Record<Verdict | 'unjudged', string> = {
  ai_better: '#059669',
  equivalent: '#0d9488',
  different_but_valid: '#2563eb',
  human_better: '#dc2626',
  not_compared: '#94a3b8',
  unjudged: '#cbd5e1',
};

export const HTTP_CLASS_COLOR = { '200': '#059669', '400': '#d97706', '500': '#dc2626', '502': '#9f1239', other: '#94a3b8' } as const;
