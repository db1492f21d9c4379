import type { QualityReport, WeeklyReport } from '../reports/report.types';
import { evidenceBadge, percent, renderPage, shanghaiTime, stat, verdictBadge } from './layout.view';
import { providerDaysTable, successRateChart } from './provider-health.fragments';
import { VERDICT_COLOR, VERDICT_ORDER } from './report-colors';
import { href, html, type SafeHtml } from '@aoc/safe-html';
import { addDays, daysBetween } from './shanghai-calendar';
import { barChart } from './svg-charts';

/** Whose runs a report counts, and the hidden field that keeps a chosen tenant across the period navigation. */
function tenantScope(report: QualityReport): { note: string; tenant: string | undefined; field: SafeHtml | string } {
  if (report.tenant === null) return { note: 'Every tenant.', tenant: undefined, field: '' };
  return { note: `Tenant ${report.tenant}.`, tenant: report.tenant, field: html`<input type="hidden" name="tenant" value="${report.tenant}">` };
}

export function renderDailyReport(report: QualityReport): string {
  const day = report.period.from;
  const scope = tenantScope(report);
  const nav = html`<form class="period" method="get" action="/reports/daily">${scope.field}
<a href="${href(['reports', 'daily'], { day: addDays(day, -1), tenant: scope.tenant })}">← ${addDays(day, -1)}</a>
<label>Day <input type="date" name="day" value="${day}"></label><button type="submit">Show</button>
<a href="${href(['reports', 'daily'], { day: addDays(day, 1), tenant: scope.tenant })}">${addDays(day, 1)} →</a>
</form>`;
  const body = html`<h1>Daily report · ${day}</h1>
<p class="sub">${scope.note} Asia/Shanghai day ${day}. Runs counted: triggers initial and bot_assignment (continuations and replays excluded). Generated ${shanghaiTime(report.generatedAt)}.</p>
${nav}
${reportSections(report)}`;
  return renderPage({ title: `Daily report ${day}`, section: 'daily', body });
}

export function renderWeeklyReport(report: WeeklyReport): string {
  const { from, to } = report.period;
  const scope = tenantScope(report);
  const nav = html`<form class="period" method="get" action="/reports/weekly">${scope.field}
<a href="${href(['reports', 'weekly'], { weekStart: addDays(from, -7), tenant: scope.tenant })}">← week of ${addDays(from, -7)}</a>
<label>Week starting (Monday) <input type="date" name="weekStart" value="${from}"></label><button type="submit">Show</button>
<a href="${href(['reports', 'weekly'], { weekStart: addDays(from, 7), tenant: scope.tenant })}">week of ${addDays(from, 7)} →</a>
</form>`;
  const body = html`<h1>Weekly report · ${from} – ${to}</h1>
<p class="sub">${scope.note} Asia/Shanghai days ${from} to ${to}. Runs counted: triggers initial and bot_assignment (continuations and replays excluded). Generated ${shanghaiTime(report.generatedAt)}.</p>
${nav}
${reportSections(report)}
<h2 id="provider-5xx">Provider 5xx episodes</h2>
${provider5xxTable(report)}`;
  return renderPage({ title: `Weekly report ${from}`, section: 'weekly', body });
}

function reportSections(report: QualityReport): SafeHtml {
  const { quality, funnel } = report;
  const judged = quality.good + quality.bad + quality.unknown;
  const share = (v: number): string => (judged === 0 ? '' : ` (${percent(v / judged)})`);
  const verdictCounts = new Map(report.verdicts.map((v) => [v.verdict, v.count]));
  const verdictBars = VERDICT_ORDER.map((v) => ({ label: v, value: verdictCounts.get(v) ?? 0, color: VERDICT_COLOR[v] }));
  const funnelBars = [
    { label: 'tickets analysed', value: funnel.ticketsAnalysed, color: '#1d4ed8' },
    { label: 'runs published', value: funnel.runsPublished, color: '#2563eb' },
    { label: 'with human reply', value: funnel.answersWithHumanReply, color: '#3b82f6' },
    { label: 'judged', value: funnel.answersJudged, color: '#60a5fa' },
    { label: 'with /ao feedback', value: funnel.answersWithFeedback, color: '#93c5fd' },
  ];
  return html`<div class="stats">
${stat('runs counted', report.runsCounted)}
${stat('tickets analysed', funnel.ticketsAnalysed)}
${stat('answers judged', funnel.answersJudged)}
${stat('answers with /ao feedback', funnel.answersWithFeedback)}
${report.judgeReviewRequested !== undefined ? stat('Judge reviews asked (/ao human)', report.judgeReviewRequested) : ''}
</div>
${report.anchors ? html`<p class="sub">Comparison anchors of counted runs: public reply ${report.anchors.publicReply} · internal comment ${report.anchors.internalComment}.</p>` : ''}
<h2 id="quality">Quality</h2>
<div class="stats quality">
${stat('good', html`${quality.good}<small>${share(quality.good)}</small>`)}
${stat('bad', html`${quality.bad}<small>${share(quality.bad)}</small>`)}
${stat('unknown', html`${quality.unknown}<small>${share(quality.unknown)}</small>`)}
</div>
<p class="sub">Explicit /ao accept, revise or wrong on the answer version decides quality; otherwise the verdict does.</p>
<div class="grid">
<section class="card" aria-labelledby="verdicts"><h3 id="verdicts">Verdict distribution</h3>${barChart('Verdict distribution', verdictBars)}</section>
<section class="card" aria-labelledby="funnel"><h3 id="funnel">Funnel</h3>${barChart('Funnel', funnelBars)}
<p>/ao feedback by action: accept ${funnel.feedbackByAction.accept} · revise ${funnel.feedbackByAction.revise} · wrong ${funnel.feedbackByAction.wrong} · human ${funnel.feedbackByAction.human}</p></section>
</div>
<h2 id="top-gaps">Top gaps</h2>
${
  report.topGaps.length === 0
    ? html`<p class="empty">No gaps recorded in this period.</p>`
    : html`<table class="top-gaps"><thead><tr><th>Gap</th><th class="num">Answers</th></tr></thead><tbody>${report.topGaps.map((g) => html`<tr><td>${g.gap}</td><td class="num">${g.count}</td></tr>`)}</tbody></table>`
}
${judgeCrossCheckSection(report)}
<h2 id="runtime-signals">Runtime signals</h2>
${
  report.runtimeSignals.length === 0
    ? html`<p class="empty">No run with degraded or failed evidence acquisition in this period.</p>`
    : html`<table class="runtime-signals"><thead><tr><th>Run</th><th>Ticket</th><th>Provider</th><th>Evidence</th><th>Verdict</th><th>Failure codes</th></tr></thead><tbody>${report.runtimeSignals.map(
        (s) => html`<tr><td><a class="mono" href="${href(['runs', s.runId])}">${s.runId}</a></td><td><a href="${href(['tickets', s.ticketKey])}">${s.ticketKey}</a></td><td>${s.provider}</td><td>${evidenceBadge(s.evidenceStatus)}</td><td>${verdictBadge(s.verdict)}</td><td>${s.failureCodes.map((c) => html`<code>${c}</code> `)}</td></tr>`,
      )}</tbody></table>`
}
<h2 id="provider-health">Provider health</h2>
${report.providerHealth.length > 0 ? html`<section class="card">${successRateChart(daysBetween(report.period.from, report.period.to), report.providerHealth, report.providerOverall)}</section>` : ''}
${providerDaysTable(report.providerHealth)}
<p><a href="${href(['providers'], { from: report.period.from, to: report.period.to })}">Provider health charts for this period →</a></p>
`;
}

/** Where a model judge cross-checked the built-in verdicts and disagreed: counts and codes, never ticket text. */
function judgeCrossCheckSection(report: QualityReport): SafeHtml | string {
  const c = report.judgeCrossCheck;
  if (!c) return '';
  const head = html`<h2 id="judge-cross-check">Judge cross-check</h2>
<div class="stats">
${stat('decided verdicts cross-checked by a model', c.crossChecked)}
${stat('model disagreed', html`${c.disagreed}<small>${c.crossChecked === 0 ? '' : ` (${percent(c.disagreed / c.crossChecked)})`}</small>`)}
</div>
<p class="sub">The built-in judge's verdict is published; a configured model judge reads the same input and its differing verdict is listed here (a model abstention is no disagreement). Counted runs' current evaluations only.</p>`;
  if (c.crossChecked === 0) return html`${head}<p class="empty">No decided verdict was cross-checked by a model judge in this period.</p>`;
  if (c.disagreed === 0) return html`${head}<p class="empty">The model judge did not disagree with any cross-checked verdict in this period.</p>`;
  const more = c.disagreed > c.disagreements.length ? html`<p class="sub">The first ${c.disagreements.length} of ${c.disagreed} are listed.</p>` : '';
  return html`${head}<table class="judge-disagreements"><thead><tr><th>Run</th><th>Ticket</th><th>Built-in verdict</th><th>Model verdict</th><th>Model</th><th>Reason code</th><th>Judged</th></tr></thead><tbody>${c.disagreements.map(
    (d) => html`<tr><td><a class="mono" href="${href(['runs', d.runId])}">${d.runId}</a></td><td><a href="${href(['tickets', d.ticketKey])}">${d.ticketKey}</a></td><td>${verdictBadge(d.builtinVerdict)}</td><td>${verdictBadge(d.modelVerdict)}</td><td class="mono">${d.modelEngine}</td><td>${d.reasonCode === null ? '' : html`<code>${d.reasonCode}</code>`}</td><td>${shanghaiTime(d.judgedAt)}</td></tr>`,
  )}</tbody></table>${more}`;
}

function provider5xxTable(report: WeeklyReport): SafeHtml {
  if (report.provider5xx.length === 0) return html`<p class="empty">No provider 5xx responses this week.</p>`;
  return html`<table class="provider-5xx"><thead><tr><th>Provider</th><th>Query</th><th class="num">Episodes</th><th class="num">Recovered</th><th class="num">Still failed</th><th class="num">Max attempts</th><th>Tickets</th><th>Upstream errors</th><th>Request ids</th></tr></thead>
<tbody>${report.provider5xx.map(
    (r) => html`<tr><td>${r.provider}</td><td class="mono">${r.queryId}</td><td class="num">${r.episodes}</td><td class="num">${r.recovered}</td><td class="num">${r.stillFailed}</td><td class="num">${r.maxAttempts}</td><td>${r.tickets.map((t, i) => html`${i > 0 ? ', ' : ''}<a href="${href(['tickets', t])}">${t}</a>`)}</td><td>${r.upstreamErrors.map((e) => html`<div>${e}</div>`)}</td><td class="mono">${r.requestIds.map((id) => html`<div>${id}</div>`)}</td></tr>`,
  )}</tbody></table>`;
}
