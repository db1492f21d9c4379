/**
 * Reported onset v1: when the customer says the problem started ("since about 10:40 UTC", "at
 * 14:05", "2026-11-30 14:05 UTC", "for the last 40 minutes", "since about 40 minutes"). It is a
 * fact of the ticket, not a hypothesis: the diagnosis prefers changes that begin around it over
 * ones that were already there. Only times inside the analysis window count; a time without a
 * date is taken on the window's last day (the day before when that would lie after the window's
 * end); a clock time without a zone is read as UTC only when the ticket names no other zone.
 */
const ONSET_WORDS = '(?:since|from|starting(?:\\s+at)?|started(?:\\s+at)?|began(?:\\s+at)?|beginning(?:\\s+at)?|at|around|about|approx(?:imately)?|~)';
const CLOCK = new RegExp(`\\b${ONSET_WORDS}\\s+(?:(?:about|around|approx(?:imately)?|roughly|~)\\s*)?(\\d{1,2}):(\\d{2})(?::\\d{2})?\\s*(utc|gmt|z)?(?:\\s*([+-]\\d{1,2})(?::?(\\d{2}))?)?\\b`, 'i');
const ISO_LIKE = /\b(\d{4}-\d{2}-\d{2})[T\s](\d{2}):(\d{2})(?::\d{2})?(?:\.\d+)?\s*(z|utc|[+-]\d{2}:?\d{2})?\b/i;
const RELATIVE = /\b(?:for\s+(?:the\s+)?(?:last|past)|since(?:\s+about|\s+around)?|about|around)\s+(\d{1,3})\s*(min(?:ute)?s?|hours?|h)\b(?:\s+ago)?/i;
const AGO = /\b(\d{1,3})\s*(min(?:ute)?s?|hours?|h)\s+ago\b/i;
/** Zone names other than UTC: a bare clock time next to one of them is not read as UTC. */
const OTHER_ZONE = /\b(?:cet|cest|pst|pdt|est|edt|cst|cdt|ist|jst|kst|sgt|aest|bst|mst|mdt|hkt)\b|\butc\s*[+-]\s*\d/i;

export interface Window {
  from: string;
  to: string;
}

function inside(ms: number, window: Window): boolean {
  return ms >= Date.parse(window.from) && ms <= Date.parse(window.to);
}

function offsetMinutes(sign: string, hours: string, minutes?: string): number {
  const h = Number(hours.replace(/^[+-]/, ''));
  return (sign.startsWith('-') ? -1 : 1) * (h * 60 + Number(minutes ?? 0));
}

/** The reported onset as an ISO time inside the window, or null when the ticket gives none. */
export function parseReportedOnset(text: string, window: Window): string | null {
  const end = Date.parse(window.to);
  const iso = ISO_LIKE.exec(text);
  if (iso) {
    const zone = (iso[4] ?? 'Z').toUpperCase().replace('UTC', 'Z');
    const normalisedZone = zone === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
    const ms = Date.parse(`${iso[1]}T${iso[2]}:${iso[3]}:00${normalisedZone}`);
    if (Number.isFinite(ms) && inside(ms, window)) return new Date(ms).toISOString();
  }
  const clock = CLOCK.exec(text);
  if (clock) {
    const [, hh, mm, utc, offH, offM] = clock;
    if (!utc && !offH && OTHER_ZONE.test(text)) return null;
    const day = new Date(end);
    const base = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), Number(hh), Number(mm));
    let ms = base - (offH ? offsetMinutes(offH, offH, offM) : 0) * 60_000;
    if (ms > end) ms -= 86_400_000;
    if (Number(hh) < 24 && Number(mm) < 60 && inside(ms, window)) return new Date(ms).toISOString();
  }
  const relative = RELATIVE.exec(text) ?? AGO.exec(text);
  if (relative) {
    const minutes = Number(relative[1]) * (/^h/i.test(relative[2]) ? 60 : 1);
    const ms = end - minutes * 60_000;
    if (inside(ms, window)) return new Date(ms).toISOString();
  }
  return null;
}
