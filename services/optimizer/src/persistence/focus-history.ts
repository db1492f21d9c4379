import type { EntityManager } from 'typeorm';
import type { FocusStatus, TransitionOutcome } from '../focus/focus-machine';
import { isoValue } from './row-values';

/**
 * The path each Focus took through the state machine: one row per transition, written by
 * `transition` (and `openFocus`) in the transaction that moves it. Focuses moved before the
 * history existed have none; their path is inferred from their checkpoints (`focus/focus-path.ts`).
 */

export interface FocusHistoryEntry {
  from: FocusStatus | 'none';
  outcome: TransitionOutcome;
  to: FocusStatus;
  reason: string | null;
  at: string;
}

export async function appendFocusHistory(m: EntityManager, focusId: string, entry: Omit<FocusHistoryEntry, 'at'>, at: Date): Promise<void> {
  await m.query(`INSERT INTO "optimizer"."focus_transitions" ("focus_id", "from_status", "outcome", "to_status", "reason", "at") VALUES ($1, $2, $3, $4, $5, $6)`, [focusId, entry.from, entry.outcome, entry.to, entry.reason?.slice(0, 1000) ?? null, at]);
}

/** The Focus's entry into the machine, once (a repeated `openFocus` of the same id writes nothing). */
export async function appendFocusEntry(m: EntityManager, focusId: string, entry: Omit<FocusHistoryEntry, 'at' | 'from'>, at: Date): Promise<void> {
  await m.query(
    `INSERT INTO "optimizer"."focus_transitions" ("focus_id", "from_status", "outcome", "to_status", "reason", "at")
     SELECT $1, 'none', $2, $3, $4, $5 WHERE NOT EXISTS (SELECT 1 FROM "optimizer"."focus_transitions" WHERE "focus_id" = $1 AND "from_status" = 'none')`,
    [focusId, entry.outcome, entry.to, entry.reason?.slice(0, 1000) ?? null, at],
  );
}

export async function focusHistory(m: EntityManager, focusId: string): Promise<FocusHistoryEntry[]> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT * FROM "optimizer"."focus_transitions" WHERE "focus_id" = $1 ORDER BY "id"`, [focusId]);
  return rows.map((r) => ({ from: String(r['from_status']) as FocusHistoryEntry['from'], outcome: String(r['outcome']) as TransitionOutcome, to: String(r['to_status']) as FocusStatus, reason: (r['reason'] as string | null) ?? null, at: isoValue(r['at']) }));
}
