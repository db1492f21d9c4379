import { createHash } from 'node:crypto';
import type { HandlerContext } from '@aoc/bus';
import type { RunPublishedV1, TicketTimelineUpdatedV1 } from '@aoc/contracts';
import { CollectSignalsHandler, jobById, SingleTicketLane, storedTimeline, type JobProgress, type RepairPublication, type RepairPublisher, type SlotDeps } from '@aoc/service-optimizer';

/**
 * The repair publisher of the embedded and demo deployment: the router's `POST
 * /v1/tickets/publish-read` writes to the ticket source, which these deployments do not write to,
 * so the publication is kept in memory (one per job) and described.
 */
export function embeddedRepairPublisher(): RepairPublisher & { publications: RepairPublication[] } {
  const publications: RepairPublication[] = [];
  return {
    target: 'embedded (publish-read not written: no ticket-source writes here)',
    publications,
    publish: (p) => {
      if (!publications.some((x) => x.jobId === p.jobId)) publications.push(p);
      const publicationId = `pub-${createHash('sha256').update(p.jobId).digest('hex').slice(0, 16)}`;
      return Promise.resolve({ publicationId, detail: `the read replay of ${p.ticketKey} on ${p.dataVersion} replaces answer ${p.runId}` });
    },
  };
}

const DESCRIPTION = '/ticket the customer confirmed lock waits behind a long transaction';

/** A staff `/ticket` comment on the ticket's timeline, as the collector would publish it. */
async function postTicketCommand(deps: SlotDeps, ticketKey: string): Promise<void> {
  const current = await deps.transact(({ manager }) => storedTimeline(manager, ticketKey));
  const at = deps.now().toISOString();
  const timeline: TicketTimelineUpdatedV1 = {
    ticketKey,
    observedAt: at,
    revision: (current?.revision ?? 0) + 1,
    comments: [...(current?.comments ?? []), { id: 'demo-ticket-command', authorRole: 'support', visibility: 'internal', createdAt: at, updatedAt: at, body: DESCRIPTION, visibleToAi: false, feedback: null }],
    ...(current?.questionDigest ? { questionDigest: current.questionDigest } : {}),
  };
  await deps.transact(({ manager }) => new CollectSignalsHandler().onTimeline(timeline, { manager } as unknown as HandlerContext));
}

/**
 * One single-ticket repair end to end: the lane activates on the feed (no backfill), a `/ticket`
 * comment opens a job, the investigation reviews the answer and a fresh read replay, the repair is
 * gated and recorded; when it waits for its deployment, the deployment is simulated (an answer of
 * the ticket carrying the record's data version), and the next run verifies and re-publishes it.
 */
export async function runSingleTicketDemo(deps: SlotDeps, ticketKey: string, published: readonly RunPublishedV1[], log: (line: string) => void): Promise<JobProgress | null> {
  const lane = new SingleTicketLane(deps);
  const feed = await lane.collect();
  log(`single-ticket feed: ${feed.activated ? 'first activation: cursor set at the head, no backfill of earlier signals' : `${feed.created} job(s) from new signals`}`);
  await postTicketCommand(deps, ticketKey);
  log(`single-ticket trigger: ${ticketKey} comment "${DESCRIPTION}"`);
  let progress = (await lane.run()).jobs[0] ?? null;
  if (!progress) return null;
  const job = await deps.transact(({ manager }) => jobById(manager, progress?.jobId ?? ''));
  const inv = job?.investigation as { answerReview?: { summary?: string }; finding?: { kind?: string; reason?: string } } | null;
  log(`single-ticket investigate: ${inv?.answerReview?.summary ?? 'no review'}`);
  log(`single-ticket finding: ${inv?.finding?.kind ?? '?'} — ${inv?.finding?.reason ?? ''}`);
  log(`single-ticket ${progress.jobId}: ${progress.status} — ${progress.reason}`);
  if (progress.status === 'verifying') {
    const recordId = (job?.repair as { recordId?: string; dataVersion?: string } | null)?.recordId ?? '';
    const dataVersion = (job?.repair as { dataVersion?: string } | null)?.dataVersion ?? '';
    const answer = published.find((r) => r.ticketKey === ticketKey);
    if (answer) {
      const deployed = { ...answer, runId: `${answer.runId}-stj`, publishedAt: deps.now().toISOString(), dataVersion };
      await deps.transact(({ manager }) => new CollectSignalsHandler().onPublished(deployed, { manager } as unknown as HandlerContext));
      log(`single-ticket deploy (simulated): ${ticketKey} answered on ${dataVersion}, the data version of ${recordId}`);
    }
    progress = (await lane.run()).jobs.find((j) => j.jobId === progress?.jobId) ?? progress;
  }
  const done = await deps.transact(({ manager }) => jobById(manager, progress?.jobId ?? ''));
  const repair = done?.repair as { recordId?: string | null; tried?: { digest: string; gate: string; reason: string }[] } | null;
  for (const t of repair?.tried ?? []) log(`single-ticket repair: ${t.digest} gate ${t.gate} — ${t.reason}`);
  if (repair?.recordId) log(`single-ticket record: ${repair.recordId} (lane single_ticket; no Focus created or consumed)`);
  log(`single-ticket result: ${done?.status ?? '?'} (${done?.outcome ?? '—'}) — ${done?.reason ?? ''}`);
  return progress;
}
