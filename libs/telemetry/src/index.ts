export * from './start-telemetry';
export * from './trace-headers';
export * from './logger';
export * from './metrics';
export * from './aoc-metrics';
