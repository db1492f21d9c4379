// Unit tests (no broker) for the matrix parsing and ACL derivation used by provision-kafka.ts.
import { existsSync, readFileSync } from 'node:fs';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from 'kafkajs';
import {
  GENERATED_MATRIX_PATH,
  MatrixError,
  SAMPLE_MATRIX_PATH,
  adminCredentials,
  brokerAddresses,
  loadMatrix,
  parseMatrix,
  principalCredentials,
  roleEnvSuffix,
} from '../local/kafka-matrix';
import { desiredAcls } from '../local/provision-kafka';

const sampleJson = (): Record<string, unknown> => JSON.parse(readFileSync(SAMPLE_MATRIX_PATH, 'utf8')) as Record<string, unknown>;

function parseError(value: unknown): string {
  try {
    parseMatrix(value, 'test matrix');
  } catch (err) {
    expect(err).toBeInstanceOf(MatrixError);
    return (err as Error).message;
  }
  throw new Error('expected the matrix to be rejected');
}

describe('ACL matrix', () => {
  test('the sample parses', () => {
    const m = loadMatrix(SAMPLE_MATRIX_PATH);
    expect(m.principals.map((p) => p.role).sort()).toEqual(['evidence', 'judge', 'optimizer', 'provider-executor', 'reporter', 'router']);
  });

  (existsSync(GENERATED_MATRIX_PATH) ? test : test.skip)('the generated matrix parses', () => {
    expect(loadMatrix(GENERATED_MATRIX_PATH).topics.length).toBeGreaterThan(0);
  });

  test('errors name the offending field', () => {
    const m = sampleJson();
    const principals = m.principals as Record<string, unknown>[];
    principals[1] = { ...principals[1], write: ['aoc.evidence.batch-planned.v1', 42] };
    expect(parseError(m)).toMatch(/principals\[1\]\.write\[1\]: .*string/);
  });

  test('missing fields and bad kinds are reported with their path', () => {
    const m = sampleJson();
    const topics = m.topics as Record<string, unknown>[];
    topics[0] = { ...topics[0], kind: 'stream' };
    delete m.admin;
    const msg = parseError(m);
    expect(msg).toContain('topics[0].kind');
    expect(msg).toContain('admin');
  });

  test('a grant on an undeclared topic is rejected', () => {
    const m = sampleJson();
    const principals = m.principals as Record<string, unknown>[];
    principals[0] = { ...principals[0], read: ['aoc.nope.v1'] };
    expect(parseError(m)).toMatch(/principals\[0\]\.read\[0\]: topic "aoc.nope.v1" is not declared/);
  });

  test('illegal topic names and duplicate usernames are rejected', () => {
    const m = sampleJson();
    const topics = m.topics as Record<string, unknown>[];
    topics[0] = { ...topics[0], name: 'has space' };
    const principals = m.principals as Record<string, unknown>[];
    principals[1] = { ...principals[1], username: 'aoc-admin' };
    const msg = parseError(m);
    expect(msg).toContain('topics[0].name');
    expect(msg).toContain('principals[1].username');
  });
});

describe('desired ACLs', () => {
  test('exactly WRITE+DESCRIBE on writes, READ+DESCRIBE on reads, READ on the prefixed group', () => {
    const m = parseMatrix({
      brokerPrincipalPrefix: 'User:',
      admin: { username: 'aoc-admin' },
      topics: [
        { name: 'a.v1', partitions: 1, kind: 'event' },
        { name: 'b.v1', partitions: 1, kind: 'event' },
      ],
      principals: [{ role: 'evidence', username: 'aoc-evidence', consumerGroupPrefix: 'aoc.evidence', write: ['a.v1'], read: ['b.v1', 'a.v1'] }],
    });
    const acls = desiredAcls(m).map((a) => [a.resourceType, a.resourceName, a.resourcePatternType, a.operation, a.permissionType, a.principal, a.host]);
    const t = AclResourceTypes.TOPIC;
    const L = ResourcePatternTypes.LITERAL;
    const allow = AclPermissionTypes.ALLOW;
    const p = 'User:aoc-evidence';
    expect(acls).toEqual([
      [t, 'a.v1', L, AclOperationTypes.WRITE, allow, p, '*'],
      [t, 'a.v1', L, AclOperationTypes.DESCRIBE, allow, p, '*'],
      [t, 'b.v1', L, AclOperationTypes.READ, allow, p, '*'],
      [t, 'b.v1', L, AclOperationTypes.DESCRIBE, allow, p, '*'],
      [t, 'a.v1', L, AclOperationTypes.READ, allow, p, '*'],
      [AclResourceTypes.GROUP, 'aoc.evidence', ResourcePatternTypes.PREFIXED, AclOperationTypes.READ, allow, p, '*'],
    ]);
  });
});

describe('credentials (same env vars and defaults as kafka-start.sh)', () => {
  test('role env suffix', () => {
    expect(roleEnvSuffix('provider-executor')).toBe('PROVIDER_EXECUTOR');
  });
  test('defaults and overrides', () => {
    const p = { role: 'provider-executor', username: 'aoc-provider-executor' };
    expect(principalCredentials(p, {})).toEqual({ username: 'aoc-provider-executor', password: 'provider-executor-local-secret' });
    expect(principalCredentials(p, { AOC_KAFKA_PASSWORD_PROVIDER_EXECUTOR: 's3cret' }).password).toBe('s3cret');
    expect(adminCredentials(undefined, {})).toEqual({ username: 'aoc-admin', password: 'admin-local-secret' });
    expect(adminCredentials(undefined, { AOC_KAFKA_ADMIN_PASSWORD: 'x' }).password).toBe('x');
  });
  test('broker address', () => {
    expect(brokerAddresses({})).toEqual(['127.0.0.1:19092']);
    expect(brokerAddresses({ AOC_KAFKA_PORT: '29092' })).toEqual(['127.0.0.1:29092']);
    expect(brokerAddresses({ AOC_KAFKA_BROKERS: 'kafka:9092, other:9092' })).toEqual(['kafka:9092', 'other:9092']);
    expect(brokerAddresses({ KAFKA_BROKERS: 'k:1' })).toEqual(['k:1']);
    expect(brokerAddresses({ AOC_KAFKA_BROKERS: 'a:1', KAFKA_BROKERS: 'k:1' })).toEqual(['a:1']);
  });
});
