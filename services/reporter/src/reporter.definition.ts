import { TENANCY, tenancyFromEnv } from '@aoc/auth';
import { ReporterEvaluationRevisions1765200000000 } from './migrations/1765200000000-reporter-evaluation-revisions.migration';
import { ReporterToolCalls1765100000000 } from './migrations/1765100000000-reporter-tool-calls.migration';
import { ReporterAbstentionCode1765000000000 } from './migrations/1765000000000-reporter-abstention-code.migration';
import { DATA_SOURCE, RuntimeModule, type ServiceDefinition } from '@aoc/service-host';
import { Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { DashboardController } from './dashboard/dashboard.controller';
import { ReporterInit1764400000000 } from './migrations/1764400000000-reporter-init.migration';
import { ReporterReadModels1764500000000 } from './migrations/1764500000000-reporter-read-models.migration';
import { ReporterHttpAudit1766000000000 } from './migrations/1766000000000-reporter-http-audit.migration';
import { ReporterRunTenant1766100000000 } from './migrations/1766100000000-reporter-run-tenant.migration';
import { ReporterEvaluationEligibility1766200000000 } from './migrations/1766200000000-reporter-evaluation-eligibility.migration';
import { ReporterEvaluationCrossCheck1766300000000 } from './migrations/1766300000000-reporter-evaluation-cross-check.migration';
import { ProjectAnswersHandler } from './project-answers/project-answers.handler';
import { RecordRunHandler } from './record-run/record-run.handler';
import { RecordTimelineHandler } from './record-timeline/record-timeline.handler';
import { ReporterBusController } from './reporter-bus.controller';
import { REPORTER_ENTITIES } from './reporter.entities';
import { ReporterTables } from './reporter.tables';
import { REPORTS_READER } from './reports/report.types';
import { ReportsController } from './reports/reports.controller';
import { SqlReportsReader } from './reports/reports.query';
import { RunSummaryController } from './run-summary/run-summary.controller';
import { RunSummaryQuery } from './run-summary/run-summary.query';

@Module({})
export class ReporterModule {}

export const REPORTER_MIGRATIONS = [ReporterInit1764400000000, ReporterReadModels1764500000000, ReporterAbstentionCode1765000000000, ReporterToolCalls1765100000000, ReporterEvaluationRevisions1765200000000, ReporterHttpAudit1766000000000, ReporterRunTenant1766100000000, ReporterEvaluationEligibility1766200000000, ReporterEvaluationCrossCheck1766300000000];

export const reporterDefinition: ServiceDefinition = {
  role: 'reporter',
  publishes: [],
  entities: REPORTER_ENTITIES,
  migrations: REPORTER_MIGRATIONS,
  module: (runtime) => ({
    module: ReporterModule,
    imports: [RuntimeModule.forRoot(runtime)],
    controllers: [ReporterBusController, RunSummaryController, ReportsController, DashboardController],
    providers: [
      { provide: ReporterTables, useValue: new ReporterTables(runtime.schema) },
      ProjectAnswersHandler,
      RecordRunHandler,
      RecordTimelineHandler,
      RunSummaryQuery,
      { provide: TENANCY, useFactory: () => tenancyFromEnv() },
      {
        provide: REPORTS_READER,
        useFactory: (dataSource: DataSource, tables: ReporterTables) => new SqlReportsReader(dataSource, tables),
        inject: [DATA_SOURCE, ReporterTables],
      },
    ],
    exports: [RunSummaryQuery, REPORTS_READER],
  }),
  http: { defaultPort: 8085 },
};
