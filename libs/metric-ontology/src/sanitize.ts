/**
 * How a foreign column name (DBSeer's `cpu_usr (core #1)`) becomes a Prometheus metric name:
 * every run of characters outside `[A-Za-z0-9_]` becomes `_`, repeated `_` collapse, outer `_`
 * go, and `_` is prefixed when the result would start with a digit. Input with no letter or
 * digit gives `''` (no valid name exists; callers decide what to do with it).
 */
export function sanitizeMetricName(raw: string): string {
  const s = String(raw)
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^_|_$/g, '');
  return /^[0-9]/.test(s) ? `_${s}` : s;
}
