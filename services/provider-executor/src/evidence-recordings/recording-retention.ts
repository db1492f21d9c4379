import { DATA_SOURCE, LOGGER } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { PeriodicPass } from '../periodic-pass';
import type { ExecutorOptions } from '../providers/executor-options';
import { EXECUTOR_OPTIONS } from '../providers/tokens';
import { DEFAULT_RECORDING_POLICY } from './recording-policy';
import { deleteExpiredRecordings } from './recording-store';

/** Hourly is plenty for a retention counted in days; the delete is idempotent, so replicas may overlap. */
const SWEEP_MS = 3_600_000;

/** The scheduled retention delete of evidence recordings: at start, then hourly. */
@Injectable()
export class RecordingRetention extends PeriodicPass {
  constructor(
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(EXECUTOR_OPTIONS) private readonly options: ExecutorOptions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super('evidence recording retention', logger);
  }

  protected intervalMs(): number {
    return SWEEP_MS;
  }

  protected pass(): Promise<number> {
    return this.sweepOnce();
  }

  /** One retention pass; resolves with how many recordings it deleted. */
  async sweepOnce(now: Date = new Date()): Promise<number> {
    const days = (this.options.recording ?? DEFAULT_RECORDING_POLICY).retentionDays;
    const deleted = await deleteExpiredRecordings(this.dataSource.manager, days, now);
    if (deleted > 0) this.logger.info('evidence recordings past retention deleted', { deleted, retentionDays: days });
    return deleted;
  }
}
