import { TENANCY, tenancyFromEnv } from '@aoc/auth';
import { Topics } from '@aoc/contracts';
import { RuntimeModule, type ServiceDefinition } from '@aoc/service-host';
import { Module } from '@nestjs/common';
import { CollectSignalsHandler } from './collect-signals/collect-signals.handler';
import { FocusDashboardController } from './dashboard/focus-dashboard.controller';
import { OptimizerInit1764400000000 } from './migrations/1764400000000-optimizer-init.migration';
import { OptimizerFocus1765300000000 } from './migrations/1765300000000-optimizer-focus.migration';
import { OptimizerVerdicts1765400000000 } from './migrations/1765400000000-optimizer-verdicts.migration';
import { OptimizerQuestionDigest1765500000000 } from './migrations/1765500000000-optimizer-question-digest.migration';
import { OptimizerParkedExecutions1765600000000 } from './migrations/1765600000000-optimizer-parked-executions.migration';
import { OptimizerVersionQuestion1765700000000 } from './migrations/1765700000000-optimizer-version-question.migration';
import { OptimizerHttpAudit1766000000000 } from './migrations/1766000000000-optimizer-http-audit.migration';
import { OptimizerTenants1766100000000 } from './migrations/1766100000000-optimizer-tenants.migration';
import { OptimizerRecords1766400000000 } from './migrations/1766400000000-optimizer-records.migration';
import { OptimizerNotifications1766500000000 } from './migrations/1766500000000-optimizer-notifications.migration';
import { OptimizerSingleTicket1766700000000 } from './migrations/1766700000000-optimizer-single-ticket.migration';
import { OptimizerCandidatesController } from './dashboard/optimizer-candidates.controller';
import { SingleTicketController } from './dashboard/single-ticket.controller';
import { NotificationsController } from './dashboard/notifications.controller';
import { RecordPagesController } from './dashboard/record-pages.controller';
import { RecordsController } from './dashboard/records.controller';
import { NotificationWorker } from './notifications/notification.worker';
import { OptimizerBusController } from './optimizer-bus.controller';
import type { Schedule } from './schedule/optimizer-schedule';
import { SchedulerHost, type SchedulerPorts } from './schedule/scheduler-host';

@Module({})
export class OptimizerModule {}

export interface OptimizerDefinitionOptions {
  /** Scheduled mode: the ports it needs and the slots it runs at (without: the service only collects signals). */
  scheduler?: { ports: SchedulerPorts; schedule: Schedule };
}

export function createOptimizerDefinition(options: OptimizerDefinitionOptions = {}): ServiceDefinition {
  const scheduler = options.scheduler;
  return {
    role: 'optimizer',
    publishes: [Topics.optimizerCandidateEnqueued],
    // Raw SQL through one store (persistence/): no entity classes.
    entities: [],
    migrations: [OptimizerInit1764400000000, OptimizerFocus1765300000000, OptimizerVerdicts1765400000000, OptimizerQuestionDigest1765500000000, OptimizerParkedExecutions1765600000000, OptimizerVersionQuestion1765700000000, OptimizerHttpAudit1766000000000, OptimizerTenants1766100000000, OptimizerRecords1766400000000, OptimizerNotifications1766500000000, OptimizerSingleTicket1766700000000],
    // The Focus pages and JSON, the optimisation records, problem statuses, notifications and the weekly attribution (read-only) when hosted alone.
    http: { defaultPort: 8086 },
    module: (runtime) => ({
      module: OptimizerModule,
      imports: [RuntimeModule.forRoot(runtime)],
      controllers: [OptimizerBusController, FocusDashboardController, RecordsController, RecordPagesController, NotificationsController, SingleTicketController, OptimizerCandidatesController],
      // The webhook sender runs wherever the role is hosted (it does nothing without a webhook).
      providers: [CollectSignalsHandler, NotificationWorker, { provide: TENANCY, useFactory: () => tenancyFromEnv() }, ...(scheduler ? [{ provide: SchedulerHost, useFactory: () => new SchedulerHost(runtime, scheduler.ports, scheduler.schedule) }] : [])],
    }),
  };
}

export const optimizerDefinition: ServiceDefinition = createOptimizerDefinition();
