export * from './safe-html';
