// The system under test, shared by the chaos suite (chaos.ts) and the scale benchmark
// (tools/scale/scale.ts): the local Postgres and Kafka (left as found), a database of the run's
// own, the role consumer groups, an admin token, N replicas of each of the six roles, and tickets
// posted to the routers as a client behind a load balancer would.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { KafkaInspector } from '@aoc/bus';
import { ROLES, TOPIC_REGISTRY, principalName, type Role } from '@aoc/contracts';
import { Pool } from 'pg';
import { roleEnvironment } from './chaos-plan';
import { ROOT, RoleProcess, freePort, kafkaCredentials, must, pgReady, pgVersion, portOpen, run, sleep, waitFor, type Example } from './processes';

/** The client id of each role's transport (`aoc-<role>`): how the role consumer groups are found. */
export const ROLE_CLIENTS: readonly string[] = ROLES.map(principalName);

/** Whether Postgres and Kafka were running before the run (it leaves them so). */
export interface ServicesFound {
  pgWasUp: boolean;
  kafkaWasUp: boolean;
  kafkaPort: number;
}

export async function servicesFound(): Promise<ServicesFound> {
  const kafkaPort = Number(process.env['AOC_KAFKA_PORT'] ?? 19092);
  return { pgWasUp: pgReady(), kafkaWasUp: await portOpen(kafkaPort), kafkaPort };
}

/** Starts Postgres if it is down (postgres-ensure.sh). */
export async function ensurePostgres(database: string, opsLog: string): Promise<void> {
  await must('postgres-ensure.sh', run('bash', ['deploy/local/postgres-ensure.sh'], opsLog, { ...process.env, AOC_PG_DATABASE: database }), opsLog);
}

/** Drops and creates the run's own database (other suites' data is untouched); returns its URL. */
export async function recreateDatabase(database: string): Promise<string> {
  const admin = new Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres', max: 1 });
  admin.on('error', () => undefined);
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
  return `postgres://postgres@127.0.0.1:5432/${database}`;
}

export function openPool(databaseUrl: string): Pool {
  const pool = new Pool({ connectionString: databaseUrl, max: 2 });
  pool.on('error', () => undefined);
  return pool;
}

export interface KafkaAccess {
  brokers: string[];
  credentials: Record<string, string>;
  inspector: KafkaInspector;
}

/** Starts the local broker if needed (kafka-start.sh, which also provisions topics and ACLs) and connects an admin inspector. */
export async function startKafka(found: ServicesFound, opsLog: string, clientId: string): Promise<KafkaAccess> {
  await must('kafka-start.sh', run('bash', ['deploy/local/kafka-start.sh'], opsLog), opsLog);
  const credentials = kafkaCredentials();
  const brokers = (credentials['AOC_KAFKA_BROKERS'] ?? `127.0.0.1:${found.kafkaPort}`).split(',');
  const inspector = new KafkaInspector({
    brokers,
    sasl: { username: credentials['AOC_KAFKA_ADMIN_USERNAME'] ?? 'aoc-admin', password: credentials['AOC_KAFKA_ADMIN_PASSWORD'] ?? '' },
    clientId,
    readerGroupPrefix: `${clientId.replace(/^aoc-/, 'aoc.')}-reader`,
  });
  return { brokers, credentials, inspector };
}

/** Refuses to go on while another distributed run has live members in the role consumer groups (it would share their partitions). */
export async function refuseBusyGroups(inspector: KafkaInspector): Promise<void> {
  const busy = await inspector.groupsOfClients(ROLE_CLIENTS);
  if (busy.length > 0) throw new Error(`the role consumer groups have live members of another run (${busy.map((g) => `${g.groupId}: ${g.clientIds.join(',')}`).join('; ')}): stop it (run-distributed.sh --keep?) first`);
}

/**
 * Moves every role group to its topics' ends: what earlier runs left on the topics is not this
 * run's doing (CI's integration tests leave deliberately malformed messages). The roles must be down.
 * The groups in parallel: each topic costs a join of a throw-away member (the broker's initial
 * rebalance delay, about 5 s), so one after the other the 20 took 100 s.
 */
export async function skipRoleGroupsToEnd(inspector: KafkaInspector): Promise<void> {
  await Promise.all(ROLES.map((role) => inspector.skipToEnd(`aoc.${role}`, TOPIC_REGISTRY.filter((t) => t.consumers.includes(role)).map((t) => t.name))));
}

/** An admin token for the routers' API, stored in the run's database (`aoc token create`). */
export function createAdminToken(databaseUrl: string, name: string): string {
  const out = spawnSync(process.execPath, ['-r', './tools/register.js', 'tools/aoc.ts', 'token', 'create', '--role', 'admin', '--tenant', '*', '--name', name, '--expires-in', '2h', '--database', databaseUrl], { cwd: ROOT, encoding: 'utf8' });
  const token = /secret, shown once: (\S+)/.exec(out.stdout ?? '')?.[1];
  if (!token) throw new Error(`could not create an admin token: ${(out.stderr ?? '').slice(0, 300)}`);
  return token;
}

/** Waits (60 s at most) until the router holds a provider inventory; returns how many (0: none came). */
export async function waitForInventory(pool: Pool): Promise<number> {
  return waitFor('a provider inventory at the router', 60_000, async () => {
    const r = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM router.provider_inventories');
    return r.rows[0].n > 0 ? r.rows[0].n : undefined;
  }).catch(() => 0);
}

/** Runs kafka-start.sh again if Kafka was running (left as that script leaves it), kafka-stop.sh if not; starts or stops Postgres likewise. */
export async function restoreServices(found: ServicesFound, opsLog: string, say: (line: string) => void): Promise<void> {
  if (found.kafkaWasUp) {
    if ((await run('bash', ['deploy/local/kafka-start.sh'], opsLog)) !== 0) say(`warning: the broker is not healthy after the run; see ${opsLog}`);
  } else await run('bash', ['deploy/local/kafka-stop.sh'], opsLog);
  if (found.pgWasUp && !pgReady()) await run('pg_ctlcluster', [pgVersion(), 'main', 'start'], opsLog);
  if (!found.pgWasUp && pgReady()) await run('pg_ctlcluster', [pgVersion(), 'main', 'stop'], opsLog);
}

/**
 * N replicas of each of the six roles, each on a free port with a log of its own (`<role>.log`, or
 * `<role>-<n>.log` with replicas), in the role's consumer groups (replicas share their partitions).
 */
export class RoleSet {
  private constructor(
    readonly replicas: number,
    private readonly byRole: Map<Role, RoleProcess[]>,
  ) {}

  static async create(replicas: number, o: { databaseUrl: string; kafka: KafkaAccess; runDir: string; notify: (line: string) => void }): Promise<RoleSet> {
    const byRole = new Map<Role, RoleProcess[]>();
    for (const role of ROLES) {
      const list: RoleProcess[] = [];
      for (let i = 0; i < replicas; i++) {
        const port = await freePort();
        const env = roleEnvironment(role, { port, databaseUrl: o.databaseUrl, brokers: o.kafka.brokers, credentials: o.kafka.credentials, base: process.env });
        const name = replicas > 1 ? `${role}#${i + 1}` : role;
        list.push(new RoleProcess(role, i, name, port, env, join(o.runDir, replicas > 1 ? `${role}-${i + 1}.log` : `${role}.log`), o.notify));
      }
      byRole.set(role, list);
    }
    return new RoleSet(replicas, byRole);
  }

  all(): RoleProcess[] {
    return [...this.byRole.values()].flat();
  }

  of(role: Role): RoleProcess[] {
    return this.byRole.get(role) ?? [];
  }

  /**
   * Starts the first replica of every role and waits until all answer /readyz, then the other
   * replicas: a role migrates its schema when it boots, without a lock, so two replicas booting
   * together on an empty schema would race (a deployment migrates in a Job before the pods start).
   */
  async start(extra: (p: RoleProcess) => Record<string, string> = () => ({}), timeoutMs = 180_000): Promise<void> {
    const first = this.all().filter((p) => p.replica === 0);
    for (const p of first) p.start(extra(p));
    await this.waitReady('the first replica of every role to be ready (/readyz)', timeoutMs, first);
    const rest = this.all().filter((p) => p.replica > 0);
    if (rest.length === 0) return;
    for (const p of rest) p.start(extra(p));
    await this.waitReady('every replica to be ready (/readyz)', timeoutMs, rest);
  }

  async waitReady(what: string, timeoutMs = 180_000, processes: RoleProcess[] = this.all()): Promise<void> {
    await waitFor(what, timeoutMs, async () => ((await Promise.all(processes.map((p) => p.ready()))).every(Boolean) ? true : undefined));
  }

  describe(): string {
    return this.all()
      .map((p) => `${p.name} :${p.port}`)
      .join(', ');
  }

  halt(): void {
    for (const p of this.all()) p.halt();
  }

  async stop(): Promise<void> {
    await Promise.all(this.all().map((p) => p.stop()));
  }
}

/** An accepted ticket: the run id the router's API returned. */
export interface Accepted {
  runId: string;
  ticketKey: string;
}

/**
 * Posts tickets to `POST /v1/tickets/analyze`, each attempt to the next router replica (as a load
 * balancer would); a router that is down, restarting or answering 5xx/429 is tried again, as a
 * client would, for up to 180 s.
 */
export class TicketDesk {
  readonly accepted: Accepted[] = [];
  readonly refused: string[] = [];
  private next = 0;

  constructor(
    private readonly routers: readonly RoleProcess[],
    private readonly token: string,
    private readonly stopped: () => boolean = () => false,
  ) {}

  async submit(example: Example, ticketKey: string): Promise<void> {
    const body = JSON.stringify({ ...example.body, import: true, ticket: { ...example.body.ticket, key: ticketKey } });
    const deadline = Date.now() + 180_000;
    const first = this.next++;
    for (let attempt = 0; ; attempt++) {
      const router = this.routers[(first + attempt) % this.routers.length];
      const res = await fetch(`http://127.0.0.1:${router.port}/v1/tickets/analyze`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body,
        signal: AbortSignal.timeout(15_000),
      }).catch(() => null);
      if (res?.status === 202) {
        this.accepted.push({ runId: ((await res.json()) as { runId: string }).runId, ticketKey });
        return;
      }
      if (res && res.status < 500 && res.status !== 429) {
        this.refused.push(`${ticketKey}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
        return;
      }
      if (Date.now() > deadline || this.stopped()) {
        this.refused.push(`${ticketKey}: not accepted within 180 s`);
        return;
      }
      // The next replica at once (a balancer's retry); after a round of them, a pause.
      if ((attempt + 1) % this.routers.length === 0) await sleep(1000);
    }
  }
}
