// Contract generator: where the generated contract artefacts go, and the JSON types they are made of.
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** Directory fully owned by the generator (repo-relative, POSIX separators). */
export const TOPICS_DIR = 'docs/topics';
export const ACL_MATRIX_FILE = 'deploy/kafka/acl-matrix.generated.json';
export const ASYNCAPI_FILE = 'asyncapi.json';
export const README_FILE = 'README.md';
export const ENVELOPE_SCHEMA_FILE = 'envelope.v1.schema.json';
export const DEAD_LETTER_SCHEMA_FILE = 'dead-letter.v1.schema.json';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
