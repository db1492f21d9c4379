import type { EntityManager } from 'typeorm';
import { FOCUS_STATUSES, type FocusStatus } from '../focus/focus-machine';
import { targetSetKey, type FocusCandidate } from '../select-focus/focus-selector';
import { checkpointsOf, type Checkpoint } from './checkpoint-store';
import { isoValue, jsonValue } from './row-values';

/**
 * Focuses, the rejected groupings and the optimizer lease. A Focus's status moves only through
 * the state machine (`focus-transition.ts` applies `focus/focus-machine.ts`); its checkpoints are
 * in `checkpoint-store.ts`.
 */

export interface FocusRow {
  focusId: string;
  focusDigest: string;
  status: FocusStatus;
  signature: string;
  candidate: FocusCandidate;
  /** The tenants of the tickets it gathered, sorted ('' for a ticket no configured tenant owns). */
  tenants: string[];
  createdAt: string;
  updatedAt: string;
}

function statusOf(value: unknown): FocusStatus {
  const status = FOCUS_STATUSES.find((s) => s === value);
  if (!status) throw new Error(`unknown Focus status ${String(value)}`);
  return status;
}

function toFocus(r: Record<string, unknown>): FocusRow {
  return { focusId: String(r['focus_id']), focusDigest: String(r['focus_digest']), status: statusOf(r['status']), signature: String(r['signature']), candidate: jsonValue<FocusCandidate>(r['candidate']), tenants: (r['tenants'] as string[] | undefined) ?? [], createdAt: isoValue(r['created_at']), updatedAt: isoValue(r['updated_at']) };
}

/** Every ticket a Focus gathers: its targets' and its controls'. */
function ticketsOf(c: FocusCandidate): string[] {
  return [...new Set([...c.targets.map((t) => t.ticketKey), ...c.controls.map((t) => t.ticketKey)])];
}

/** Whether a Focus is seen by a principal confined to `tenant` (null: one who sees every tenant): only when all its tickets are that tenant's. */
export function focusVisibleTo(focus: Pick<FocusRow, 'tenants'>, tenant: string | null): boolean {
  return tenant === null || (focus.tenants.length === 1 && focus.tenants[0] === tenant);
}

/** Inserts the Focus once (same id: the existing row is returned). */
export async function saveFocus(m: EntityManager, f: Pick<FocusRow, 'focusId' | 'focusDigest' | 'status' | 'signature' | 'candidate'>, at: Date): Promise<FocusRow> {
  await m.query(
    `INSERT INTO "optimizer"."focuses" ("focus_id", "focus_digest", "status", "signature", "candidate", "created_at", "updated_at", "tenants")
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $6,
             ARRAY(SELECT DISTINCT coalesce(v."tenant", '') FROM "optimizer"."answer_versions" v WHERE v."ticket_key" = ANY($7::text[]) ORDER BY 1))
     ON CONFLICT ("focus_id") DO NOTHING`,
    [f.focusId, f.focusDigest, f.status, f.signature, JSON.stringify(f.candidate), at, ticketsOf(f.candidate)],
  );
  const row = await focusById(m, f.focusId);
  if (!row) throw new Error(`focus ${f.focusId} was not stored`);
  return row;
}

export async function focusById(m: EntityManager, focusId: string): Promise<FocusRow | null> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."focuses" WHERE "focus_id" = $1`, [focusId]);
  return rows[0] ? toFocus(rows[0]) : null;
}

export async function focusesWith(m: EntityManager, status: FocusStatus): Promise<FocusRow[]> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."focuses" WHERE "status" = $1 ORDER BY "created_at", "focus_id"`, [status]);
  return rows.map(toFocus);
}

export async function allFocuses(m: EntityManager): Promise<FocusRow[]> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."focuses" ORDER BY "created_at" DESC, "focus_id"`);
  return rows.map(toFocus);
}

/** Every Focus with its checkpoints, newest Focus first. */
export async function focusesWithCheckpoints(m: EntityManager): Promise<{ focus: FocusRow; checkpoints: Checkpoint[] }[]> {
  return Promise.all((await allFocuses(m)).map(async (focus) => ({ focus, checkpoints: await checkpointsOf(m, focus.focusId) })));
}

/**
 * Moves a Focus from one status to another; false when it was no longer in `from` (another
 * replica moved it). Making a second Focus active fails on the one-active index.
 */
export async function moveFocus(m: EntityManager, focusId: string, from: FocusStatus, to: FocusStatus, at: Date): Promise<boolean> {
  // Through a CTE: TypeORM returns [rows, count] for a bare UPDATE, plain rows for a SELECT.
  const rows: unknown[] = await m.query(`WITH moved AS (UPDATE "optimizer"."focuses" SET "status" = $3, "updated_at" = $4 WHERE "focus_id" = $1 AND "status" = $2 RETURNING "focus_id") SELECT "focus_id" FROM moved`, [focusId, from, to, at]);
  return rows.length > 0;
}

/** Another optimizer run moved the Focus first: the transaction that found out rolls back. */
export class FocusMovedError extends Error {
  constructor(readonly focusId: string, readonly from: FocusStatus) {
    super(`${focusId} is no longer ${from}: another optimizer run moved it first`);
  }
}

/** `moveFocus` inside a transaction that must not go on when the move was lost (it throws `FocusMovedError`). */
export async function mustMoveFocus(m: EntityManager, focusId: string, from: FocusStatus, to: FocusStatus, at: Date): Promise<void> {
  if (!(await moveFocus(m, focusId, from, to, at))) throw new FocusMovedError(focusId, from);
}

/**
 * Remembers a baseline's rejection of a grouping. The same grouping rejected again (offered after
 * its lookback) refreshes the row, so the new rejection starts a new lookback.
 */
export async function recordRejection(m: EntityManager, candidate: FocusCandidate, outcome: string, reason: string, baseline: unknown, at: Date): Promise<void> {
  await m.query(
    `INSERT INTO "optimizer"."focus_rejections" ("grouping_digest", "signature", "outcome", "reason", "candidate", "baseline", "rejected_at") VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7)
     ON CONFLICT ("grouping_digest") DO UPDATE SET "outcome" = excluded."outcome", "reason" = excluded."reason", "candidate" = excluded."candidate", "baseline" = excluded."baseline", "rejected_at" = excluded."rejected_at"`,
    [candidate.groupingDigest, candidate.signature, outcome, reason.slice(0, 1000), JSON.stringify(candidate), JSON.stringify(baseline ?? null), at],
  );
}

/** Rejections still inside the lookback (`since`: the oldest that counts); older ones no longer keep a grouping out. */
export interface RejectionMemory {
  /** Grouping digests (target refs and control tickets). */
  groupings: Set<string>;
  /** Target-ref sets (`targetSetKey`), whatever their controls. */
  targetSets: Set<string>;
  /** Every target ref of those groupings: a ref not among them is new since. */
  refs: Set<string>;
}

export async function rejectionsSince(m: EntityManager, since: Date): Promise<RejectionMemory> {
  const rows: { grouping_digest: string; refs: string[] | null }[] = await m.query(
    `SELECT "grouping_digest", ARRAY(SELECT t->>'ref' FROM jsonb_array_elements("candidate"->'targets') t) AS "refs" FROM "optimizer"."focus_rejections" WHERE "rejected_at" >= $1`,
    [since],
  );
  return {
    groupings: new Set(rows.map((r) => r.grouping_digest)),
    targetSets: new Set(rows.map((r) => targetSetKey(r.refs ?? []))),
    refs: new Set(rows.flatMap((r) => r.refs ?? [])),
  };
}

/**
 * A lease: one optimizer run at a time across replicas. Taken when free or expired; held by its
 * owner until released or `ttlMs` passes (a crashed holder does not block forever).
 */
export async function takeLease(m: EntityManager, name: string, owner: string, ttlMs: number, at: Date): Promise<boolean> {
  const until = new Date(at.getTime() + ttlMs);
  const rows: unknown[] = await m.query(
    `INSERT INTO "optimizer"."leases" ("name", "owner", "until") VALUES ($1, $2, $3)
     ON CONFLICT ("name") DO UPDATE SET "owner" = excluded."owner", "until" = excluded."until" WHERE "leases"."until" < $4 OR "leases"."owner" = excluded."owner" RETURNING "owner"`,
    [name, owner, until, at],
  );
  return rows.length > 0;
}

export async function releaseLease(m: EntityManager, name: string, owner: string): Promise<void> {
  await m.query(`DELETE FROM "optimizer"."leases" WHERE "name" = $1 AND "owner" = $2`, [name, owner]);
}
