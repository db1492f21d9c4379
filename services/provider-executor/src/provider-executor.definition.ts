import { Topics } from '@aoc/contracts';
import { RuntimeModule, type ServiceDefinition } from '@aoc/service-host';
import { Module } from '@nestjs/common';
import { BatchExecutionEntity } from './batch-execution.entity';
import { ExecuteBatchHandler } from './execute-batch/execute-batch.handler';
import { ProviderExecutorInit1764400000000 } from './migrations/1764400000000-provider-executor-init.migration';
import { ProviderExecutorBusController } from './provider-executor-bus.controller';

@Module({})
export class ProviderExecutorModule {}

export const providerExecutorDefinition: ServiceDefinition = {
  role: 'provider-executor',
  publishes: [Topics.evidenceBatchMaterialized],
  entities: [BatchExecutionEntity],
  migrations: [ProviderExecutorInit1764400000000],
  module: (runtime) => ({
    module: ProviderExecutorModule,
    imports: [RuntimeModule.forRoot(runtime)],
    controllers: [ProviderExecutorBusController],
    providers: [ExecuteBatchHandler],
  }),
};
