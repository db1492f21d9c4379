import { RuntimeModule, type ServiceDefinition } from '@aoc/service-host';
import { Module } from '@nestjs/common';
import { DashboardController } from './dashboard/dashboard.controller';
import { ReporterInit1764400000000 } from './migrations/1764400000000-reporter-init.migration';
import { RecordRunHandler } from './record-run/record-run.handler';
import { ReporterBusController } from './reporter-bus.controller';
import { PublishedRunEntity, ReportedEvaluationEntity, RunExecutionEntity } from './reporter.entities';
import { RunSummaryController } from './run-summary/run-summary.controller';
import { RunSummaryQuery } from './run-summary/run-summary.query';

@Module({})
export class ReporterModule {}

export const reporterDefinition: ServiceDefinition = {
  role: 'reporter',
  publishes: [],
  entities: [PublishedRunEntity, RunExecutionEntity, ReportedEvaluationEntity],
  migrations: [ReporterInit1764400000000],
  module: (runtime) => ({
    module: ReporterModule,
    imports: [RuntimeModule.forRoot(runtime)],
    controllers: [ReporterBusController, RunSummaryController, DashboardController],
    providers: [RecordRunHandler, RunSummaryQuery],
    exports: [RunSummaryQuery],
  }),
  http: { defaultPort: 8085 },
};
