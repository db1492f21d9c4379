import { Topics } from '@aoc/contracts';
import type { ServiceDefinition } from '@aoc/service-host';
import { RouterInit1764400000000 } from './migrations/1764400000000-router-init.migration';
import { RunEntity } from './persistence/run.entity';
import { ScenarioThreadEntity } from './persistence/scenario-thread.entity';
import { RouterModule } from './router.module';

export const routerDefinition: ServiceDefinition = {
  role: 'router',
  publishes: [
    Topics.ticketAnalysisRequested,
    Topics.ticketTimelineUpdated,
    Topics.scenarioSelected,
    Topics.evidenceRequested,
    Topics.diagnosisHandoffConsumed,
    Topics.runPublished,
    Topics.runExecutionRecorded,
  ],
  entities: [RunEntity, ScenarioThreadEntity],
  migrations: [RouterInit1764400000000],
  module: (runtime) => RouterModule.register(runtime),
  http: { defaultPort: 8080 },
};
