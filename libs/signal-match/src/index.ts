export * from './signal-match';
