export * from './model-port';
export * from './model.errors';
export * from './agent-runtime.config';
export * from './agent-runtime';
export * from './builtin/builtin.engine';
export * from './openai/openai-chat.engine';
export * from './openai/strict-json-schema';
export * from './invoke-or-fallback';
