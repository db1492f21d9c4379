import { href, html, type SafeHtml } from '@aoc/safe-html';
import { PROBLEM_STATUS_MEANING, PROBLEM_STATUSES } from '../focus/problem-status-machine';
import type { StoredNotification } from '../persistence/notification-store';
import type { StoredRecord } from '../persistence/record-store';
import { notificationTable } from './notifications.view';
import { page, status } from './page.view';

/** Optimisation records and their problems' statuses as pages. */

const short = (digest: string) => digest.slice(0, 12);
const json = (value: unknown) => JSON.stringify(value);

/** Per status, how many problems of these records are in it. */
function statusCounts(records: readonly StoredRecord[]): SafeHtml {
  const counts = new Map<string, number>();
  for (const r of records) for (const s of r.statuses) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
  return html`${PROBLEM_STATUSES.filter((s) => counts.has(s)).map((s) => html`${status(s)} ${counts.get(s) ?? 0} `)}`;
}

export function renderRecordList(records: readonly StoredRecord[]): string {
  return page(
    'Optimisation records',
    html`<h1>Optimisation records</h1><p class="muted">One per accepted candidate: the problems it was gated on, the data it changes and the gate table; each problem's status moves candidate → optimized_unverified → optimized_verified | ineffective. JSON: <a href="/v1/optimization-records">/v1/optimization-records</a>.</p>
<p>${statusCounts(records)}</p>
<table><thead><tr><th>Record</th><th>Focus</th><th>Signature</th><th>Change</th><th>Data version</th><th>Problems</th><th>Created</th></tr></thead><tbody>
${records.map(
  ({ record, statuses }) =>
    html`<tr><td><a href="${href(['optimization-records', record.recordId])}"><code>${record.recordId}</code></a></td><td><a href="${href(['focuses', record.focus.focusId])}">${record.focus.focusId}</a> #${record.focus.attempt}</td><td><code>${record.applicability.signature}</code></td><td>${record.data.changes.map((c) => html`<div><code>${c.surface}</code> ${c.pointer}</div>`)}</td><td><code>${record.data.dataVersion}</code></td><td>${statuses.map((s) => html`<div>${record.problems.find((p) => p.ref === s.ref)?.ticketKey ?? s.ref} ${status(s.status)}</div>`)}</td><td>${record.createdAt}</td></tr>`,
)}
</tbody></table>`,
  );
}

function recordGate(record: StoredRecord['record']): SafeHtml {
  const g = record.gate;
  return html`<p>Gate <strong>${g.status}</strong>: ${g.reason}. Regressions ${g.regressions}, control regressions ${g.controlRegressions}, follow-up gaps ${g.followUpGaps}.</p>
<table><thead><tr><th>Case</th><th>Role</th><th>Criterion</th><th>Baseline</th><th>Challenger</th><th>Transition</th></tr></thead><tbody>
${g.rows.map((r) => html`<tr><td>${r.caseId}</td><td>${r.role}</td><td>${r.criterionId}${r.blocking ? ' (blocking)' : ''}</td><td>${status(r.baseline)}</td><td>${status(r.challenger)}</td><td>${r.transition}</td></tr>`)}
</tbody></table>`;
}

function dataDiff(record: StoredRecord['record']): SafeHtml {
  const d = record.data;
  return html`<p class="muted">Base <code>${d.baseVersion}</code> → produces <code>${d.dataVersion}</code> · candidate <code>${d.candidateDigest}</code>${record.commit ? html` · branch <code>${record.commit.branch}</code> at <code>${short(record.commit.sha)}</code>` : ''}</p>
<table><thead><tr><th>Tunable</th><th>File</th><th>Pointer</th><th>Before</th><th>After</th><th>Because</th></tr></thead><tbody>
${d.changes.map((c) => html`<tr><td><code>${c.surface}</code></td><td><code>${c.path}</code></td><td><code>${c.pointer}</code></td><td><code>${json(c.before)}</code></td><td><code>${json(c.after)}</code></td><td>${c.because}</td></tr>`)}
</tbody></table>
<table><thead><tr><th>File</th><th>Owner</th><th>sha256 before</th><th>sha256 after</th></tr></thead><tbody>
${d.files.map((f) => html`<tr><td><code>${f.path}</code></td><td>${f.owner}</td><td><code>${short(f.beforeDigest)}</code></td><td><code>${short(f.afterDigest)}</code></td></tr>`)}
</tbody></table>
${d.diff ? html`<details><summary>Unified diff (${d.diff.split('\n').filter((l) => /^[+-](?![+-])/.test(l)).length} changed lines)</summary><pre>${d.diff}</pre></details>` : ''}`;
}

export function problemRows(records: readonly StoredRecord[]): SafeHtml {
  return html`<table><thead><tr><th>Ticket</th><th>Problem ref</th><th>Signature</th><th>Status</th><th>Reason</th><th>Recorded</th><th>Deployed</th><th>Decided</th><th>Record</th></tr></thead><tbody>
${records.flatMap(({ record, statuses }) =>
  statuses.map((s) => {
    const p = record.problems.find((x) => x.ref === s.ref);
    return html`<tr><td>${p?.ticketKey ?? '—'}</td><td><code>${s.ref}</code></td><td><code>${p?.signature ?? ''}</code></td><td>${status(s.status)}</td><td>${s.reason}${s.verification ? html`<div class="muted">verification: ${s.verification.source}, ${s.verification.executed ? 'executed' : 'not executed'}, blocking ${s.verification.blocking ?? '—'}${s.verification.leadingFamily ? `, led with ${s.verification.leadingFamily}` : ''}</div>` : ''}</td><td>${s.recordedAt}</td><td>${s.deployedAt ?? '—'}</td><td>${s.decidedAt ?? '—'}</td><td><a href="${href(['optimization-records', record.recordId])}"><code>${record.recordId}</code></a></td></tr>`;
  }),
)}
</tbody></table>`;
}

export function renderRecord(stored: StoredRecord, notifications: readonly StoredNotification[]): string {
  const { record } = stored;
  return page(
    record.recordId,
    html`<h1>${record.recordId}</h1><p>${record.problemStatement}</p>
<p class="muted">${record.format} · schema ${record.schemaVersion} · Focus <a href="${href(['focuses', record.focus.focusId])}">${record.focus.focusId}</a> attempt ${record.focus.attempt} · proposer ${record.focus.proposer} · created ${record.createdAt} · JSON: <a href="${href(['v1', 'optimization-records', record.recordId])}">record</a></p>
<h2>Applicability</h2><p>${record.applicability.summary}</p><p class="muted">Signature <code>${record.applicability.signature}</code> · stages ${record.applicability.stages.join(', ')} · tickets ${record.applicability.tickets.join(', ')}</p>
<h2>Problems</h2>${problemRows([stored])}
<h2>Data diff</h2>${dataDiff(record)}
<h2>Gate</h2><p class="muted">Blocking criterion <code>${record.criteria.blockingCriterionId}</code>.</p>${recordGate(record)}
<h2>Notifications</h2>${notifications.length ? notificationTable(notifications) : html`<p class="muted">None yet: a problem's notification is written when it is verified or found ineffective.</p>`}`,
  );
}

export function renderProblems(records: readonly StoredRecord[]): string {
  return page(
    'Problem statuses',
    html`<h1>Problem statuses</h1><p class="muted">Where the optimisation of each problem (a record's ref) stands. JSON: <a href="/v1/problem-statuses">/v1/problem-statuses</a>.</p>
<table><thead><tr><th>Status</th><th>Problems</th><th>Meaning</th></tr></thead><tbody>
${PROBLEM_STATUSES.map((s) => html`<tr><td>${status(s)}</td><td>${records.reduce((n, r) => n + r.statuses.filter((x) => x.status === s).length, 0)}</td><td class="muted">${PROBLEM_STATUS_MEANING[s].meaning}</td></tr>`)}
</tbody></table>
<h2>Problems</h2>${problemRows(records)}`,
  );
}
