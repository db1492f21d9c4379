/** Milliseconds of an ISO-8601 timestamp; NaN when unreadable. Offsets differ, so strings are never compared as text. */
export function instant(iso: string): number {
  return Date.parse(iso);
}

/** Ascending order for sorting; unreadable timestamps sort last so they never pose as "earlier". */
export function compareInstants(a: string, b: string): number {
  const x = sortable(instant(a));
  const y = sortable(instant(b));
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Ascending order of edit times; an unreadable edit time counts as oldest, so any readable edit beats it. */
export function compareEditTimes(a: string, b: string): number {
  const x = editable(instant(a));
  const y = editable(instant(b));
  return x === y ? 0 : x < y ? -1 : 1;
}

export function compareText(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

function sortable(ms: number): number {
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}

function editable(ms: number): number {
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}
