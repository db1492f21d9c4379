import type { EntityManager } from 'typeorm';
import type { SignalKind } from '../collect-signals/signal-refs';

/**
 * The optimizer-candidates feed: every stored problem signal (a bound `/ao wrong|revise`, a
 * `human_better` gap or difference, a runtime degradation) in the order it was first stored, paged
 * by its sequence number. The cursor is opaque to consumers (`c<sequence>`); one without a cursor
 * gets the current head and no items, so a first activation never backfills history.
 */

export interface FeedItem {
  seq: number;
  ref: string;
  kind: SignalKind;
  ticketKey: string;
  signature: string;
  statement: string;
  coverage: 'degraded' | 'failed' | null;
  runId: string;
  cutoff: string | null;
  firstSeenAt: string;
}

export const CURSOR = /^c(0|[1-9][0-9]{0,17})$/;
export const encodeCursor = (seq: number): string => `c${seq}`;
export const decodeCursor = (cursor: string): number => Number(cursor.slice(1));

/** The sequence number of the newest signal (0 when none); `tenant`: only that tenant's tickets count. */
export async function feedHead(m: EntityManager): Promise<number> {
  const rows: { head: string | null }[] = await m.query(`SELECT max("seq") AS "head" FROM "optimizer"."signal_refs"`);
  return Number(rows[0]?.head ?? 0);
}

const tenantClause = (n: number) => `EXISTS (SELECT 1 FROM "optimizer"."answer_versions" v WHERE v."ticket_key" = s."ticket_key" AND v."tenant" = $${n})`;

/** Signals after `seq`, oldest first, at most `limit`; `next` is the cursor after the last one read (tenant-filtered rows still move it). */
export async function feedAfter(m: EntityManager, seq: number, limit: number, tenant?: string): Promise<{ items: FeedItem[]; next: number }> {
  const rows: Record<string, unknown>[] = await m.query(`SELECT s.*, s."source"->>'runId' AS "run_id", s."source"->>'cutoff' AS "cutoff" FROM "optimizer"."signal_refs" s WHERE s."seq" > $1 ORDER BY s."seq" LIMIT $2`, [seq, limit]);
  const last = rows.length > 0 ? Number(rows[rows.length - 1]['seq']) : seq;
  let visible = rows;
  if (tenant !== undefined && rows.length > 0) {
    const allowed: { ref: string }[] = await m.query(`SELECT s."ref" FROM "optimizer"."signal_refs" s WHERE s."ref" = ANY($1::text[]) AND ${tenantClause(2)}`, [rows.map((r) => String(r['ref'])), tenant]);
    const ok = new Set(allowed.map((a) => a.ref));
    visible = rows.filter((r) => ok.has(String(r['ref'])));
  }
  return {
    next: last,
    items: visible.map((r) => ({
      seq: Number(r['seq']),
      ref: String(r['ref']),
      kind: String(r['kind']) as SignalKind,
      ticketKey: String(r['ticket_key']),
      signature: String(r['signature']),
      statement: String(r['statement']),
      coverage: (r['coverage'] as FeedItem['coverage']) ?? null,
      runId: String(r['run_id']),
      cutoff: (r['cutoff'] as string | null) ?? null,
      firstSeenAt: new Date(r['first_seen_at'] as string).toISOString(),
    })),
  };
}
