import type { EntityManager } from 'typeorm';
import { CHECKPOINT_KINDS, parsePayload, type CheckpointKind, type CheckpointPayload } from './checkpoint-payloads';
import { isoValue, jsonValue } from './row-values';

/**
 * The append-only checkpoint log. A checkpoint is bound to the Focus digest, the base data
 * version, the attempt and the candidate digest; a step that already has its checkpoint is never
 * run again (the unique step index makes a repeat a no-op), so a crash at any point resumes from
 * what is stored. Payloads are parsed by kind on read and checked on write.
 */

interface CheckpointMeta {
  focusId: string;
  seq: number;
  focusDigest: string;
  baseVersion: string;
  attempt: number;
  candidateDigest: string | null;
  createdAt: string;
}

/** A checkpoint of kind K built from its parts (for the union of kinds, the union of checkpoints). */
type CheckpointRow<K extends CheckpointKind> = { [P in K]: CheckpointMeta & { kind: P; payload: CheckpointPayload<P> } }[K];
/** Any checkpoint; `kind` narrows its payload. */
export type Checkpoint = CheckpointRow<CheckpointKind>;
export type CheckpointOf<K extends CheckpointKind> = Extract<Checkpoint, { kind: K }>;
export type NewCheckpoint<K extends CheckpointKind> = Omit<CheckpointMeta, 'seq' | 'createdAt'> & { kind: K; payload: CheckpointPayload<K> };

function typed<K extends CheckpointKind>(meta: CheckpointMeta, kind: K, raw: unknown): CheckpointRow<K> {
  return { ...meta, kind, payload: parsePayload(kind, raw) };
}

function kindOf(value: unknown): CheckpointKind {
  const kind = CHECKPOINT_KINDS.find((k) => k === value);
  if (!kind) throw new Error(`unknown checkpoint kind ${String(value)}`);
  return kind;
}

function toCheckpoint(r: Record<string, unknown>): Checkpoint {
  const meta: CheckpointMeta = {
    focusId: String(r['focus_id']),
    seq: Number(r['seq']),
    focusDigest: String(r['focus_digest']),
    baseVersion: String(r['base_version']),
    attempt: Number(r['attempt']),
    candidateDigest: (r['candidate_digest'] as string | null) ?? null,
    createdAt: isoValue(r['created_at']),
  };
  return typed(meta, kindOf(r['kind']), jsonValue<unknown>(r['payload']));
}

/** Whether a checkpoint is of kind K (narrows its payload). */
export const isKind = <K extends CheckpointKind>(c: Checkpoint, kind: K): c is CheckpointOf<K> => c.kind === kind;

/** The checkpoints of one kind (of one attempt when given), in log order. */
export function ofKind<K extends CheckpointKind>(cps: readonly Checkpoint[], kind: K, attempt?: number): CheckpointOf<K>[] {
  return cps.filter((c): c is CheckpointOf<K> => isKind(c, kind) && (attempt === undefined || c.attempt === attempt));
}

/** The last checkpoint of a kind in an attempt. */
export const latest = <K extends CheckpointKind>(cps: readonly Checkpoint[], kind: K, attempt: number): CheckpointOf<K> | undefined => ofKind(cps, kind, attempt).at(-1);

/** Appends a checkpoint unless the same step is already recorded; returns the stored one either way. */
export async function appendCheckpoint<K extends CheckpointKind>(m: EntityManager, c: NewCheckpoint<K>, at: Date): Promise<CheckpointOf<K>> {
  const payload = parsePayload(c.kind, c.payload);
  // A concurrent append may take the same sequence number: try again with the next one.
  for (let tries = 0; tries < 5; tries += 1) {
    const existing = await findCheckpoint(m, c.focusId, c.kind, c.attempt, c.baseVersion, c.candidateDigest);
    if (existing) return existing;
    await insertCheckpoint(m, { ...c, payload }, at);
  }
  const found = await findCheckpoint(m, c.focusId, c.kind, c.attempt, c.baseVersion, c.candidateDigest);
  if (!found) throw new Error(`checkpoint ${c.kind} of ${c.focusId} was not stored`);
  return found;
}

async function insertCheckpoint(m: EntityManager, c: NewCheckpoint<CheckpointKind>, at: Date): Promise<void> {
  await m.query(
    `INSERT INTO "optimizer"."checkpoints" ("focus_id", "seq", "kind", "focus_digest", "base_version", "attempt", "candidate_digest", "payload", "created_at")
     SELECT $1, coalesce(max("seq"), 0) + 1, $2, $3, $4, $5, $6, $7::jsonb, $8 FROM "optimizer"."checkpoints" WHERE "focus_id" = $1
     ON CONFLICT DO NOTHING`,
    [c.focusId, c.kind, c.focusDigest, c.baseVersion, c.attempt, c.candidateDigest, JSON.stringify(c.payload), at],
  );
}

export async function findCheckpoint<K extends CheckpointKind>(m: EntityManager, focusId: string, kind: K, attempt: number, baseVersion: string, candidateDigest: string | null): Promise<CheckpointOf<K> | null> {
  const rows: Record<string, unknown>[] = await m.query(
    `SELECT * FROM "optimizer"."checkpoints" WHERE "focus_id" = $1 AND "kind" = $2 AND "attempt" = $3 AND "base_version" = $4 AND coalesce("candidate_digest", '') = coalesce($5, '')`,
    [focusId, kind, attempt, baseVersion, candidateDigest],
  );
  const found = rows[0] ? toCheckpoint(rows[0]) : null;
  return found && isKind(found, kind) ? found : null;
}

export async function checkpointsOf(m: EntityManager, focusId: string): Promise<Checkpoint[]> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."checkpoints" WHERE "focus_id" = $1 ORDER BY "seq"`, [focusId]);
  return rows.map(toCheckpoint);
}
