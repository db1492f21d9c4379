import type { AnswerVersionView, EvaluationRevisionView, TimelineCommentView } from '../reports/report.types';
import { badge, decisionBadge, evidenceBadge, renderPage, shanghaiTime, verdictBadge } from './layout.view';
import { renderMarkdown } from './minimal-markdown';
import { href, html, type SafeHtml } from '@aoc/safe-html';

/** Every evaluation revision of a version, with the human comments the Judge selected. */
function evaluationsOf(evaluations: readonly EvaluationRevisionView[]): SafeHtml {
  if (evaluations.length === 0) return html`<p class="empty">Not evaluated yet.</p>`;
  return html`<table class="evaluations"><thead><tr><th>Revision</th><th>Judged</th><th>Verdict</th><th>Eligibility</th><th>Human answer (comments)</th></tr></thead><tbody>${evaluations.map(
    (e) => html`<tr><td>${e.revision}</td><td>${shanghaiTime(e.judgedAt)}</td><td>${verdictBadge(e.verdict)}${e.abstentionCode ? html` <code>${e.abstentionCode}</code>` : ''}</td><td class="eligibility" title="why the version was or was not compared">${e.eligibility.replace(/_/g, ' ')}</td><td>${
      e.humanCommentIds.length === 0 ? html`<span class="empty">none</span>` : e.humanCommentIds.map((id) => html`<a class="mono" href="#comment-${id}">${id}</a> `)
    }</td></tr>`,
  )}</tbody></table>`;
}

/** The ticket's timeline as the Judge reads it: role, visibility, whether the AI saw it. */
function timelineOf(timeline: readonly TimelineCommentView[]): SafeHtml {
  if (timeline.length === 0) return html`<p class="empty">No timeline has been received for this ticket.</p>`;
  return html`<table class="timeline"><thead><tr><th>Comment</th><th>Created</th><th>Edited</th><th>Role</th><th>Visibility</th><th>Seen by the AI</th><th>Text</th></tr></thead><tbody>${timeline.map(
    (c) => html`<tr id="comment-${c.commentId}"><td class="mono">${c.commentId}${c.isFeedback ? html` ${badge('/ao', 'muted')}` : ''}</td><td>${shanghaiTime(c.createdAt)}</td><td>${c.updatedAt !== c.createdAt ? shanghaiTime(c.updatedAt) : ''}</td><td>${c.authorRole}</td><td>${c.visibility}</td><td>${c.visibleToAi ? 'yes' : 'no'}</td><td>${c.body.length > 300 ? `${c.body.slice(0, 299)}…` : c.body}</td></tr>`,
  )}</tbody></table>`;
}

export function renderTicket(ticketKey: string, versions: readonly AnswerVersionView[], timeline: readonly TimelineCommentView[] = []): string {
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
<h3 class="spaced">Evaluations</h3>
${evaluationsOf(v.evaluations ?? [])}
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
${versions.length === 0 ? html`<p class="empty">No answer has been published for this ticket.</p>` : cards}
<section class="card" aria-labelledby="timeline"><h3 id="timeline">Timeline</h3>${timelineOf(timeline)}</section>`;
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
