// Unit tests: no external services. `npm test`.
const preset = require('./jest.preset');
module.exports = {
  ...preset,
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/tools', '<rootDir>/deploy'],
  testMatch: ['**/*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '\\.integration-spec\\.ts$'],
};
