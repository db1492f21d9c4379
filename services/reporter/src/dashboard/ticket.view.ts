import type { AnswerVersionView } from '../reports/report.types';
import { badge, decisionBadge, evidenceBadge, renderPage, shanghaiTime, verdictBadge } from './layout.view';
import { renderMarkdown } from './minimal-markdown';
import { href, html, type SafeHtml } from './safe-html';

export function renderTicket(ticketKey: string, versions: readonly AnswerVersionView[]): string {
  // Numbered in publication order, shown newest first.
  const numbered = [...versions].sort((a, b) => a.publishedAt.localeCompare(b.publishedAt)).map((v, i) => ({ v, n: i + 1 }));
  const cards = numbered.reverse().map(
    ({ v, n }) => html`<section class="card version" data-fingerprint="${v.answerFingerprint}" aria-labelledby="version-${n}">
<h3 id="version-${n}">Answer version ${n} ${verdictBadge(v.verdict)}${v.abstentionCode ? html` <code class="abstention" title="why the judge did not compare">${v.abstentionCode}</code>` : ''}</h3>
<dl class="meta">
<dt>Fingerprint</dt><dd class="mono">${v.answerFingerprint}</dd>
<dt>Run</dt><dd><a class="mono" href="${href(['runs', v.runId])}">${v.runId}</a> · ${v.trigger} · published ${shanghaiTime(v.publishedAt)}</dd>
<dt>Decision</dt><dd>${decisionBadge(v.decision)}</dd>
${v.evidenceStatus !== undefined ? html`<dt>Evidence status</dt><dd>${evidenceBadge(v.evidenceStatus)}</dd>` : ''}
<dt>Verdict reason</dt><dd>${v.verdictReason ?? html`<span class="empty">not judged yet</span>`}</dd>
${v.aiGaps && v.aiGaps.length > 0 ? html`<dt>Gaps</dt><dd><ul>${v.aiGaps.map((g) => html`<li>${g}</li>`)}</ul></dd>` : ''}
${v.quality ? html`<dt>Quality</dt><dd>${qualityOf(v.quality)}</dd>` : ''}
${v.counted !== undefined ? html`<dt>In reports</dt><dd>${v.counted ? 'counted' : html`not counted (trigger ${v.trigger})`}</dd>` : ''}
${v.humanReplyAt ? html`<dt>Human reply</dt><dd>${shanghaiTime(v.humanReplyAt)}</dd>` : ''}
</dl>
<h3 class="spaced">/ao feedback</h3>
${
  v.feedback.length === 0
    ? html`<p class="empty">No /ao feedback is bound to this version.</p>`
    : html`<table class="feedback"><thead><tr><th>Comment</th><th>Action</th><th>Reason</th><th>Bound</th></tr></thead><tbody>${v.feedback.map(
        (f) => html`<tr><td class="mono">${f.commentId}${f.authorRole ? html`<br><small>${f.authorRole}${f.visibility ? `, ${f.visibility}` : ''}</small>` : ''}</td><td>${badge(f.action, feedbackTone(f.action))}</td><td>${f.reason}</td><td>${
          f.inherited
            ? html`${badge('inherited from an earlier version', 'muted')}${f.boundRunId ? html`<br><small>bound to <a class="mono" href="${href(['runs', f.boundRunId])}">${f.boundRunId}</a></small>` : ''}`
            : 'this version'
        }</td></tr>`,
      )}</tbody></table>`
}
<details><summary>Messages of this version</summary>
<div class="grid">
<div class="message"><h3>Customer reply</h3>${renderMarkdown(v.customerReplyMarkdown)}</div>
<div class="message"><h3>Internal handoff</h3>${renderMarkdown(v.internalHandoffMarkdown)}</div>
</div></details>
</section>`,
  );
  const body = html`<h1>Ticket ${ticketKey}</h1>
<p class="sub">${versions.length} answer version${versions.length === 1 ? '' : 's'}, newest first; feedback is bound to the version it was given on.</p>
${versions.length === 0 ? html`<p class="empty">No answer has been published for this ticket.</p>` : cards}`;
  return renderPage({ title: `Ticket ${ticketKey}`, section: null, body });
}

function feedbackTone(action: string): 'good' | 'warn' | 'bad' | 'muted' {
  return action === 'accept' ? 'good' : action === 'revise' ? 'warn' : action === 'wrong' ? 'bad' : 'muted';
}

function qualityOf(quality: NonNullable<AnswerVersionView['quality']>): SafeHtml {
  const label = quality.score === 1 ? badge('good', 'good') : quality.score === 0 ? badge('bad', 'bad') : badge('unknown', 'muted');
  const source = quality.source === 'feedback' ? 'from /ao feedback' : quality.source === 'judge' ? 'from the verdict' : 'no signal yet';
  return html`${label} <small>${source}${quality.judgeReviewRequested ? '; /ao human asked for a Judge review' : ''}</small>`;
}
