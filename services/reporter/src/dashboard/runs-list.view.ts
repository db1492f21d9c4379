import type { RunListPage } from './dashboard-runs.query';
import { decisionBadge, evidenceBadge, renderPage, shanghaiTime, verdictBadge } from './layout.view';
import { href, html } from '@aoc/safe-html';

export function renderRunsList(page: RunListPage, request: { limit: number; before: string | undefined; defaultLimit: number }): string {
  // Keep a non-default page size in the paging links; the default stays out of the URL.
  const limit = request.limit === request.defaultLimit ? undefined : request.limit;
  const rows = page.rows.map(
    (r) => html`<tr data-run-id="${r.runId}">
<td>${shanghaiTime(r.publishedAt)}</td>
<td><a href="${href(['tickets', r.ticketKey])}">${r.ticketKey}</a></td>
<td><a class="mono" href="${href(['runs', r.runId])}">${r.runId}</a></td>
<td>${r.trigger}</td>
<td>${decisionBadge(r.decision)}</td>
<td>${evidenceBadge(r.evidenceStatus)}</td>
<td>${verdictBadge(r.verdict)}</td>
</tr>`,
  );
  const body = html`<h1>Runs</h1>
<p class="sub">Published answers, newest first.${request.before ? html` Showing runs published before <span class="mono">${request.before}</span>.` : ''}</p>
${
  page.rows.length === 0
    ? html`<p class="empty">${request.before ? 'No older runs.' : 'No runs have been published yet.'}</p>`
    : html`<table>
<thead><tr><th>Published</th><th>Ticket</th><th>Run</th><th>Trigger</th><th>Decision</th><th>Evidence</th><th>Verdict</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
<div class="pager">${request.before ? html`<a href="${href([], { limit })}">← Newest</a>` : ''}${page.nextBefore ? html`<a rel="next" href="${href([], { limit, before: page.nextBefore })}">Older →</a>` : ''}</div>`;
  return renderPage({ title: 'Runs', section: 'runs', body });
}
