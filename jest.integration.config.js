// Integration suites: real Kafka (deploy/local/kafka-start.sh) and real Postgres (DATABASE_URL).
const preset = require('./jest.preset');
module.exports = {
  ...preset,
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/tools', '<rootDir>/deploy'],
  testMatch: ['**/*.integration-spec.ts'],
  testTimeout: 120000,
  globalSetup: '<rootDir>/tools/integration-global-setup.js',
};
