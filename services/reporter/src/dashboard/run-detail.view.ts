import type { RunSummary } from '../run-summary/run-summary.query';
import { decisionBadge, evidenceBadge, renderPage, shanghaiTime, verdictBadge } from './layout.view';
import { renderMarkdown } from './minimal-markdown';
import { href, html } from '@aoc/safe-html';

export function renderRunDetail(run: RunSummary): string {
  const body = html`<h1>Run <span class="mono">${run.runId}</span></h1>
<p class="sub">Ticket <a href="${href(['tickets', run.ticketKey])}">${run.ticketKey}</a> · published ${shanghaiTime(run.publishedAt)}</p>
<div class="grid">
<section class="card" aria-labelledby="outcome"><h3 id="outcome">Outcome</h3>
<dl class="meta">
<dt>Decision</dt><dd>${decisionBadge(run.decision)}</dd>
<dt>Answer fingerprint</dt><dd class="mono" title="${run.answerFingerprint}">${run.answerFingerprint.slice(0, 16)}…</dd>
<dt>Evidence status</dt><dd>${evidenceBadge(run.evidenceStatus)}</dd>
<dt>Failure codes</dt><dd>${run.failureCodes.length === 0 ? html`<span class="empty">none</span>` : run.failureCodes.map((c) => html`<code>${c}</code> `)}</dd>
</dl></section>
<section class="card" aria-labelledby="tool-calls"><h3 id="tool-calls">Provider tool calls</h3>
${
  run.toolCalls.length === 0
    ? html`<p class="empty">No provider tool call is recorded for this run.</p>`
    : html`<table class="tool-calls"><thead><tr><th>Started</th><th>Scenario</th><th>Tool</th><th>Operations</th><th>Target</th><th>Window</th><th>Outcome</th><th>Duration</th></tr></thead><tbody>${run.toolCalls.map(
        (c) => html`<tr><td>${shanghaiTime(c.startedAt)}</td><td class="mono">${c.scenarioId}</td><td class="mono">${c.provider} · ${c.tool}</td><td>${c.operations.join(', ')}</td><td class="mono">${c.target ?? '—'}</td><td>${c.window ? html`${shanghaiTime(c.window.from)} – ${shanghaiTime(c.window.to)}` : '—'}</td><td>${c.outcome === 'success' ? 'success' : html`failure <code>${c.errorCode ?? ''}</code>`}</td><td>${c.durationMs} ms</td></tr>`,
      )}</tbody></table>`
}
</section>
<section class="card" aria-labelledby="evaluation"><h3 id="evaluation">Evaluation</h3>
<dl class="meta">
<dt>Verdict</dt><dd>${verdictBadge(run.verdict)}${run.abstentionCode ? html` <code title="why the judge did not compare">${run.abstentionCode}</code>` : ''}</dd>
<dt>Reason</dt><dd>${run.verdictReason ?? html`<span class="empty">The judge has not evaluated this answer yet.</span>`}</dd>
<dt>Gaps</dt><dd>${run.aiGaps.length === 0 ? html`<span class="empty">none recorded</span>` : html`<ul>${run.aiGaps.map((g) => html`<li>${g}</li>`)}</ul>`}</dd>
</dl></section>
</div>
<div class="grid">
<section class="message" aria-labelledby="customer-reply"><h3 id="customer-reply">Customer reply</h3>${renderMarkdown(run.customerReplyMarkdown)}</section>
<section class="message" aria-labelledby="internal-handoff"><h3 id="internal-handoff">Internal handoff</h3>${renderMarkdown(run.internalHandoffMarkdown)}</section>
</div>`;
  return renderPage({ title: `Run ${run.runId}`, section: 'runs', body });
}
