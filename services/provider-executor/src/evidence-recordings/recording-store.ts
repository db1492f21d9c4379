import type { DataSource, EntityManager } from 'typeorm';
import { EvidenceRecordingEntity } from '../persistence/execution-records.entities';
import type { RecordingStore } from '../execute-batch/execute-batch';
import { RecordingEntry } from './evidence-recording';

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

/** Keeps sanitised results for replay (record mode); a key already recorded keeps its first result. */
export async function storeRecordings(manager: EntityManager, entries: readonly RecordingEntry[], at: Date): Promise<void> {
  for (const r of entries) {
    await manager.query(`INSERT INTO "provider_executor"."evidence_recordings" ("key", "entry", "recorded_at") VALUES ($1, $2::jsonb, $3) ON CONFLICT ("key") DO NOTHING`, [r.key, JSON.stringify(r), at]);
  }
}
