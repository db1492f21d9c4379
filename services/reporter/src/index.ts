export { reporterDefinition } from './reporter.definition';
export { RunSummaryQuery, type RunSummary } from './run-summary/run-summary.query';
