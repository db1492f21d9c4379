import { DATA_SOURCE, LOGGER, PeriodicTask } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { webhookFromEnv, type Webhook } from './notification-config';
import { WebhookSender } from './webhook-sender';

/**
 * Runs the webhook sender in every process that hosts the optimizer role, when a webhook is
 * configured (a bad setting fails the boot naming the key; no webhook: it does nothing and the
 * results are recorded as `not_configured`). Driven by the outbox table, not by a message, so a
 * notification written by a process that stopped is sent by the next one.
 */
@Injectable()
export class NotificationWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: PeriodicTask;
  private readonly webhook: Webhook | null;
  private sender: WebhookSender | null = null;

  constructor(
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.task = new PeriodicTask('optimizer notifications', logger);
    this.webhook = webhookFromEnv();
  }

  onApplicationBootstrap(): void {
    if (!this.webhook) return;
    const sender = new WebhookSender(this.dataSource, this.webhook);
    this.sender = sender;
    this.logger.info('optimizer notifications: sending to a webhook', { origin: sender.origin, maxAttempts: this.webhook.maxAttempts, timeoutMs: this.webhook.timeoutMs });
    this.task.start(
      this.webhook.pollMs,
      async () => {
        const pass = await sender.deliverDue();
        if (pass.gaveUp > 0) this.logger.warn('optimizer notifications given up', { gaveUp: pass.gaveUp });
      },
      { immediately: true },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
    await this.sender?.close();
  }
}
