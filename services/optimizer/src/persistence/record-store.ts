import type { EntityManager } from 'typeorm';
import { PROBLEM_STATUS_MEANING, problemTransitionFor, type ProblemEvent, type ProblemStatus } from '../focus/problem-status-machine';
import { problemDecidedNotification } from '../notifications/notification-payload';
import { parseRecord, ProblemStatusEntry, type OptimizationRecord, type VerificationEvidence } from '../records/optimization-record';
import { blockedByRecords, type RecordedProblem, type SignalAnswer } from '../records/record-dedupe';
import { enqueueNotification } from './notification-store';
import { isoOrNull, isoValue, jsonValue } from './row-values';
import { releaseConsumed } from './signal-store';

/**
 * Optimisation records and their problems' statuses. A record is written once (its id is a digest
 * of Focus, attempt, base version and candidate, so a repeat is a no-op) and read back through its
 * schema. A problem's status moves only through `moveProblems`, which applies one row of the
 * problem-status machine as a conditional write: a move already made (by a resumed run, a
 * redelivery or another replica) changes nothing, so nothing is lost or done twice. A move to a
 * final status (`optimized_verified`, `ineffective`) writes the problem's notification with it.
 */

export interface StoredRecord {
  record: OptimizationRecord;
  /** The tenants of the Focus's tickets ('' for a ticket no configured tenant owns). */
  tenants: string[];
  statuses: ProblemStatusEntry[];
}

const toStatus = (r: Record<string, unknown>): ProblemStatusEntry =>
  ProblemStatusEntry.parse({
    ref: String(r['ref']),
    status: r['status'],
    reason: String(r['reason']),
    recordedAt: isoValue(r['recorded_at']),
    deployedAt: isoOrNull(r['deployed_at']),
    decidedAt: isoOrNull(r['decided_at']),
    verification: r['verification'] === null || r['verification'] === undefined ? null : jsonValue<unknown>(r['verification']),
  });

/** Stores a record once (the same id again keeps the stored one) and returns the stored record. */
export async function saveRecord(m: EntityManager, record: OptimizationRecord, tenants: readonly string[], at: Date): Promise<OptimizationRecord> {
  await m.query(
    `INSERT INTO "optimizer"."optimization_records" ("record_id", "schema_version", "focus_id", "attempt", "candidate_digest", "base_version", "data_version", "signature", "tenants", "record", "created_at")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::text[], $10::jsonb, $11) ON CONFLICT ("record_id") DO NOTHING`,
    [record.recordId, record.schemaVersion, record.focus.focusId, record.focus.attempt, record.data.candidateDigest, record.data.baseVersion, record.data.dataVersion, record.applicability.signature, [...tenants], JSON.stringify(record), at],
  );
  const stored = await recordById(m, record.recordId);
  if (!stored) throw new Error(`optimization record ${record.recordId} was not stored`);
  return stored.record;
}

async function statusesOf(m: EntityManager, recordId: string): Promise<ProblemStatusEntry[]> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."problem_statuses" WHERE "record_id" = $1 ORDER BY "ref"`, [recordId]);
  return rows.map(toStatus);
}

async function toStored(m: EntityManager, r: Record<string, unknown>): Promise<StoredRecord> {
  const record = parseRecord(jsonValue<unknown>(r['record']), `optimization record ${String(r['record_id'])}`);
  // In the record's order of problems.
  const order = (ref: string) => record.problems.findIndex((p) => p.ref === ref);
  const statuses = (await statusesOf(m, record.recordId)).sort((a, b) => order(a.ref) - order(b.ref));
  return { record, tenants: (r['tenants'] as string[] | undefined) ?? [], statuses };
}

export async function recordById(m: EntityManager, recordId: string): Promise<StoredRecord | null> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."optimization_records" WHERE "record_id" = $1`, [recordId]);
  return rows[0] ? toStored(m, rows[0]) : null;
}

/** Every record with its statuses, newest first. */
export async function allRecords(m: EntityManager): Promise<StoredRecord[]> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."optimization_records" ORDER BY "created_at" DESC, "record_id"`);
  const out: StoredRecord[] = [];
  for (const r of rows) out.push(await toStored(m, r));
  return out;
}

/** Whether a principal confined to `tenant` (null: every tenant) sees a record: only when all its tickets are that tenant's. */
export const recordVisibleTo = (r: Pick<StoredRecord, 'tenants'>, tenant: string | null): boolean => tenant === null || (r.tenants.length === 1 && r.tenants[0] === tenant);

/** A reason per ref, or one for all. */
type Reason = string | ((ref: string) => string);

/**
 * Applies one row of the problem-status machine to the given refs of a record that are in `from`
 * (`none`: that have no status yet); returns the refs it moved. A (from, event) pair the machine
 * does not list throws before anything is written. A ref the row releases goes back to selection.
 */
export async function moveProblems(m: EntityManager, record: OptimizationRecord, refs: readonly string[], from: ProblemStatus | 'none', event: ProblemEvent, reason: Reason, at: Date, evidence: ReadonlyMap<string, VerificationEvidence> = new Map()): Promise<string[]> {
  const row = problemTransitionFor(from, event);
  const why = (ref: string) => (typeof reason === 'string' ? reason : reason(ref)).slice(0, 1000);
  const moved: string[] = [];
  for (const ref of refs) {
    const problem = record.problems.find((p) => p.ref === ref);
    if (!problem) throw new Error(`${ref} is not a problem of ${record.recordId}`);
    const verification = evidence.has(ref) ? JSON.stringify(evidence.get(ref)) : null;
    const rows: unknown[] =
      from === 'none'
        ? await m.query(
            `INSERT INTO "optimizer"."problem_statuses" ("record_id", "ref", "ticket_key", "signature", "status", "reason", "verification", "recorded_at", "updated_at")
             VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $8) ON CONFLICT ("record_id", "ref") DO NOTHING RETURNING "ref"`,
            [record.recordId, ref, problem.ticketKey, problem.signature, row.to, why(ref), verification, at],
          )
        : // Through a CTE: TypeORM returns [rows, count] for a bare UPDATE, plain rows for a SELECT.
          await m.query(
            `WITH moved AS (UPDATE "optimizer"."problem_statuses" SET "status" = $4, "reason" = $5, "verification" = coalesce($6::jsonb, "verification"), "updated_at" = $7${row.stamps && row.stamps !== 'recorded_at' ? `, "${row.stamps}" = $7` : ''}
             WHERE "record_id" = $1 AND "ref" = $2 AND "status" = $3 RETURNING "ref") SELECT "ref" FROM moved`,
            [record.recordId, ref, from, row.to, why(ref), verification, at],
          );
    if (rows.length > 0) moved.push(ref);
  }
  if (row.releasesRef) await releaseConsumed(m, moved);
  // A decided problem is a terminal result: its notification is written with the move, once (its id is the record's and the ref's).
  if (moved.length > 0 && PROBLEM_STATUS_MEANING[row.to].final && (row.to === 'optimized_verified' || row.to === 'ineffective')) {
    const to = row.to;
    const tenants: { tenants: string[] }[] = await m.query(`SELECT "tenants" FROM "optimizer"."optimization_records" WHERE "record_id" = $1`, [record.recordId]);
    for (const ref of moved) await enqueueNotification(m, problemDecidedNotification(record, ref, to, event, why(ref), evidence.get(ref) ?? null, tenants[0]?.tenants ?? [], at), at);
  }
  return moved;
}

/** The first answer version seen carrying a data version, if any. */
async function answerCarrying(m: EntityManager, dataVersion: string): Promise<{ runId: string; ticketKey: string } | null> {
  const rows: { run_id: string; ticket_key: string }[] = await m.query(`SELECT "run_id", "ticket_key" FROM "optimizer"."answer_versions" WHERE "data_version" = $1 ORDER BY "published_at", "run_id" LIMIT 1`, [dataVersion]);
  return rows[0] ? { runId: rows[0].run_id, ticketKey: rows[0].ticket_key } : null;
}

/**
 * Brings a record's statuses up to what is durable: every problem it names has a status
 * (`record_written`), and when an answer carrying its data version has been seen, its candidates
 * are deployed. Idempotent by record id: a crash between writing the record and moving its
 * statuses is completed by the next call, and a second call changes nothing.
 */
export async function settleRecord(m: EntityManager, record: OptimizationRecord, at: Date): Promise<void> {
  const refs = record.problems.map((p) => p.ref);
  await moveProblems(m, record, refs, 'none', 'record_written', 'recorded: the candidate is accepted and enqueued, not deployed', at);
  const seen = await answerCarrying(m, record.data.dataVersion);
  if (seen) await moveProblems(m, record, refs, 'candidate', 'deployed_version_seen', `deployed: answer ${seen.runId} of ${seen.ticketKey} carries ${record.data.dataVersion}`, at);
}

/** Settles every record whose statuses lag behind what is stored (a missing status, a deployment not applied); returns how many. */
export async function settleRecords(m: EntityManager, at: Date): Promise<number> {
  const rows: { record_id: string }[] = await m.query(
    `SELECT r."record_id" FROM "optimizer"."optimization_records" r
     WHERE (SELECT count(*) FROM "optimizer"."problem_statuses" p WHERE p."record_id" = r."record_id") < jsonb_array_length(r."record"->'problems')
        OR (EXISTS (SELECT 1 FROM "optimizer"."problem_statuses" p WHERE p."record_id" = r."record_id" AND p."status" = 'candidate')
            AND EXISTS (SELECT 1 FROM "optimizer"."answer_versions" a WHERE a."data_version" = r."data_version"))
     ORDER BY r."created_at", r."record_id"`,
  );
  for (const r of rows) {
    const stored = await recordById(m, r.record_id);
    if (stored) await settleRecord(m, stored.record, at);
  }
  return rows.length;
}

/** An answer version carrying `dataVersion` was stored: records producing that version are deployed. */
export async function observeDataVersion(m: EntityManager, dataVersion: string, at: Date): Promise<void> {
  const rows: { record_id: string }[] = await m.query(`SELECT "record_id" FROM "optimizer"."optimization_records" WHERE "data_version" = $1 ORDER BY "record_id"`, [dataVersion]);
  for (const r of rows) {
    const stored = await recordById(m, r.record_id);
    if (stored) await settleRecord(m, stored.record, at);
  }
}

/** Records with a problem deployed but not decided yet: what the verification replays. */
export async function recordsAwaitingVerification(m: EntityManager): Promise<StoredRecord[]> {
  const rows: Record<string, unknown>[] = await m.query(
    `SELECT * FROM "optimizer"."optimization_records" r WHERE EXISTS (SELECT 1 FROM "optimizer"."problem_statuses" p WHERE p."record_id" = r."record_id" AND p."status" = 'optimized_unverified') ORDER BY r."created_at", r."record_id"`,
  );
  const out: StoredRecord[] = [];
  for (const r of rows) out.push(await toStored(m, r));
  return out;
}

/** Every problem status with its record's data version (dedupe reads them). */
export async function recordedProblems(m: EntityManager): Promise<RecordedProblem[]> {
  const rows: Record<string, unknown>[] = await m.query(
    `SELECT p.*, r."data_version" FROM "optimizer"."problem_statuses" p JOIN "optimizer"."optimization_records" r ON r."record_id" = p."record_id" ORDER BY p."recorded_at", p."record_id", p."ref"`,
  );
  return rows.map((r) => ({
    recordId: String(r['record_id']),
    ref: String(r['ref']),
    ticketKey: String(r['ticket_key']),
    signature: String(r['signature']),
    status: toStatus({ ...r, verification: null }).status,
    recordedAt: isoValue(r['recorded_at']),
    decidedAt: isoOrNull(r['decided_at']),
    dataVersion: String(r['data_version']),
  }));
}

/** Every signal with the answer version it was seen on. */
async function signalAnswers(m: EntityManager): Promise<SignalAnswer[]> {
  const rows: Record<string, unknown>[] = await m.query(
    `SELECT s."ref", s."ticket_key", s."signature", a."run_id" AS "answer_run", a."data_version", a."published_at" FROM "optimizer"."signal_refs" s LEFT JOIN "optimizer"."answer_versions" a ON a."run_id" = s."source"->>'runId' ORDER BY s."ref"`,
  );
  return rows.map((r) => ({
    ref: String(r['ref']),
    ticketKey: String(r['ticket_key']),
    signature: String(r['signature']),
    answer: r['answer_run'] === null || r['answer_run'] === undefined ? null : { dataVersion: (r['data_version'] as string | null) ?? null, publishedAt: isoValue(r['published_at']) },
  }));
}

/** Ref -> why a record keeps it out of selection (see records/record-dedupe.ts). */
export async function recordBlockedRefs(m: EntityManager): Promise<Map<string, string>> {
  return blockedByRecords(await signalAnswers(m), await recordedProblems(m));
}

/** Candidates already recorded for this narrow problem on any of these tickets: a new Focus does not repeat them. */
export async function recordedCandidates(m: EntityManager, signature: string, tickets: readonly string[]): Promise<Set<string>> {
  const rows: { candidate_digest: string }[] = await m.query(
    `SELECT DISTINCT r."candidate_digest" FROM "optimizer"."optimization_records" r JOIN "optimizer"."problem_statuses" p ON p."record_id" = r."record_id" WHERE p."signature" = $1 AND p."ticket_key" = ANY($2::text[])`,
    [signature, [...tickets]],
  );
  return new Set(rows.map((r) => r.candidate_digest));
}
