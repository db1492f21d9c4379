import type { EntityManager } from 'typeorm';
import { deliveryOnWrite } from '../notifications/notification-config';
import { notificationBody, subjectOf, type NotificationKind, type OptimizerNotification } from '../notifications/notification-payload';
import { isoOrNull, isoValue } from './row-values';

/**
 * The notification outbox (`optimizer.notifications`). A result's notification is written in the
 * transaction that produces the result (the Focus move, the problem's decision), under the id the
 * result gives it: writing it again (a resumed run, a second replica) changes nothing. The sender
 * claims due rows, posts them and marks the outcome; a claim that is never marked (the sender died
 * between sending and marking) expires and the row is sent again under the same id, which is why a
 * receiver must drop ids it has already accepted.
 */

export const DELIVERY_STATUSES = ['pending', 'delivered', 'gave_up', 'not_configured'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface StoredNotification {
  notificationId: string;
  kind: NotificationKind;
  schemaVersion: number;
  subject: string;
  tenants: string[];
  status: DeliveryStatus;
  attempts: number;
  /** When a pending one is due next (while claimed: when the claim expires). */
  nextAttemptAt: string | null;
  /** A sender holds it (an attempt is in flight, or its sender died and the claim has not expired). */
  claimed: boolean;
  lastAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  updatedAt: string;
  /** The body as sent (parsed). */
  payload: unknown;
}

/** A claimed row: what the sender needs to post it. */
export interface ClaimedNotification {
  notificationId: string;
  kind: NotificationKind;
  body: string;
  /** The attempt this claim is (1-based). */
  attempt: number;
}

function statusOf(value: unknown): DeliveryStatus {
  const status = DELIVERY_STATUSES.find((s) => s === value);
  if (!status) throw new Error(`unknown notification status ${String(value)}`);
  return status;
}

function parsedBody(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return null;
  }
}

const toNotification = (r: Record<string, unknown>): StoredNotification => ({
  notificationId: String(r['notification_id']),
  kind: String(r['kind']) as NotificationKind,
  schemaVersion: Number(r['schema_version']),
  subject: String(r['subject']),
  tenants: (r['tenants'] as string[] | undefined) ?? [],
  status: statusOf(r['status']),
  attempts: Number(r['attempts']),
  nextAttemptAt: isoOrNull(r['next_attempt_at']),
  claimed: r['claimed_by'] !== null && r['claimed_by'] !== undefined,
  lastAttemptAt: isoOrNull(r['last_attempt_at']),
  lastStatusCode: r['last_status_code'] === null || r['last_status_code'] === undefined ? null : Number(r['last_status_code']),
  lastError: (r['last_error'] as string | null | undefined) ?? null,
  createdAt: isoValue(r['created_at']),
  deliveredAt: isoOrNull(r['delivered_at']),
  updatedAt: isoValue(r['updated_at']),
  payload: parsedBody(String(r['body'])),
});

/**
 * Writes a result's notification once (the same id again keeps the stored row); returns whether
 * this call wrote it. `delivery`: `pending` to be sent, `not_configured` when this process has no
 * webhook (recorded, never sent).
 */
export async function enqueueNotification(m: EntityManager, n: OptimizerNotification, at: Date, delivery: 'pending' | 'not_configured' = deliveryOnWrite()): Promise<boolean> {
  const rows: unknown[] = await m.query(
    `INSERT INTO "optimizer"."notifications" ("notification_id", "kind", "schema_version", "subject", "tenants", "body", "status", "attempts", "next_attempt_at", "created_at", "updated_at")
     VALUES ($1, $2, $3, $4, $5::text[], $6, $7, 0, $8, $9, $9) ON CONFLICT ("notification_id") DO NOTHING RETURNING "notification_id"`,
    [n.notificationId, n.kind, n.schemaVersion, subjectOf(n), [...n.tenants], notificationBody(n), delivery, delivery === 'pending' ? at : null, at],
  );
  return rows.length > 0;
}

/** Every notification, newest first. */
export async function allNotifications(m: EntityManager): Promise<StoredNotification[]> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."notifications" ORDER BY "created_at" DESC, "notification_id"`);
  return rows.map(toNotification);
}

export async function notificationById(m: EntityManager, notificationId: string): Promise<StoredNotification | null> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."notifications" WHERE "notification_id" = $1`, [notificationId]);
  return rows[0] ? toNotification(rows[0]) : null;
}

/** The notifications about these subjects (a Focus id; `<recordId>/` for every problem of a record). */
export async function notificationsAbout(m: EntityManager, subject: string): Promise<StoredNotification[]> {
  const rows: Record<string, unknown>[] = await m.query(
    `SELECT * FROM "optimizer"."notifications" WHERE "subject" = $1 OR ("subject" LIKE $2 ESCAPE '\\') ORDER BY "created_at", "notification_id"`,
    [subject, `${subject.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`],
  );
  return rows.map(toNotification);
}

/** Like a Focus or a record: one confined to a tenant sees a notification only when all its tickets are that tenant's. */
export const notificationVisibleTo = (n: Pick<StoredNotification, 'tenants'>, tenant: string | null): boolean => tenant === null || (n.tenants.length === 1 && n.tenants[0] === tenant);

/**
 * Claims up to `limit` due notifications for one sender: each gets its attempt counted and is held
 * until `now + claimMs` (when it is due again if the sender never reports). Rows another sender is
 * claiming at the same moment are skipped, not waited for.
 */
export async function claimDue(m: EntityManager, o: { claimer: string; now: Date; claimMs: number; maxAttempts: number; limit: number }): Promise<ClaimedNotification[]> {
  const rows: { notification_id: string; kind: string; body: string; attempts: number }[] = await m.query(
    `WITH due AS (
       SELECT "notification_id" FROM "optimizer"."notifications"
       WHERE "status" = 'pending' AND "next_attempt_at" <= $2 AND "attempts" < $4
       ORDER BY "next_attempt_at", "notification_id" LIMIT $5 FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE "optimizer"."notifications" n SET "attempts" = n."attempts" + 1, "claimed_by" = $1, "next_attempt_at" = $3, "last_attempt_at" = $2, "updated_at" = $2
       FROM due WHERE n."notification_id" = due."notification_id"
       RETURNING n."notification_id", n."kind", n."body", n."attempts"
     ) SELECT * FROM claimed ORDER BY "notification_id"`,
    [o.claimer, o.now, new Date(o.now.getTime() + o.claimMs), o.maxAttempts, o.limit],
  );
  return rows.map((r) => ({ notificationId: r.notification_id, kind: r.kind as NotificationKind, body: r.body, attempt: Number(r.attempts) }));
}

/** The receiver accepted it (2xx). Delivered is a fact whoever holds the claim: a late report of an earlier attempt still counts. */
export async function markDelivered(m: EntityManager, notificationId: string, statusCode: number, at: Date): Promise<boolean> {
  const rows: unknown[] = await m.query(
    `WITH done AS (UPDATE "optimizer"."notifications" SET "status" = 'delivered', "delivered_at" = $2, "claimed_by" = NULL, "next_attempt_at" = NULL, "last_status_code" = $3, "last_error" = NULL, "updated_at" = $2
     WHERE "notification_id" = $1 AND "status" = 'pending' RETURNING "notification_id") SELECT "notification_id" FROM done`,
    [notificationId, at, statusCode],
  );
  return rows.length > 0;
}

/**
 * The attempt failed: due again at `next`, or given up (`next` null) with the error kept. Only the
 * sender still holding the claim reports it (one whose claim expired and was taken over does not).
 */
export async function markFailed(m: EntityManager, notificationId: string, claimer: string, error: string, statusCode: number | null, next: Date | null, at: Date): Promise<boolean> {
  const rows: unknown[] = await m.query(
    `WITH failed AS (UPDATE "optimizer"."notifications" SET "status" = $4, "next_attempt_at" = $5, "claimed_by" = NULL, "last_error" = $6, "last_status_code" = $7, "updated_at" = $3
     WHERE "notification_id" = $1 AND "claimed_by" = $2 AND "status" = 'pending' RETURNING "notification_id") SELECT "notification_id" FROM failed`,
    [notificationId, claimer, at, next === null ? 'gave_up' : 'pending', next, error.slice(0, 500), statusCode],
  );
  return rows.length > 0;
}

/** Pending notifications whose attempts are spent and whose last claim expired unreported (its sender died): given up. */
export async function giveUpSpent(m: EntityManager, maxAttempts: number, now: Date): Promise<number> {
  const rows: unknown[] = await m.query(
    `WITH spent AS (UPDATE "optimizer"."notifications" SET "status" = 'gave_up', "claimed_by" = NULL, "next_attempt_at" = NULL, "updated_at" = $2,
       "last_error" = coalesce("last_error" || '; ', '') || 'the last attempt was never reported (its sender stopped)'
     WHERE "status" = 'pending' AND "attempts" >= $1 AND "next_attempt_at" <= $2 RETURNING "notification_id") SELECT "notification_id" FROM spent`,
    [maxAttempts, now],
  );
  return rows.length;
}
