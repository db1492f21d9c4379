export * from './audit';
export * from './audit.controller';
export * from './edge-checks';
export * from './install-edge';
export * from './problem';
export * from './problem.filter';
export * from './sign-in.controller';
export * from './sign-in.page';
