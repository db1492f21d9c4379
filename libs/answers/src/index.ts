export * from './answer-fingerprint';
