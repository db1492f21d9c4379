import { DATA_SOURCE, LOGGER, PeriodicTask } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { DeadlineOptions } from '../router-options';
import { ROUTER_DEADLINES } from '../router.tokens';
import { WRITE_CLAIM_MS, WriteBackService } from './write-back.service';

/**
 * Write mode: writes each published answer back to its ticket once it is stored (and so fixed).
 * Driven by the runs table, not by a message, so a crash between the post and the record is
 * picked up again (the stale claim expires) and the same text finds the same comment.
 */
@Injectable()
export class WriteBackWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: PeriodicTask;

  constructor(
    private readonly writeBack: WriteBackService,
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(ROUTER_DEADLINES) private readonly deadlines: DeadlineOptions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.task = new PeriodicTask('write-back poll', logger);
  }

  onApplicationBootstrap(): void {
    // Write-back is part of publication: it polls at least once a second.
    if (this.writeBack.configured) this.task.start(Math.min(this.deadlines.sweepMs, 1000), () => this.drain());
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** Writes every published write-mode answer that has no comment yet; returns how many it wrote. */
  async drain(): Promise<number> {
    const pending: { run_id: string }[] = await this.dataSource.query(
      `SELECT "run_id" FROM "router"."runs" WHERE "mode" = 'write' AND "status" = 'published'
         AND ("write_back" IS NULL OR ("write_back"->>'status' = 'writing' AND ("write_back"->>'at')::timestamptz < $1))
       ORDER BY "published_at" LIMIT 20`,
      [new Date(Date.now() - WRITE_CLAIM_MS)],
    );
    let written = 0;
    for (const row of pending) {
      try {
        const done = await this.writeBack.writeRun(row.run_id, 'write-mode');
        if (done) {
          written += 1;
          if (done.state.status === 'failed') this.logger.warn('write-back failed', { runId: row.run_id, errorCode: done.state.errorCode });
        }
      } catch (error) {
        this.logger.warn('write-back failed', { runId: row.run_id, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return written;
  }
}
