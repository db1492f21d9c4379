import { PeriodicTask } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';

/** A pass the executor runs at start and then every `intervalMs()`, one at a time, stopped with the service. */
export abstract class PeriodicPass implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: PeriodicTask;

  protected constructor(name: string, logger: Logger) {
    this.task = new PeriodicTask(name, logger);
  }

  protected abstract intervalMs(): number;
  protected abstract pass(): Promise<unknown>;

  onApplicationBootstrap(): void {
    this.task.start(this.intervalMs(), () => this.pass(), { immediately: true });
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }
}
