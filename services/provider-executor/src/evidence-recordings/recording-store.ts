import type { DataSource, EntityManager } from 'typeorm';
import { EvidenceRecordingEntity } from '../persistence/execution-records.entities';
import type { RecordingStore } from '../execute-batch/execute-batch';
import { RecordingEntry } from './evidence-recording';
import { DEFAULT_RECORDING_POLICY, type RecordingPolicy } from './recording-policy';

/** Bundled recordings (shipped with the examples) first, then what this deployment recorded. */
export class LayeredRecordingStore implements RecordingStore {
  private readonly bundled: Map<string, RecordingEntry>;

  constructor(
    bundled: readonly RecordingEntry[],
    private readonly dataSource: DataSource | null,
  ) {
    this.bundled = new Map(bundled.map((e) => [e.key, e]));
  }

  async get(key: string): Promise<RecordingEntry | undefined> {
    const hit = this.bundled.get(key);
    if (hit) return hit;
    if (!this.dataSource) return undefined;
    const row = await this.dataSource.manager.findOne(EvidenceRecordingEntity, { where: { key } });
    if (!row) return undefined;
    const parsed = RecordingEntry.safeParse(row.entry);
    return parsed.success ? parsed.data : undefined;
  }
}

export interface StoreOutcome {
  stored: number;
  /** Results left out: the run's or the store's size cap was reached (the answer is unaffected; a replay of that query misses). */
  skipped: { key: string; reason: 'run_cap' | 'total_cap' }[];
}

const TABLE = `"provider_executor"."evidence_recordings"`;

/**
 * Keeps sanitised results for replay, within the policy's caps: a key already recorded keeps its
 * first result; a result that would take the run or the store over its cap is skipped. The caps
 * are read inside the writing transaction, so concurrent writers can exceed them by at most one
 * batch each.
 */
export async function storeRecordings(manager: EntityManager, entries: readonly RecordingEntry[], at: Date, runId: string, policy: RecordingPolicy = DEFAULT_RECORDING_POLICY): Promise<StoreOutcome> {
  const outcome: StoreOutcome = { stored: 0, skipped: [] };
  if (entries.length === 0) return outcome;
  const [usage]: { run: string; total: string }[] = await manager.query(`SELECT coalesce(sum("bytes") FILTER (WHERE "run_id" = $1), 0) AS "run", coalesce(sum("bytes"), 0) AS "total" FROM ${TABLE}`, [runId]);
  let run = Number(usage?.run ?? 0);
  let total = Number(usage?.total ?? 0);
  for (const r of entries) {
    const json = JSON.stringify(r);
    const bytes = Buffer.byteLength(json, 'utf8');
    if (run + bytes > policy.maxRunBytes) {
      outcome.skipped.push({ key: r.key, reason: 'run_cap' });
      continue;
    }
    if (total + bytes > policy.maxTotalBytes) {
      outcome.skipped.push({ key: r.key, reason: 'total_cap' });
      continue;
    }
    const inserted: unknown[] = await manager.query(`INSERT INTO ${TABLE} ("key", "entry", "recorded_at", "run_id", "bytes") VALUES ($1, $2::jsonb, $3, $4, $5) ON CONFLICT ("key") DO NOTHING RETURNING "key"`, [r.key, json, at, runId, bytes]);
    if (inserted.length === 0) continue;
    outcome.stored += 1;
    run += bytes;
    total += bytes;
  }
  return outcome;
}

/** The retention delete: recordings older than `retentionDays` go (their cases then replay with the evidence missing). */
export async function deleteExpiredRecordings(manager: EntityManager, retentionDays: number, now: Date): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * 86_400_000);
  const rows: unknown[] = await manager.query(`WITH gone AS (DELETE FROM ${TABLE} WHERE "recorded_at" < $1 RETURNING "key") SELECT "key" FROM gone`, [before]);
  return rows.length;
}
