export { providerExecutorDefinition } from './provider-executor.definition';
