// @aoc/providers/testing: test-only peers and fixtures, kept out of the production entry point
// (src/index.ts). Specs, integration specs, benches and test harnesses (example recording) import
// them from here; ESLint rejects this import anywhere else (see eslint.config.mjs).
export * from '../src/testing/real-prometheus';
export * from '../src/testing/clinic-api';
export * from '../src/testing/grafana-dashboard';
