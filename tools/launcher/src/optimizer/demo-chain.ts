// The chain's modules in one place, for callers that must load them only after the demo deployment
// is set (they read the versioned data at load): `await import('./demo-chain')`. A dynamic import of
// a relative module keeps the libraries statically imported, as the module boundaries require.
export { FocusController, FocusIteration } from '@aoc/service-optimizer';
export { loadRecordings } from '@aoc/service-provider-executor';
export { startPlatform } from '../embedded-platform';
export { OPTIMIZER_DEMO_RECORDINGS, OPTIMIZER_DEMO_TICKETS } from '../examples/example-series';
export { loadExample, runExample } from '../run-example';
export { localOptimizerPorts, optimizerTransact } from './local-optimizer';
