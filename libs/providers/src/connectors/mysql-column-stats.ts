import { opaqueRef } from '../core/sanitize';
import type { SqlCell } from './mysql-connector';

export type ColumnKind = 'number' | 'text' | 'time' | 'boolean' | 'empty' | 'mixed';

export interface ColumnValueCount {
  value: string;
  count: number;
}

/** Compact statistics of one result column; never the raw cells. */
export interface ColumnStats {
  column: string;
  kind: ColumnKind;
  non_null: number;
  nulls: number;
  distinct: number;
  min?: number | string;
  max?: number | string;
  mean?: number;
  sum?: number;
  /** Most frequent values, only for short label-like text in columns that are not sensitive. */
  top_values?: ColumnValueCount[];
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;
/** No whitespace or quotes: a label cannot carry a statement or a sentence. */
const SAFE_LABEL = /^[A-Za-z0-9_.:@/+-]{1,64}$/;
const HEX_DIGEST = /^[0-9a-f]{32,}$/i;
/** Columns whose values are never shown even when they look like labels. */
const SENSITIVE_COLUMN = /(sql|query|text|plan|prev|host|addr|ip$|^ip|user|pass|conn|session|token|secret|key|email|phone|cookie|auth|cost|bill|price|sku|machine|instance_type)/i;
const SAFE_COLUMN_NAME = /^[A-Za-z0-9_$.()*,+-]{1,64}$/;

const round = (n: number) => Math.round(n * 1e6) / 1e6;

function columnLabel(name: string, index: number): string {
  return SAFE_COLUMN_NAME.test(name) ? name : `column_${index + 1}`;
}

/**
 * Summarises a result set column by column: kinds, null counts, distinct counts, numeric and
 * time ranges, and a few frequent label values. Digest-like values become opaque references.
 */
export function summariseColumns(columns: readonly string[], rows: readonly SqlCell[][], maxTopValues = 5): ColumnStats[] {
  return columns.map((name, index) => {
    const values = rows.map((r) => r[index] ?? null);
    const present = values.filter((v): v is string | number | boolean => v !== null);
    const label = columnLabel(name, index);
    const base = { column: label, non_null: present.length, nulls: values.length - present.length };
    if (present.length === 0) return { ...base, kind: 'empty' as const, distinct: 0 };
    const numbers = present.filter((v): v is number => typeof v === 'number');
    const texts = present.filter((v): v is string => typeof v === 'string');
    const booleans = present.filter((v): v is boolean => typeof v === 'boolean');
    const distinct = new Set(present.map((v) => `${typeof v}:${String(v)}`)).size;
    if (numbers.length === present.length) {
      const sum = numbers.reduce((a, b) => a + b, 0);
      return { ...base, kind: 'number' as const, distinct, min: round(Math.min(...numbers)), max: round(Math.max(...numbers)), mean: round(sum / numbers.length), sum: round(sum) };
    }
    if (booleans.length === present.length) {
      const trues = booleans.filter(Boolean).length;
      return { ...base, kind: 'boolean' as const, distinct, top_values: [{ value: 'true', count: trues }, { value: 'false', count: booleans.length - trues }].filter((v) => v.count > 0) };
    }
    if (texts.length === present.length && texts.every((t) => ISO_TIME.test(t))) {
      const sorted = [...texts].sort();
      return { ...base, kind: 'time' as const, distinct, min: sorted[0], max: sorted[sorted.length - 1] };
    }
    if (texts.length !== present.length) return { ...base, kind: 'mixed' as const, distinct };
    const digestColumn = /digest/i.test(name) || texts.every((t) => HEX_DIGEST.test(t));
    if (!digestColumn && SENSITIVE_COLUMN.test(name)) return { ...base, kind: 'text' as const, distinct };
    const counts = new Map<string, number>();
    for (const t of texts) {
      const shown = digestColumn ? (HEX_DIGEST.test(t) ? opaqueRef('digest', t.toLowerCase()) : null) : SAFE_LABEL.test(t) ? t : null;
      if (shown !== null) counts.set(shown, (counts.get(shown) ?? 0) + 1);
    }
    const top = [...counts.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, maxTopValues)
      .map(([value, count]) => ({ value, count }));
    return top.length > 0 ? { ...base, kind: 'text' as const, distinct, top_values: top } : { ...base, kind: 'text' as const, distinct };
  });
}
