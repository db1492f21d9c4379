import { ProviderError } from './provider-error';

export interface AbsoluteWindow {
  from: string;
  to: string;
}

export const HOUR_MS = 3600_000;
export const DAY_MS = 24 * HOUR_MS;

/**
 * Checks an absolute window against a ceiling. Relative windows ("last 1h", "now") are not
 * representable here on purpose: replays must stay frozen in time.
 */
export function checkWindow(window: AbsoluteWindow, maxMs: number, now: Date = new Date()): { fromMs: number; toMs: number } {
  const fromMs = Date.parse(window.from);
  const toMs = Date.parse(window.to);
  if (Number.isNaN(fromMs)) throw new ProviderError('PROVIDER.WINDOW_INVALID', 'window.from is not an absolute ISO-8601 time');
  if (Number.isNaN(toMs)) throw new ProviderError('PROVIDER.WINDOW_INVALID', 'window.to is not an absolute ISO-8601 time');
  if (fromMs >= toMs) throw new ProviderError('PROVIDER.WINDOW_INVALID', 'window.from must be before window.to');
  if (toMs - fromMs > maxMs) throw new ProviderError('PROVIDER.WINDOW_INVALID', `window spans ${Math.round((toMs - fromMs) / 60000)} min; the limit for this operation is ${Math.round(maxMs / 60000)} min`);
  if (fromMs > now.getTime()) throw new ProviderError('PROVIDER.WINDOW_INVALID', 'window starts in the future');
  return { fromMs, toMs };
}

/**
 * A window cut to its last `maxMs` when it is longer (the end, the cutoff, never moves); windows
 * that cannot be parsed are returned as they are, for `checkWindow` to reject with its own words.
 */
export function clampWindow(window: AbsoluteWindow, maxMs: number): { window: AbsoluteWindow; clamped: boolean } {
  const fromMs = Date.parse(window.from);
  const toMs = Date.parse(window.to);
  if (Number.isNaN(fromMs) || Number.isNaN(toMs) || toMs - fromMs <= maxMs) return { window, clamped: false };
  return { window: { from: new Date(toMs - maxMs).toISOString(), to: window.to }, clamped: true };
}
