export * from './all-services';
export * from './embedded-platform';
export * from './run-example';
