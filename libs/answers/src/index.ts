export * from './answer-fingerprint';
export * from './stored-fingerprint';
export * from './leading-mechanism';
