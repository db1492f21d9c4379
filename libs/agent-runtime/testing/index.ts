// @aoc/agent-runtime/testing: test-only helpers, kept out of the production entry point (src/index.ts).
// Specs, integration specs, benches and test harnesses import them from here; ESLint rejects this
// import anywhere else (see eslint.config.mjs).
export * from '../src/testing/fake-chat-completions.server';
