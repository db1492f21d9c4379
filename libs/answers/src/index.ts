export * from './answer-fingerprint';
export * from './stored-fingerprint';
