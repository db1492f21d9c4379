export * from './role-runtime';
export * from './runtime.module';
export * from './service-definition';
export * from './boot-role';
export * from './transport-factory';
export * from './run-service-process';
export * from './periodic-task';
