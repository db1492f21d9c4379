import { Topics } from '@aoc/contracts';
import { RuntimeModule, type ServiceDefinition } from '@aoc/service-host';
import { Module } from '@nestjs/common';
import { CollectSignalsHandler } from './collect-signals/collect-signals.handler';
import { OptimizerInit1764400000000 } from './migrations/1764400000000-optimizer-init.migration';
import { OptimizerFocus1765300000000 } from './migrations/1765300000000-optimizer-focus.migration';
import { OptimizerBusController } from './optimizer-bus.controller';

@Module({})
export class OptimizerModule {}

export const optimizerDefinition: ServiceDefinition = {
  role: 'optimizer',
  publishes: [Topics.optimizerCandidateEnqueued, Topics.ticketAnalysisRequested],
  // Raw SQL through one store (persistence/): no entity classes.
  entities: [],
  migrations: [OptimizerInit1764400000000, OptimizerFocus1765300000000],
  module: (runtime) => ({
    module: OptimizerModule,
    imports: [RuntimeModule.forRoot(runtime)],
    controllers: [OptimizerBusController],
    providers: [CollectSignalsHandler],
  }),
};
