export * from './start-telemetry';
export * from './trace-headers';
export * from './logger';
