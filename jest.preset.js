// Shared jest settings: SWC with decorator metadata so NestJS DI works in tests.
// NestJS 12 ships ES modules only; jest runs CommonJS, so @nestjs (and its ESM-only helpers)
// are transformed too. Node itself loads them natively through require(esm).
const fs = require('node:fs');
const path = require('node:path');
const swcrc = JSON.parse(fs.readFileSync(path.join(__dirname, '.swcrc'), 'utf8'));
delete swcrc.$schema;

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.(ts|js|mjs)$': ['@swc/jest', { ...swcrc, swcrc: false }] },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|uid|file-type|load-esm|token-types|strtok3|@tokenizer|p-limit|yocto-queue|jose|openid-client|oauth4webapi|oidc-provider)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  setupFiles: ['reflect-metadata'],
};
