export * from './start-telemetry';
export * from './trace-headers';
