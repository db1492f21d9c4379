// Runs TypeScript sources directly (decorator metadata included, which NestJS DI needs).
// SWC_NODE_PROJECT points the compiler at the workspace tsconfig.
const path = require('node:path');
process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || path.join(__dirname, '..', 'tsconfig.base.json');
require('@swc-node/register');
