import type { DataSource } from 'typeorm';
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
