export * from './versioned-data';
export * from './manifest';
export * from './candidate-diff';
