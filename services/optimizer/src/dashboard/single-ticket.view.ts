import { href, html } from '@aoc/safe-html';
import type { JobTriggerRow, SingleTicketJob } from '../persistence/single-ticket-store';
import type { StoredNotification } from '../persistence/notification-store';
import { JOB_STATUS_MEANING } from '../single-ticket/job-machine';
import type { JobTrigger } from '../single-ticket/triggers';
import { notificationTable } from './notifications.view';
import { page, status } from './page.view';

/** The single-ticket jobs as pages: what started each, where it stands and what it found. */

const triggerText = (t: JobTrigger) => (t.kind === 'signal' ? `${t.signalKind} ${t.ref}: ${t.statement}` : `/ticket ${t.description ?? ''} (comment ${t.commentId})`);

export function renderJobList(jobs: readonly SingleTicketJob[]): string {
  return page(
    'Single-ticket jobs',
    html`<h1>Single-ticket jobs</h1><p class="muted">One job per trigger (an /ao wrong|revise, a human_better gap, a runtime degradation, a /ticket comment); at most one unfinished job per ticket. A job never creates or consumes a Focus.</p>
${
  jobs.length
    ? html`<table><thead><tr><th>Job</th><th>Ticket</th><th>Trigger</th><th>Status</th><th>Outcome</th><th>Reason</th><th>Updated</th></tr></thead><tbody>
${jobs.map((j) => html`<tr><td><a href="${href(['single-ticket', j.jobId])}"><code>${j.jobId}</code></a></td><td>${j.ticketKey}</td><td>${triggerText(j.trigger)}</td><td>${status(j.status)}</td><td>${j.outcome ?? '—'}</td><td>${j.reason}</td><td>${j.updatedAt}</td></tr>`)}
</tbody></table>`
    : html`<p class="muted">No single-ticket job yet.</p>`
}`,
  );
}

export function renderJob(job: SingleTicketJob, triggers: readonly JobTriggerRow[], notifications: readonly StoredNotification[]): string {
  const repair = job.repair as { recordId?: string | null } | null;
  return page(
    job.jobId,
    html`<h1>${job.jobId}</h1><p class="muted">${job.ticketKey} · ${status(job.status)} (${JOB_STATUS_MEANING[job.status].meaning}) · outcome ${job.outcome ?? '—'}</p>
<p>${job.reason}</p>
<h2>Triggers</h2><table><thead><tr><th>Trigger</th><th>Joined</th><th>At</th></tr></thead><tbody>${triggers.map((t) => html`<tr><td>${triggerText(t.trigger)}</td><td>${t.joined ? 'joined this job' : 'started it'}</td><td>${t.at}</td></tr>`)}</tbody></table>
<h2>Investigation (answer review first)</h2><pre>${JSON.stringify(job.investigation, null, 2)}</pre>
<h2>Repair</h2>${repair?.recordId ? html`<p><a href="${href(['optimization-records', repair.recordId])}">${repair.recordId}</a></p>` : ''}<pre>${JSON.stringify(job.repair, null, 2)}</pre>
<h2>Publication</h2><pre>${JSON.stringify(job.publication, null, 2)}</pre>
<h2>Notification</h2>${notifications.length ? notificationTable(notifications) : html`<p class="muted">None until the job is terminal.</p>`}`,
  );
}
