// Broker ACL suite on the real local broker (start it first: bash deploy/local/kafka-start.sh).
//   npx jest --config deploy/test/jest.config.js
// The root integration config (jest.integration.config.js, `**/*.integration-spec.ts`) picks up
// the same file; this config only needs @swc/jest and no global setup.
const path = require('node:path');

module.exports = {
  rootDir: path.join(__dirname, '..', '..'),
  roots: ['<rootDir>/deploy'],
  testMatch: ['**/*.integration-spec.ts'],
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        swcrc: false,
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 60_000,
};
