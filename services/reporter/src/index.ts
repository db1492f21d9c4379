export { reporterDefinition, REPORTER_MIGRATIONS } from './reporter.definition';
export { RunSummaryQuery, type RunSummary } from './run-summary/run-summary.query';
export { ReporterTables } from './reporter.tables';
export { SqlReportsReader } from './reports/reports.query';
export { createReporterSchemaCopy, dropReporterSchemaCopy } from './reporter-schema-copy';
export * from './reports/report.types';
