export { evidenceDefinition } from './evidence.definition';
