export * from './all-services';
export * from './embedded-platform';
export * from './run-example';
export * from './examples/example-series';
