export { optimizerDefinition } from './optimizer.definition';
