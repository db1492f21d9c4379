import { LOGGER, PeriodicTask } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import { Inject, Injectable, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ROUTER_COLLECTOR } from '../router.tokens';
import { DEFAULT_COLLECTOR, type CollectorOptions } from './collector-options';
import { TimelineCollector } from './timeline-collector.service';

/** Runs a collector cycle every `cycleMs` while a ticket source is configured and the collector is on. */
@Injectable()
export class TimelineCollectorWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: PeriodicTask;

  constructor(
    private readonly collector: TimelineCollector,
    @Inject(LOGGER) logger: Logger,
    @Optional() @Inject(ROUTER_COLLECTOR) private readonly options: CollectorOptions = DEFAULT_COLLECTOR,
  ) {
    this.task = new PeriodicTask('timeline collector', logger);
  }

  onApplicationBootstrap(): void {
    if (this.collector.configured && this.options.enabled) this.task.start(this.options.cycleMs, () => this.collector.collect({ limit: this.options.batch }));
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }
}
