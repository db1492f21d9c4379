import type { ModelPort } from '@aoc/agent-runtime';
import { TENANCY, tenancyFromEnv, type Tenancy } from '@aoc/auth';
import { RuntimeModule, type RoleRuntime } from '@aoc/service-host';
import { TICKET_SOURCE, type TicketSource } from '@aoc/ticket-source';
import { Module, type DynamicModule } from '@nestjs/common';
import { AskEvidenceHandler } from './ask-evidence/ask-evidence.handler';
import { ConcludeScenarioHandler } from './conclude-scenario/conclude-scenario.handler';
import { DeadlineSweeper } from './deadlines/deadline-sweeper';
import { IntakeController } from './intake/intake.controller';
import { TicketIntakeService } from './intake/ticket-intake.service';
import { ReconcileRunHandler } from './reconcile-run/reconcile-run.handler';
import { RouterBusController } from './router-bus.controller';
import { ROUTER_MODEL } from './router-model';
import type { DeadlineOptions } from './router-options';
import { ROUTER_COLLECTOR, ROUTER_DEADLINES } from './router.tokens';
import type { CollectorOptions } from './collect-timelines/collector-options';
import { TimelineCollector } from './collect-timelines/timeline-collector.service';
import { TimelineCollectorWorker } from './collect-timelines/timeline-collector.worker';
import { TimelinesController } from './collect-timelines/timelines.controller';
import { SelectScenariosHandler } from './select-scenarios/select-scenarios.handler';
import { WriteBackWorker } from './write-back/write-back.worker';
import { WriteBackService } from './write-back/write-back.service';

export interface RouterModuleOptions {
  model: ModelPort;
  deadlines: DeadlineOptions;
  ticketSource: TicketSource | null;
  collector: CollectorOptions;
  /** Tenants bound to ticket projects and targets; default: `AOC_TENANTS` (unset: one tenant). */
  tenancy?: Tenancy;
}

@Module({})
export class RouterModule {
  static register(runtime: RoleRuntime, options: RouterModuleOptions): DynamicModule {
    return {
      module: RouterModule,
      imports: [RuntimeModule.forRoot(runtime)],
      controllers: [RouterBusController, IntakeController, TimelinesController],
      providers: [
        TicketIntakeService,
        SelectScenariosHandler,
        AskEvidenceHandler,
        ConcludeScenarioHandler,
        ReconcileRunHandler,
        WriteBackService,
        WriteBackWorker,
        DeadlineSweeper,
        TimelineCollector,
        TimelineCollectorWorker,
        { provide: ROUTER_COLLECTOR, useValue: options.collector },
        { provide: ROUTER_MODEL, useValue: options.model },
        { provide: ROUTER_DEADLINES, useValue: options.deadlines },
        { provide: TENANCY, useValue: options.tenancy ?? tenancyFromEnv() },
        { provide: TICKET_SOURCE, useValue: options.ticketSource },
      ],
      exports: [TicketIntakeService, DeadlineSweeper, TimelineCollector],
    };
  }
}
