import { href, html, type SafeHtml } from '@aoc/safe-html';
import type { StoredNotification } from '../persistence/notification-store';
import { page, status } from './page.view';

/** The notification outbox as pages: what each terminal result's notification is and where its delivery stands. */

/** Where a notification's subject is shown. */
function subjectLink(n: StoredNotification): SafeHtml {
  if (n.kind === 'focus.terminal') return html`<a href="${href(['focuses', n.subject])}">${n.subject}</a>`;
  if (n.kind === 'problem.decided') {
    const [recordId, ref] = n.subject.split('/');
    return html`<a href="${href(['optimization-records', recordId ?? ''])}">${recordId}</a> <code>${ref ?? ''}</code>`;
  }
  return html`<a href="${href(['single-ticket', n.subject])}"><code>${n.subject}</code></a>`;
}

/** What the notification says, in a few words (from its payload). */
function summary(n: StoredNotification): string {
  const p = n.payload as { focus?: { status?: string; outcome?: string }; problem?: { ticketKey?: string; status?: string }; job?: { ticketKey?: string; status?: string } } | null;
  if (p?.focus) return `Focus ${p.focus.status ?? '?'} (${p.focus.outcome ?? '?'})`;
  if (p?.problem) return `${p.problem.ticketKey ?? '?'} ${p.problem.status ?? '?'}`;
  if (p?.job) return `${p.job.ticketKey ?? '?'} job ${p.job.status ?? '?'}`;
  return '';
}

function delivery(n: StoredNotification): SafeHtml {
  if (n.status === 'pending') return html`${status(n.status)}${n.claimed ? ' (sending)' : ''}<div class="muted">next ${n.nextAttemptAt ?? '—'}</div>`;
  if (n.status === 'delivered') return html`${status(n.status)}<div class="muted">${n.deliveredAt ?? ''}</div>`;
  return status(n.status);
}

export function notificationTable(notifications: readonly StoredNotification[]): SafeHtml {
  return html`<table><thead><tr><th>Notification</th><th>Kind</th><th>About</th><th>Result</th><th>Delivery</th><th>Attempts</th><th>Last attempt</th><th>Created</th></tr></thead><tbody>
${notifications.map(
  (n) =>
    html`<tr><td><a href="${href(['notifications', n.notificationId])}"><code>${n.notificationId}</code></a></td><td>${n.kind}</td><td>${subjectLink(n)}</td><td>${summary(n)}</td><td>${delivery(n)}</td><td>${n.attempts}</td><td>${n.lastAttemptAt ?? '—'}${n.lastStatusCode !== null ? html` <span class="muted">HTTP ${n.lastStatusCode}</span>` : ''}${n.lastError ? html`<div class="muted">${n.lastError}</div>` : ''}</td><td>${n.createdAt}</td></tr>`,
)}
</tbody></table>`;
}

export function renderNotificationList(notifications: readonly StoredNotification[], webhookConfigured: boolean): string {
  const counts = new Map<string, number>();
  for (const n of notifications) counts.set(n.status, (counts.get(n.status) ?? 0) + 1);
  return page(
    'Notifications',
    html`<h1>Notifications</h1><p class="muted">One per terminal result (a Focus in a final status, a problem verified or ineffective, a single-ticket job finished), sent once to the webhook as a signed JSON POST and retried with backoff; a receiver drops ids it already accepted. ${webhookConfigured ? 'A webhook is configured in this process.' : 'No webhook is configured in this process: new results are recorded as not_configured and never sent.'}</p>
<p>${[...counts].map(([s, n]) => html`${status(s)} ${n} `)}</p>
${notifications.length ? notificationTable(notifications) : html`<p class="muted">No notification yet.</p>`}`,
  );
}

export function renderNotification(n: StoredNotification): string {
  return page(
    n.notificationId,
    html`<h1>${n.notificationId}</h1><p class="muted">${n.kind} · schema ${n.schemaVersion} · about ${subjectLink(n)}</p>
${notificationTable([n])}
<h2>Payload (as sent)</h2><pre>${JSON.stringify(n.payload, null, 2)}</pre>`,
  );
}
