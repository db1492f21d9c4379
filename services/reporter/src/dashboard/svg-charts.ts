import { html, trusted, type SafeHtml } from '@aoc/safe-html';

/**
 * Inline SVG charts: no script, no external asset, deterministic markup for given data (so the
 * specs can assert on it). Every mark carries a <title> with its exact value.
 */

export interface Bar {
  label: string;
  value: number;
  color: string;
}

export interface Series {
  name: string;
  color: string;
  /** One value per x label; null leaves a gap (no data that day). */
  values: (number | null)[];
  /** Drawn dashed, for an aggregate over the other series. */
  dashed?: boolean;
}

export interface StackedRow {
  label: string;
  segments: { name: string; value: number; color: string }[];
}

/** Distinct colours with enough contrast on white; assigned in a stable order. */
export const SERIES_PALETTE = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626'];

const FONT_ATTRS = trusted('font-family="system-ui, sans-serif" font-size="12"');

function n(value: number): string {
  return String(Math.round(value * 10) / 10);
}

function emptyChart(caption: string): SafeHtml {
  return html`<p class="empty">No data for ${caption.toLowerCase()}.</p>`;
}

/** Horizontal bars, one row per item, scaled to the largest value. */
export function barChart(caption: string, bars: readonly Bar[]): SafeHtml {
  if (bars.length === 0 || bars.every((b) => b.value === 0)) return emptyChart(caption);
  const labelWidth = 170;
  const plotWidth = 330;
  const row = 28;
  const height = bars.length * row + 8;
  const max = Math.max(...bars.map((b) => b.value));
  return html`<svg class="chart" role="img" aria-label="${caption}" viewBox="0 0 ${labelWidth + plotWidth + 60} ${height}" width="${labelWidth + plotWidth + 60}" height="${height}" ${FONT_ATTRS}>
<title>${caption}</title>
${bars.map((b, i) => {
  const y = 4 + i * row;
  const w = max > 0 ? (b.value / max) * plotWidth : 0;
  return html`<g class="bar"><text x="${labelWidth - 8}" y="${n(y + row / 2 + 4)}" text-anchor="end" fill="#334155">${b.label}</text><rect x="${labelWidth}" y="${y + 4}" width="${n(w)}" height="${row - 10}" rx="3" fill="${b.color}"><title>${b.label}: ${b.value}</title></rect><text x="${n(labelWidth + w + 6)}" y="${n(y + row / 2 + 4)}" fill="#0f172a">${b.value}</text></g>`;
})}
</svg>`;
}

/** One line per series over shared x labels, y in [0, yMax]; single points are drawn as dots. */
export function lineChart(caption: string, xLabels: readonly string[], series: readonly Series[], options: { yMax: number; yFormat: (v: number) => string }): SafeHtml {
  if (xLabels.length === 0 || series.length === 0 || series.every((s) => s.values.every((v) => v === null))) return emptyChart(caption);
  const width = 640;
  const height = 240;
  const left = 48;
  const right = 28; // room for the last x label, which is centred on its point
  const top = 12;
  const bottom = 36;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  // With one label the point sits in the middle rather than on the y axis.
  const x = (i: number): number => (xLabels.length === 1 ? left + plotW / 2 : left + (i / (xLabels.length - 1)) * plotW);
  const y = (v: number): number => top + plotH - (Math.min(Math.max(v, 0), options.yMax) / options.yMax) * plotH;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * options.yMax);
  // Label at most ~8 x positions so dates never overlap.
  const step = Math.max(1, Math.ceil(xLabels.length / 8));
  const legendY = height + 6;
  return html`<svg class="chart" role="img" aria-label="${caption}" viewBox="0 0 ${width} ${height + 22}" width="${width}" height="${height + 22}" ${FONT_ATTRS}>
<title>${caption}</title>
${ticks.map((t) => html`<line x1="${left}" x2="${width - right}" y1="${n(y(t))}" y2="${n(y(t))}" stroke="#e2e8f0"/><text x="${left - 6}" y="${n(y(t) + 4)}" text-anchor="end" fill="#64748b">${options.yFormat(t)}</text>`)}
${xLabels.map((label, i) => (i % step === 0 || i === xLabels.length - 1 ? html`<text x="${n(x(i))}" y="${height - bottom + 18}" text-anchor="middle" fill="#64748b">${label}</text>` : null))}
${series.map((s) => {
  const runs: string[] = [];
  let current: string[] = [];
  s.values.forEach((v, i) => {
    if (v === null) {
      if (current.length > 0) runs.push(current.join(' '));
      current = [];
    } else {
      current.push(`${current.length === 0 ? 'M' : 'L'}${n(x(i))},${n(y(v))}`);
    }
  });
  if (current.length > 0) runs.push(current.join(' '));
  return html`<g class="series" data-series="${s.name}">${runs.map((d) => html`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? trusted(' stroke-dasharray="6 4"') : ''}/>`)}${s.values.map((v, i) =>
    v === null ? null : html`<circle cx="${n(x(i))}" cy="${n(y(v))}" r="3.5" fill="${s.color}"><title>${s.name} ${xLabels[i]}: ${options.yFormat(v)}</title></circle>`,
  )}</g>`;
})}
${legend(series.map((s) => ({ name: s.name, color: s.color })), left, legendY)}
</svg>`;
}

/** Horizontal stacked bars (e.g. HTTP attempts by status class per provider). */
export function stackedBarChart(caption: string, rows: readonly StackedRow[]): SafeHtml {
  const totals = rows.map((r) => r.segments.reduce((sum, s) => sum + s.value, 0));
  if (rows.length === 0 || totals.every((t) => t === 0)) return emptyChart(caption);
  const labelWidth = 130;
  const plotWidth = 420;
  const row = 30;
  const max = Math.max(...totals);
  const names = rows[0].segments.map((s) => ({ name: s.name, color: s.color }));
  const height = rows.length * row + 8;
  return html`<svg class="chart" role="img" aria-label="${caption}" viewBox="0 0 ${labelWidth + plotWidth + 60} ${height + 26}" width="${labelWidth + plotWidth + 60}" height="${height + 26}" ${FONT_ATTRS}>
<title>${caption}</title>
${rows.map((r, i) => {
  const y = 4 + i * row;
  let offset = labelWidth;
  return html`<g class="bar"><text x="${labelWidth - 8}" y="${n(y + row / 2 + 4)}" text-anchor="end" fill="#334155">${r.label}</text>${r.segments.map((s) => {
    if (s.value === 0) return null;
    const w = (s.value / max) * plotWidth;
    const rect = html`<rect x="${n(offset)}" y="${y + 4}" width="${n(w)}" height="${row - 10}" fill="${s.color}"><title>${r.label} ${s.name}: ${s.value}</title></rect>`;
    offset += w;
    return rect;
  })}<text x="${n(offset + 6)}" y="${n(y + row / 2 + 4)}" fill="#0f172a">${totals[i]}</text></g>`;
})}
${legend(names, labelWidth, height + 10)}
</svg>`;
}

function legend(items: readonly { name: string; color: string }[], x: number, y: number): SafeHtml {
  let offset = x;
  return html`<g class="legend">${items.map((item) => {
    const entry = html`<rect x="${n(offset)}" y="${y}" width="10" height="10" rx="2" fill="${item.color}"/><text x="${n(offset + 14)}" y="${y + 9}" fill="#334155">${item.name}</text>`;
    // Rough text width keeps entries apart without measuring fonts.
    offset += 28 + item.name.length * 7;
    return entry;
  })}</g>`;
}
