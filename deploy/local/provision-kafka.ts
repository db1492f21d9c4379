/**
 * Creates the topics and converges the broker ACLs of every role principal to the role/topic
 * matrix (libs/contracts -> deploy/kafka/acl-matrix.generated.json).
 *
 *   node -r ./tools/register.js deploy/local/provision-kafka.ts [matrix.json]
 *
 * Connects as the admin principal (super user). Idempotent: topics that exist are kept
 * (partitions are only ever increased), missing ACLs are created, and ACLs of managed principals
 * that the matrix no longer grants are deleted. Managed principals are the matrix principals
 * plus any other `User:aoc-*` principal that still holds ACLs (a role removed from the matrix),
 * never the admin.
 *
 * Grants, per principal:
 *   - ALLOW WRITE + DESCRIBE on each LITERAL topic of `write`;
 *   - ALLOW READ + DESCRIBE on each LITERAL topic of `read`;
 *   - ALLOW READ on the PREFIXED consumer group `consumerGroupPrefix`;
 *   and nothing else (no CREATE, no IDEMPOTENT_WRITE, no cluster ACL).
 *
 * Env: AOC_KAFKA_BROKERS | AOC_KAFKA_PORT, AOC_KAFKA_ADMIN_PASSWORD (see kafka-start.sh).
 */
import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  Kafka,
  ResourcePatternTypes,
  logLevel,
  type AclEntry,
  type Admin,
} from 'kafkajs';
import * as path from 'node:path';
import {
  BROKER_ROLES,
  MatrixError,
  adminCredentials,
  brokerAddresses,
  loadMatrix,
  resolveMatrixPath,
  type AclMatrix,
} from './kafka-matrix';

const MANAGED_PRINCIPAL_PREFIX = 'User:aoc-';

export interface ProvisionSummary {
  topicsCreated: string[];
  topicsExtended: string[];
  topicsUnchanged: number;
  aclsCreated: AclEntry[];
  aclsDeleted: AclEntry[];
  aclsUnchanged: number;
  warnings: string[];
}

/** The exact ACL set the matrix grants (host `*`, ALLOW only). */
export function desiredAcls(matrix: AclMatrix): AclEntry[] {
  const out: AclEntry[] = [];
  const allow = (
    principal: string,
    resourceType: AclResourceTypes,
    resourceName: string,
    resourcePatternType: ResourcePatternTypes,
    operation: AclOperationTypes,
  ): void => {
    out.push({ principal, host: '*', resourceType, resourceName, resourcePatternType, operation, permissionType: AclPermissionTypes.ALLOW });
  };
  for (const p of matrix.principals) {
    const principal = `${matrix.brokerPrincipalPrefix}${p.username}`;
    for (const topic of new Set(p.write)) {
      allow(principal, AclResourceTypes.TOPIC, topic, ResourcePatternTypes.LITERAL, AclOperationTypes.WRITE);
      allow(principal, AclResourceTypes.TOPIC, topic, ResourcePatternTypes.LITERAL, AclOperationTypes.DESCRIBE);
    }
    for (const topic of new Set(p.read)) {
      allow(principal, AclResourceTypes.TOPIC, topic, ResourcePatternTypes.LITERAL, AclOperationTypes.READ);
      allow(principal, AclResourceTypes.TOPIC, topic, ResourcePatternTypes.LITERAL, AclOperationTypes.DESCRIBE);
    }
    allow(principal, AclResourceTypes.GROUP, p.consumerGroupPrefix, ResourcePatternTypes.PREFIXED, AclOperationTypes.READ);
  }
  // WRITE and READ on the same topic both add DESCRIBE: dedupe.
  const seen = new Set<string>();
  return out.filter((a) => {
    const k = aclKey(a);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

// kafkajs ships these "enums" as plain objects (no reverse mapping at runtime): build our own.
function reverse(obj: Record<string, number>): Map<number, string> {
  return new Map(Object.entries(obj).map(([k, v]) => [v, k]));
}
const RESOURCE_NAMES = reverse(AclResourceTypes as unknown as Record<string, number>);
const PATTERN_NAMES = reverse(ResourcePatternTypes as unknown as Record<string, number>);
const OPERATION_NAMES = reverse(AclOperationTypes as unknown as Record<string, number>);
const PERMISSION_NAMES = reverse(AclPermissionTypes as unknown as Record<string, number>);

export function aclKey(a: AclEntry): string {
  return [a.principal, a.host, a.resourceType, a.resourceName, a.resourcePatternType, a.operation, a.permissionType].join('|');
}

export function describeAcl(a: AclEntry): string {
  const name = (m: Map<number, string>, v: number): string => m.get(v) ?? String(v);
  const pattern = a.resourcePatternType === ResourcePatternTypes.PREFIXED ? '* (prefixed)' : '';
  return (
    `${name(PERMISSION_NAMES, a.permissionType)} ${a.principal} ${name(OPERATION_NAMES, a.operation)} ` +
    `${name(RESOURCE_NAMES, a.resourceType)}:${a.resourceName}${pattern}${a.host === '*' ? '' : ` from ${a.host}`}` +
    (a.resourcePatternType === ResourcePatternTypes.LITERAL || a.resourcePatternType === ResourcePatternTypes.PREFIXED ? '' : ` [${name(PATTERN_NAMES, a.resourcePatternType)}]`)
  );
}

async function existingAcls(admin: Admin): Promise<AclEntry[]> {
  const res = await admin.describeAcls({
    resourceType: AclResourceTypes.ANY,
    resourcePatternType: ResourcePatternTypes.ANY,
    operation: AclOperationTypes.ANY,
    permissionType: AclPermissionTypes.ANY,
  });
  // kafkajs 2.2.4 returns only { resources } (its typings promise errorCode) and throws on errors.
  if (res.errorCode) throw new Error(`DescribeAcls failed: error ${res.errorCode} ${res.errorMessage ?? ''}`);
  return res.resources.flatMap((r) =>
    r.acls.map((a) => ({
      resourceType: r.resourceType,
      resourceName: r.resourceName,
      resourcePatternType: r.resourcePatternType,
      principal: a.principal,
      host: a.host,
      operation: a.operation,
      permissionType: a.permissionType,
    })),
  );
}

async function ensureTopics(admin: Admin, matrix: AclMatrix, summary: ProvisionSummary): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = matrix.topics.filter((t) => !existing.has(t.name));
  if (missing.length > 0) {
    await admin.createTopics({
      waitForLeaders: true,
      timeout: 30_000,
      topics: missing.map((t) => ({ topic: t.name, numPartitions: t.partitions, replicationFactor: 1 })),
    });
    summary.topicsCreated.push(...missing.map((t) => t.name));
  }
  const present = matrix.topics.filter((t) => existing.has(t.name));
  if (present.length === 0) return;
  const { topics } = await admin.fetchTopicMetadata({ topics: present.map((t) => t.name) });
  const partitionsByTopic = new Map(topics.map((t) => [t.name, t.partitions.length]));
  const grow: { topic: string; count: number }[] = [];
  for (const t of present) {
    const current = partitionsByTopic.get(t.name) ?? 0;
    if (current < t.partitions) grow.push({ topic: t.name, count: t.partitions });
    else {
      if (current > t.partitions) summary.warnings.push(`topic ${t.name} has ${current} partitions, matrix says ${t.partitions} (partitions are never reduced)`);
      summary.topicsUnchanged += 1;
    }
  }
  if (grow.length > 0) {
    await admin.createPartitions({ timeout: 30_000, topicPartitions: grow });
    summary.topicsExtended.push(...grow.map((g) => `${g.topic} -> ${g.count}`));
  }
}

async function convergeAcls(admin: Admin, matrix: AclMatrix, summary: ProvisionSummary): Promise<void> {
  const desired = desiredAcls(matrix);
  const desiredKeys = new Set(desired.map(aclKey));
  const adminPrincipal = `${matrix.brokerPrincipalPrefix}${matrix.admin.username}`;
  const managed = new Set(matrix.principals.map((p) => `${matrix.brokerPrincipalPrefix}${p.username}`));

  const current = await existingAcls(admin);
  const isManaged = (principal: string): boolean =>
    principal !== adminPrincipal && (managed.has(principal) || principal.startsWith(MANAGED_PRINCIPAL_PREFIX));
  const currentManaged = current.filter((a) => isManaged(a.principal));
  const currentKeys = new Set(currentManaged.map(aclKey));

  const stale = currentManaged.filter((a) => !desiredKeys.has(aclKey(a)));
  const missing = desired.filter((a) => !currentKeys.has(aclKey(a)));
  summary.aclsUnchanged = desired.length - missing.length;

  if (stale.length > 0) {
    // Exact filters: each one matches only the binding it was built from.
    const res = await admin.deleteAcls({ filters: stale });
    res.filterResponses.forEach((f, i) => {
      if (f.errorCode) throw new Error(`DeleteAcls failed for ${describeAcl(stale[i])}: error ${f.errorCode} ${f.errorMessage ?? ''}`);
    });
    summary.aclsDeleted.push(...stale);
  }
  if (missing.length > 0) {
    await admin.createAcls({ acl: missing });
    summary.aclsCreated.push(...missing);
  }
}

export async function provision(matrix: AclMatrix, env: NodeJS.ProcessEnv = process.env): Promise<ProvisionSummary> {
  const summary: ProvisionSummary = {
    topicsCreated: [],
    topicsExtended: [],
    topicsUnchanged: 0,
    aclsCreated: [],
    aclsDeleted: [],
    aclsUnchanged: 0,
    warnings: [],
  };
  const knownUsers = new Set(BROKER_ROLES.map((r) => `aoc-${r}`));
  for (const p of matrix.principals) {
    if (!knownUsers.has(p.username)) {
      summary.warnings.push(`principal ${p.username} (role ${p.role}) is not a SASL user of deploy/local/kafka-start.sh; it will not be able to log in`);
    }
  }

  const creds = adminCredentials(matrix, env);
  const kafka = new Kafka({
    clientId: 'aoc-provision-kafka',
    brokers: brokerAddresses(env),
    sasl: { mechanism: 'plain', username: creds.username, password: creds.password },
    ssl: false,
    connectionTimeout: 5_000,
    authenticationTimeout: 5_000,
    requestTimeout: 30_000,
    retry: { retries: 3, initialRetryTime: 200 },
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await ensureTopics(admin, matrix, summary);
    await convergeAcls(admin, matrix, summary);
  } finally {
    await admin.disconnect();
  }
  return summary;
}

function printSummary(file: string, matrix: AclMatrix, s: ProvisionSummary, verbose: boolean): void {
  const rel = path.relative(process.cwd(), file) || file;
  const changes = s.aclsCreated.length + s.aclsDeleted.length;
  const detailed = verbose || changes <= 12;
  const perPrincipal = new Map<string, { created: number; deleted: number }>();
  for (const [list, field] of [[s.aclsCreated, 'created'], [s.aclsDeleted, 'deleted']] as const) {
    for (const a of list) {
      const c = perPrincipal.get(a.principal) ?? { created: 0, deleted: 0 };
      c[field] += 1;
      perPrincipal.set(a.principal, c);
    }
  }
  const lines = [
    `provision-kafka: ${rel} -> ${brokerAddresses().join(',')}`,
    `  topics: ${matrix.topics.length} in matrix, ${s.topicsCreated.length} created, ${s.topicsExtended.length} extended, ${s.topicsUnchanged} unchanged`,
    ...(verbose ? s.topicsCreated.map((t) => `    + ${t}`) : []),
    ...s.topicsExtended.map((t) => `    ^ ${t}`),
    `  acls: ${matrix.principals.length} principals, ${s.aclsCreated.length} created, ${s.aclsDeleted.length} deleted (stale), ${s.aclsUnchanged} unchanged`,
    ...(detailed
      ? [...s.aclsCreated.map((a) => `    + ${describeAcl(a)}`), ...s.aclsDeleted.map((a) => `    - ${describeAcl(a)}`)]
      : [...perPrincipal].map(([p, c]) => `    ${p}: +${c.created} -${c.deleted}`)),
    ...s.warnings.map((w) => `  warning: ${w}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    process.stdout.write('usage: node -r ./tools/register.js deploy/local/provision-kafka.ts [--verbose] [matrix.json]\n');
    return 0;
  }
  const verbose = argv.includes('--verbose') || argv.includes('-v');
  const args = argv.filter((a) => a !== '--' && a !== '--verbose' && a !== '-v');
  if (args.length > 1) {
    process.stderr.write(`provision-kafka: expected at most one argument (matrix path), got ${args.length}\n`);
    return 2;
  }
  const file = resolveMatrixPath(args[0], (msg) => process.stderr.write(`provision-kafka: warning: ${msg}\n`));
  const matrix = loadMatrix(file);
  const summary = await provision(matrix);
  printSummary(file, matrix, summary, verbose);
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof MatrixError) process.stderr.write(`provision-kafka: ${err.message}\n`);
      else process.stderr.write(`provision-kafka: failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
