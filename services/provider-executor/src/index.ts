export { providerExecutorDefinition, createProviderExecutorDefinition } from './provider-executor.definition';
export { RecordingEntry, recordingKey, recordingEntry } from './evidence-recordings/evidence-recording';
export type { ExecutorOptions } from './providers/executor-options';
export { loadRecordings, BUNDLED_RECORDINGS, PrometheusTargetConfig } from './providers/executor-options';
