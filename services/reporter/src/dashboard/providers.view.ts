import type { ProviderDayHealth } from '../reports/report.types';
import { renderPage } from './layout.view';
import { httpAttemptsChart, httpTotals, httpTotalsTable, providerDaysTable, successRateChart } from './provider-health.fragments';
import { html } from '@aoc/safe-html';
import { daysBetween } from './shanghai-calendar';

export function renderProviders(range: { from: string; to: string }, health: readonly ProviderDayHealth[]): string {
  const totals = httpTotals(health);
  const body = html`<h1>Provider health</h1>
<p class="sub">Asia/Shanghai days ${range.from} to ${range.to}. A logical query succeeds when it completes or returns an empty result; HTTP attempts include retries.</p>
<form class="period" method="get" action="/providers">
<label>From <input type="date" name="from" value="${range.from}"></label>
<label>To <input type="date" name="to" value="${range.to}"></label>
<button type="submit">Show</button>
</form>
<div class="grid">
<section class="card" aria-labelledby="success-rate"><h3 id="success-rate">Success rate per day</h3>${successRateChart(daysBetween(range.from, range.to), health)}</section>
<section class="card" aria-labelledby="http-attempts"><h3 id="http-attempts">HTTP attempts by status class</h3>${httpAttemptsChart(totals)}</section>
</div>
<h2>HTTP attempts per provider</h2>
${httpTotalsTable(totals)}
<h2>Per day</h2>
${providerDaysTable(health)}`;
  return renderPage({ title: 'Provider health', section: 'providers', body });
}
