import { RuntimeModule, type RoleRuntime } from '@aoc/service-host';
import { Module, type DynamicModule } from '@nestjs/common';
import { AskEvidenceHandler } from './ask-evidence/ask-evidence.handler';
import { ConcludeScenarioHandler } from './conclude-scenario/conclude-scenario.handler';
import { IntakeController } from './intake/intake.controller';
import { TicketIntakeService } from './intake/ticket-intake.service';
import { ReconcileRunHandler } from './reconcile-run/reconcile-run.handler';
import { RouterBusController } from './router-bus.controller';
import { SelectScenariosHandler } from './select-scenarios/select-scenarios.handler';

@Module({})
export class RouterModule {
  static register(runtime: RoleRuntime): DynamicModule {
    return {
      module: RouterModule,
      imports: [RuntimeModule.forRoot(runtime)],
      controllers: [RouterBusController, IntakeController],
      providers: [TicketIntakeService, SelectScenariosHandler, AskEvidenceHandler, ConcludeScenarioHandler, ReconcileRunHandler],
      exports: [TicketIntakeService],
    };
  }
}
