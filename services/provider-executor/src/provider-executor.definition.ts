import { ProviderExecutorToolCalls1765000000000 } from './migrations/1765000000000-provider-executor-tool-calls.migration';
import { ProviderExecutorRecordingRetention1766300000000 } from './migrations/1766300000000-provider-executor-recording-retention.migration';
import { Topics } from '@aoc/contracts';
import type { EvidencePackage } from '@aoc/providers';
import { RuntimeModule, type ServiceDefinition } from '@aoc/service-host';
import { Module } from '@nestjs/common';
import { BatchExecutionEntity } from './batch-execution.entity';
import { DiscoverMetricsHandler } from './discover-metrics/discover-metrics.handler';
import { RecordingRetention } from './evidence-recordings/recording-retention';
import { ExecuteBatchHandler } from './execute-batch/execute-batch.handler';
import { InventoryPublisher } from './list-inventory/inventory-publisher';
import { ProviderExecutorInit1764400000000 } from './migrations/1764400000000-provider-executor-init.migration';
import { ProviderExecutorRecords1764500000000 } from './migrations/1764500000000-provider-executor-records.migration';
import { ProviderExecutorBrowserState1764600000000 } from './migrations/1764600000000-provider-executor-browser-state.migration';
import { configuredPackages } from './providers/provider-packages';
import { EvidenceRecordingEntity, ProviderHttpAttemptEntity, ProviderQueryAttemptEntity, ProviderQueryEventEntity, ProviderSystemEventEntity, ToolCallEntity } from './persistence/execution-records.entities';
import { ProviderExecutorBusController } from './provider-executor-bus.controller';
import { executorOptionsFromEnv, type ExecutorOptions } from './providers/executor-options';
import { ProviderRegistry } from './providers/provider-registry';
import { EXECUTOR_OPTIONS, PROVIDER_REGISTRY } from './providers/tokens';

@Module({})
export class ProviderExecutorModule {}

/** Builds the executor's definition; options default to the environment (parsed once). */
export function createProviderExecutorDefinition(options?: Partial<ExecutorOptions>, packages: readonly EvidencePackage[] = []): ServiceDefinition {
  let resolved: ExecutorOptions | null = null;
  const resolve = (): ExecutorOptions => (resolved ??= { ...executorOptionsFromEnv(), ...options });
  return {
    role: 'provider-executor',
    management: { defaultPort: 8093 },
    publishes: [Topics.evidenceBatchMaterialized, Topics.evidenceCatalogListed, Topics.providerInventoryListed],
    entities: [BatchExecutionEntity, ProviderQueryAttemptEntity, ProviderQueryEventEntity, ProviderHttpAttemptEntity, ProviderSystemEventEntity, EvidenceRecordingEntity, ToolCallEntity],
    migrations: [ProviderExecutorInit1764400000000, ProviderExecutorRecords1764500000000, ProviderExecutorBrowserState1764600000000, ProviderExecutorToolCalls1765000000000, ProviderExecutorRecordingRetention1766300000000],
    module: (runtime) => {
      const opts = resolve();
      return {
        module: ProviderExecutorModule,
        imports: [RuntimeModule.forRoot(runtime)],
        controllers: [ProviderExecutorBusController],
        providers: [
          ExecuteBatchHandler,
          DiscoverMetricsHandler,
          InventoryPublisher,
          RecordingRetention,
          { provide: EXECUTOR_OPTIONS, useValue: opts },
          { provide: PROVIDER_REGISTRY, useValue: new ProviderRegistry(opts, [...configuredPackages(opts, runtime.dataSource, runtime.schema), ...packages]) },
        ],
      };
    },
  };
}

export const providerExecutorDefinition: ServiceDefinition = createProviderExecutorDefinition();
