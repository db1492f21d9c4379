import type { EntityManager } from 'typeorm';
import { singleTicketResultNotification } from '../notifications/notification-payload';
import { isJobStatus, isTerminal, JOB_STATUS_MEANING, jobTransitionFor, type JobEvent, type JobOutcome, type JobStatus } from '../single-ticket/job-machine';
import { jobIdOf, triggerIdOf, type JobTrigger } from '../single-ticket/triggers';
import { enqueueNotification } from './notification-store';
import { isoOrNull, isoValue, jsonValue } from './row-values';

/**
 * Single-ticket jobs, their triggers and the feed cursor. A job is opened once per (ticket,
 * trigger); while a ticket has an unfinished job a new trigger joins it (kept in
 * `single_ticket_triggers`) instead of starting a second one. A job moves only through `moveJob`,
 * a conditional write of one row of the job machine: a move already made changes nothing, and a
 * move to a terminal status writes the job's notification in the same transaction.
 */

export interface SingleTicketJob {
  jobId: string;
  ticketKey: string;
  tenant: string | null;
  trigger: JobTrigger;
  status: JobStatus;
  outcome: JobOutcome | null;
  reason: string;
  investigation: unknown;
  repair: unknown;
  publication: unknown;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export interface JobTriggerRow {
  triggerId: string;
  jobId: string;
  joined: boolean;
  trigger: JobTrigger;
  at: string;
}

const toJob = (r: Record<string, unknown>): SingleTicketJob => {
  const status = r['status'];
  if (!isJobStatus(status)) throw new Error(`unknown single-ticket job status ${String(status)}`);
  return {
    jobId: String(r['job_id']),
    ticketKey: String(r['ticket_key']),
    tenant: (r['tenant'] as string | null | undefined) ?? null,
    trigger: jsonValue<JobTrigger>(r['trigger']),
    status,
    outcome: (r['outcome'] as JobOutcome | null | undefined) ?? null,
    reason: String(r['reason']),
    investigation: r['investigation'] === null || r['investigation'] === undefined ? null : jsonValue<unknown>(r['investigation']),
    repair: r['repair'] === null || r['repair'] === undefined ? null : jsonValue<unknown>(r['repair']),
    publication: r['publication'] === null || r['publication'] === undefined ? null : jsonValue<unknown>(r['publication']),
    createdAt: isoValue(r['created_at']),
    updatedAt: isoValue(r['updated_at']),
    finishedAt: isoOrNull(r['finished_at']),
  };
};

export type OpenResult = { kind: 'created' | 'redelivered'; jobId: string } | { kind: 'joined'; jobId: string };

async function insertTrigger(m: EntityManager, ticketKey: string, trigger: JobTrigger, jobId: string, joined: boolean, at: Date): Promise<void> {
  await m.query(`INSERT INTO "optimizer"."single_ticket_triggers" ("trigger_id", "ticket_key", "job_id", "joined", "trigger", "at") VALUES ($1, $2, $3, $4, $5::jsonb, $6) ON CONFLICT ("trigger_id") DO NOTHING`, [triggerIdOf(ticketKey, trigger), ticketKey, jobId, joined, JSON.stringify(trigger), at]);
}

/**
 * Opens the job of a trigger: `created`; `redelivered` when that very job exists; `joined` when
 * another unfinished job of the ticket holds it (the one-open-job index decides, also between two
 * transactions at once: the second waits for the first and then inserts nothing).
 */
export async function openJob(m: EntityManager, ticketKey: string, tenant: string | null, trigger: JobTrigger, at: Date): Promise<OpenResult> {
  const row = jobTransitionFor('none', 'job_created');
  const jobId = jobIdOf(ticketKey, trigger);
  for (let round = 0; round < 2; round += 1) {
    const inserted: unknown[] = await m.query(
      `INSERT INTO "optimizer"."single_ticket_jobs" ("job_id", "ticket_key", "tenant", "trigger", "status", "terminal", "reason", "created_at", "updated_at") VALUES ($1, $2, $3, $4::jsonb, $5, false, $6, $7, $7) ON CONFLICT DO NOTHING RETURNING "job_id"`,
      [jobId, ticketKey, tenant, JSON.stringify(trigger), row.to, row.meaning, at],
    );
    if (inserted.length > 0) {
      await insertTrigger(m, ticketKey, trigger, jobId, false, at);
      return { kind: 'created', jobId };
    }
    if (await jobById(m, jobId)) return { kind: 'redelivered', jobId };
    const open: { job_id: string }[] = await m.query(`SELECT "job_id" FROM "optimizer"."single_ticket_jobs" WHERE "ticket_key" = $1 AND NOT "terminal"`, [ticketKey]);
    if (open[0]) {
      await insertTrigger(m, ticketKey, trigger, open[0].job_id, true, at);
      return { kind: 'joined', jobId: open[0].job_id };
    }
    // The open job finished between the insert and the look-up: try once more.
  }
  throw new Error(`could not open a single-ticket job for ${ticketKey}`);
}

export interface JobPatch {
  reason: string;
  outcome?: JobOutcome;
  investigation?: unknown;
  repair?: unknown;
  publication?: unknown;
}

/**
 * Applies one row of the job machine to a job that is `from`; returns whether this call moved it.
 * A terminal move writes the `single_ticket.result` notification with it, once (its id is the job's).
 */
export async function moveJob(m: EntityManager, job: Pick<SingleTicketJob, 'jobId' | 'ticketKey' | 'tenant'>, from: JobStatus, event: JobEvent, patch: JobPatch, at: Date): Promise<boolean> {
  const row = jobTransitionFor(from, event);
  const terminal = isTerminal(row.to);
  const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
  const rows: unknown[] = await m.query(
    `WITH moved AS (UPDATE "optimizer"."single_ticket_jobs" SET "status" = $3, "terminal" = $4::boolean, "reason" = $5, "outcome" = coalesce($6, "outcome"),
       "investigation" = coalesce($7::jsonb, "investigation"), "repair" = coalesce($8::jsonb, "repair"), "publication" = coalesce($9::jsonb, "publication"), "updated_at" = $10::timestamptz, "finished_at" = CASE WHEN $4::boolean THEN $10::timestamptz ELSE NULL END
     WHERE "job_id" = $1 AND "status" = $2 RETURNING "job_id") SELECT "job_id" FROM moved`,
    [job.jobId, from, row.to, terminal, patch.reason.slice(0, 1000), patch.outcome ?? null, json(patch.investigation), json(patch.repair), json(patch.publication), at],
  );
  if (rows.length === 0) return false;
  const result = JOB_STATUS_MEANING[row.to].result;
  if (result !== null) {
    const outcome = patch.outcome ?? (row.to === 'optimized_verified' ? 'optimized_verified' : row.to);
    await enqueueNotification(m, singleTicketResultNotification({ jobId: job.jobId, ticketKey: job.ticketKey, status: result, outcome, reason: patch.reason.slice(0, 1000), finishedAt: at.toISOString() }, [job.tenant ?? ''], at), at);
  }
  return true;
}

export async function jobById(m: EntityManager, jobId: string): Promise<SingleTicketJob | null> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."single_ticket_jobs" WHERE "job_id" = $1`, [jobId]);
  return rows[0] ? toJob(rows[0]) : null;
}

/** Every job, newest first. */
export async function allJobs(m: EntityManager): Promise<SingleTicketJob[]> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."single_ticket_jobs" ORDER BY "created_at" DESC, "job_id"`);
  return rows.map(toJob);
}

/** Unfinished jobs, oldest first. */
export async function openJobs(m: EntityManager, limit: number): Promise<SingleTicketJob[]> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."single_ticket_jobs" WHERE NOT "terminal" ORDER BY "created_at", "job_id" LIMIT $1`, [limit]);
  return rows.map(toJob);
}

export async function triggersOf(m: EntityManager, jobId: string): Promise<JobTriggerRow[]> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."single_ticket_triggers" WHERE "job_id" = $1 ORDER BY "at", "trigger_id"`, [jobId]);
  return rows.map((r) => ({ triggerId: String(r['trigger_id']), jobId: String(r['job_id']), joined: Boolean(r['joined']), trigger: jsonValue<JobTrigger>(r['trigger']), at: isoValue(r['at']) }));
}

/** Like a record: one confined to a tenant sees a job only when its ticket is that tenant's. */
export const jobVisibleTo = (job: Pick<SingleTicketJob, 'tenant'>, tenant: string | null): boolean => tenant === null || job.tenant === tenant;

/** A feed consumer's last taken sequence number, or null before its first activation. */
export async function cursorOf(m: EntityManager, consumer: string): Promise<number | null> {
  const rows: { cursor: string }[] = await m.query(`SELECT "cursor" FROM "optimizer"."single_ticket_cursors" WHERE "consumer" = $1`, [consumer]);
  return rows[0] ? Number(rows[0].cursor) : null;
}

/** Moves a consumer's cursor forward only (a stale writer never moves it back). */
export async function saveCursor(m: EntityManager, consumer: string, cursor: number, at: Date): Promise<void> {
  await m.query(
    `INSERT INTO "optimizer"."single_ticket_cursors" ("consumer", "cursor", "updated_at") VALUES ($1, $2, $3)
     ON CONFLICT ("consumer") DO UPDATE SET "cursor" = excluded."cursor", "updated_at" = excluded."updated_at" WHERE "single_ticket_cursors"."cursor" < excluded."cursor"`,
    [consumer, cursor, at],
  );
}
