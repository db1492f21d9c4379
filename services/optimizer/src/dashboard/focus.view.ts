import { href, html, type SafeHtml } from '@aoc/safe-html';
import type { GateResult } from '../focus/candidate-gate';
import { latest, type Checkpoint } from '../persistence/checkpoint-store';
import type { FocusRow } from '../persistence/focus-store';
import type { StoredSignal } from '../persistence/signal-store';
import type { JudgedReplay } from '../run-focus/replay-judging';
import type { PathStep } from '../focus/focus-path';
import type { StoredNotification } from '../persistence/notification-store';
import { renderFocusDiagram, renderFocusPath } from './focus-diagram.view';
import { notificationTable } from './notifications.view';
import { page, status } from './page.view';

/** The optimizer's pages: server-rendered, no script, every value escaped by the `html` tag (layout in page.view.ts). */

export { page, status } from './page.view';

export function renderFocusList(focuses: readonly { focus: FocusRow; checkpoints: readonly Checkpoint[] }[], open: readonly StoredSignal[]): string {
  const bySignature = new Map<string, number>();
  for (const s of open) bySignature.set(s.signature, (bySignature.get(s.signature) ?? 0) + 1);
  return page(
    'Focuses',
    html`<h1>Focuses</h1><p class="muted">One narrow problem at a time, proven on replayed cases; candidates are data changes, committed on a branch and never merged automatically.</p>
<table><thead><tr><th>Focus</th><th>Status</th><th>Problem</th><th>Targets</th><th>Controls</th><th>Last step</th></tr></thead><tbody>
${focuses.map(
  ({ focus, checkpoints }) =>
    html`<tr><td><a href="${href(['focuses', focus.focusId])}">${focus.focusId}</a></td><td>${focus.status}</td><td>${focus.candidate.problemStatement}</td><td>${focus.candidate.targets.length}</td><td>${focus.candidate.controls.length}</td><td>${checkpoints.at(-1) ? `${checkpoints.at(-1)?.kind} #${checkpoints.at(-1)?.attempt}` : '—'}</td></tr>`,
)}
</tbody></table>
<h2>Open problem signals by signature</h2>
<table><thead><tr><th>Signature</th><th>Open refs</th></tr></thead><tbody>${[...bySignature].sort((a, b) => b[1] - a[1]).map(([sig, n]) => html`<tr><td><code>${sig}</code></td><td>${n}</td></tr>`)}</tbody></table>`,
  );
}

function casesTable(cases: readonly JudgedReplay[]): SafeHtml {
  return html`<table><thead><tr><th>Case</th><th>Role</th><th>Led with</th><th>Criteria</th></tr></thead><tbody>
${cases.map((c) => html`<tr><td>${c.caseId}</td><td>${c.role}</td><td>${c.leadingFamily ?? '—'}${c.executed ? '' : html` <span class="gap">not executed: ${c.error ?? ''}</span>`}</td><td>${c.judgement.results.map((r) => html`<div>${r.criterionId}: ${status(r.status)} <span class="muted">${r.reason}</span></div>`)}</td></tr>`)}
</tbody></table>`;
}

export function gateTable(gate: GateResult): SafeHtml {
  return html`<p>Gate <strong>${gate.status}</strong>: ${gate.reason}. Regressions ${gate.regressions.length}, control regressions ${gate.controlRegressions.length}, follow-up gaps ${gate.followUpGaps.length}.</p>
<table><thead><tr><th>Case</th><th>Role</th><th>Criterion</th><th>Baseline</th><th>Challenger</th><th>Transition</th></tr></thead><tbody>
${gate.table.map((r) => html`<tr><td>${r.caseId}</td><td>${r.role}</td><td>${r.criterionId}${r.blocking ? ' (blocking)' : ''}</td><td>${status(r.baseline)}</td><td>${status(r.challenger)}</td><td>${r.transition}</td></tr>`)}
</tbody></table>`;
}

export function renderFocus(focus: FocusRow, checkpoints: readonly Checkpoint[], path: readonly PathStep[] = [], notifications: readonly StoredNotification[] = []): string {
  const c = focus.candidate;
  const attempts = [...new Set(checkpoints.map((x) => x.attempt))].sort((a, b) => a - b);
  return page(
    focus.focusId,
    html`<h1>${focus.focusId}</h1><p>${c.problemStatement}</p><p class="muted">Status ${focus.status} · signature <code>${c.signature}</code> · digest <code>${focus.focusDigest}</code></p>
<h2>State</h2><p class="muted">The Focus state machine (focus-machine.ts): the current status is filled, the way this Focus came is blue, final statuses have a double border. JSON: <a href="${href(['v1', 'focuses', focus.focusId, 'state'])}">state</a>.</p>
${renderFocusDiagram(focus.status, path)}
${renderFocusPath(path)}
${notifications.length ? html`<h2>Notifications</h2>${notificationTable(notifications)}` : ''}
<h2>Criteria</h2><table><thead><tr><th>Id</th><th>Kind</th><th>Blocking</th><th>Needs</th></tr></thead><tbody>${c.criteria.map((k) => html`<tr><td>${k.id}</td><td>${k.kind}</td><td>${k.id === c.blockingCriterionId ? 'yes' : ''}</td><td>${k.requiredCapabilities.join(', ')}</td></tr>`)}</tbody></table>
<h2>Cases</h2><table><thead><tr><th>Ticket</th><th>Role</th><th>Problem ref</th><th>Answer version</th><th>Cutoff</th><th>Statement</th></tr></thead><tbody>
${c.targets.map((t) => html`<tr><td>${t.ticketKey}</td><td>target</td><td><code>${t.ref}</code></td><td><code>${t.source.runId}</code></td><td>${t.source.cutoff ?? '—'}</td><td>${t.statement}</td></tr>`)}
${c.controls.map((t) => html`<tr><td>${t.ticketKey}</td><td>control</td><td>—</td><td><code>${t.source.runId}</code></td><td>${t.source.cutoff ?? '—'}</td><td></td></tr>`)}
</tbody></table>
<h2>Checkpoints</h2><table><thead><tr><th>#</th><th>Step</th><th>Attempt</th><th>Base version</th><th>Candidate</th><th>At</th></tr></thead><tbody>
${checkpoints.map((x) => html`<tr><td>${x.seq}</td><td>${x.kind}</td><td>${x.attempt}</td><td><code>${x.baseVersion}</code></td><td><code>${x.candidateDigest ?? '—'}</code></td><td>${x.createdAt}</td></tr>`)}
</tbody></table>
${attempts.map((a) => {
  const baseline = (a === 0 ? latest(checkpoints, 'baseline', a) : latest(checkpoints, 'case_refresh', a))?.payload.cases;
  const proposal = latest(checkpoints, 'proposal', a)?.payload;
  const gate = latest(checkpoints, 'gate', a)?.payload;
  const review = latest(checkpoints, 'attempt_review', a)?.payload;
  const blocked = latest(checkpoints, 'case_blocked', a)?.payload;
  return html`<h2>${a === 0 ? 'Creation baseline' : `Attempt ${a}`}</h2>
${baseline ? casesTable(baseline) : ''}
${blocked ? html`<p class="gap">Case blocked on this base: ${blocked.caseIds.join(', ')} (${blocked.reason})</p>` : ''}
${proposal?.diff ? html`<p>Candidate: ${proposal.diff.edits.map((e) => html`<div><code>${e.path} ${e.pointer} = ${JSON.stringify(e.value)}</code> — ${e.because}</div>`)}</p>` : ''}
${proposal && !proposal.diff ? html`<p class="gap">No admissible proposal: ${proposal.rejected.map((r) => `${r.code} ${r.detail}`).join('; ')}</p>` : ''}
${gate ? gateTable(gate) : ''}
${review?.feedback ? html`<p class="muted">Review: ${review.feedback}</p>` : ''}`;
})}`,
  );
}
