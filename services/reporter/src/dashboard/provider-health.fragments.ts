import type { ProviderDayHealth, ProviderDayOverall } from '../reports/report.types';
import { percent } from './layout.view';
import { HTTP_CLASS_COLOR } from './report-colors';
import { html, type SafeHtml } from '@aoc/safe-html';
import { lineChart, SERIES_PALETTE, stackedBarChart, type Series, type StackedRow } from './svg-charts';

/** Providers in a stable (alphabetical) order so colours do not move between pages. */
export function providersOf(health: readonly ProviderDayHealth[]): string[] {
  return [...new Set(health.map((h) => h.provider))].sort();
}

export function successRateChart(days: readonly string[], health: readonly ProviderDayHealth[], overall: readonly ProviderDayOverall[] = []): SafeHtml {
  const series: Series[] = providersOf(health).map((provider, i) => ({
    name: provider,
    color: SERIES_PALETTE[i % SERIES_PALETTE.length],
    values: days.map((day) => health.find((h) => h.provider === provider && h.day === day)?.successRate ?? null),
  }));
  // The weighted aggregate only adds information when there is more than one provider.
  if (overall.length > 0 && series.length > 1) {
    series.push({ name: 'all providers', color: '#0f172a', dashed: true, values: days.map((day) => overall.find((o) => o.day === day)?.successRate ?? null) });
  }
  return lineChart(
    'Query success rate per day',
    days.map((d) => d.slice(5)),
    series,
    { yMax: 1, yFormat: (v) => `${Math.round(v * 100)}%` },
  );
}

export interface HttpTotals {
  provider: string;
  status200: number;
  status400: number;
  status500: number;
  status502: number;
  other: number;
  total: number;
}

export function httpTotals(health: readonly ProviderDayHealth[]): HttpTotals[] {
  return providersOf(health).map((provider) => {
    const t: HttpTotals = { provider, status200: 0, status400: 0, status500: 0, status502: 0, other: 0, total: 0 };
    for (const h of health.filter((x) => x.provider === provider)) {
      t.status200 += h.http.status200;
      t.status400 += h.http.status400;
      t.status500 += h.http.status500;
      t.status502 += h.http.status502;
      t.other += h.http.other;
    }
    t.total = t.status200 + t.status400 + t.status500 + t.status502 + t.other;
    return t;
  });
}

export function httpAttemptsChart(totals: readonly HttpTotals[]): SafeHtml {
  const rows: StackedRow[] = totals.map((t) => ({
    label: t.provider,
    segments: [
      { name: '200', value: t.status200, color: HTTP_CLASS_COLOR['200'] },
      { name: '400', value: t.status400, color: HTTP_CLASS_COLOR['400'] },
      { name: '500', value: t.status500, color: HTTP_CLASS_COLOR['500'] },
      { name: '502', value: t.status502, color: HTTP_CLASS_COLOR['502'] },
      { name: 'other', value: t.other, color: HTTP_CLASS_COLOR.other },
    ],
  }));
  return stackedBarChart('HTTP attempts by status class', rows);
}

export function httpTotalsTable(totals: readonly HttpTotals[]): SafeHtml {
  if (totals.length === 0) return html`<p class="empty">No HTTP attempts recorded.</p>`;
  return html`<table class="http-totals"><thead><tr><th>Provider</th><th class="num">200</th><th class="num">400</th><th class="num">500</th><th class="num">502</th><th class="num">other</th><th class="num">total</th></tr></thead>
<tbody>${totals.map((t) => html`<tr><td>${t.provider}</td><td class="num">${t.status200}</td><td class="num">${t.status400}</td><td class="num">${t.status500}</td><td class="num">${t.status502}</td><td class="num">${t.other}</td><td class="num">${t.total}</td></tr>`)}</tbody></table>`;
}

export function providerDaysTable(health: readonly ProviderDayHealth[]): SafeHtml {
  if (health.length === 0) return html`<p class="empty">No provider queries in this period.</p>`;
  const sorted = [...health].sort((a, b) => a.day.localeCompare(b.day) || a.provider.localeCompare(b.provider));
  const withSupplemental = health.some((h) => h.supplemental !== undefined);
  return html`<table class="provider-days"><thead><tr><th>Day</th><th>Provider</th><th class="num">Queries</th><th class="num">Succeeded</th><th class="num">Failed</th><th class="num">Success rate</th><th class="num">HTTP 200 / 400 / 500 / 502 / other</th>${withSupplemental ? html`<th class="num">Supplemental ok / failed</th>` : ''}</tr></thead>
<tbody>${sorted.map(
    (h) =>
      html`<tr><td>${h.day}</td><td>${h.provider}</td><td class="num">${h.queries}</td><td class="num">${h.succeeded}</td><td class="num">${h.failed}</td><td class="num">${percent(h.successRate)}</td><td class="num">${h.http.status200} / ${h.http.status400} / ${h.http.status500} / ${h.http.status502} / ${h.http.other}</td>${
        withSupplemental ? html`<td class="num">${h.supplemental ? `${h.supplemental.succeeded} / ${h.supplemental.failed}` : '–'}</td>` : ''
      }</tr>`,
  )}</tbody></table>`;
}
