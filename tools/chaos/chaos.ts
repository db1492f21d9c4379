// `npm run chaos` (CHAOS_QUICK=1 for the CI variant): the six roles as processes from the build, on
// the local Kafka and Postgres, under faults: every role SIGKILLed at random moments and restarted,
// the broker restarted, Postgres restarted, one provider call stalled past the consumer session
// timeout, while tickets arrive through the router's HTTP API. Then, once the system is quiet, the
// topics and the roles' tables must show exactly one `run.published` and `run.execution-recorded`
// per accepted run, one `evaluation.judged` per run whose ticket holds a human answer, and nothing
// stuck or dead-lettered. Prints the counts; exits 1 on any violation. See tools/chaos/README.md.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, writeSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KafkaInspector, shelveDeadLetters, summarizeDeadLetter } from '@aoc/bus';
import { ROLES, TOPIC_REGISTRY, Topics, dlqTopicOf, principalName, type Role } from '@aoc/contracts';
import { Pool } from 'pg';
import { holdsHumanAnswer } from '../launcher/src/human-answer';
import { chaosPlan, chaosSettings, formatDuration, roleEnvironment, tallyByRun, verifyChaos, type ChaosEvent, type ChaosObservation, type ChaosSettings, type Submission } from './chaos-plan';

const ROOT = resolve(__dirname, '..', '..');
const EXAMPLES_DIR = join(ROOT, 'services', 'router', 'examples', 'tickets');
const SCHEMAS = ['router', 'evidence', 'provider_executor', 'judge', 'reporter', 'optimizer'];
const STALL_DONE = 'test-only provider delay: done';

const started = Date.now();
const stamp = () => formatDuration(Date.now() - started);
const say = (line: string) => process.stdout.write(`[chaos ${stamp()}] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Runs a command to completion; output goes to a log file (never to the console). */
function run(cmd: string, args: string[], logFile: string, env: Record<string, string | undefined> = process.env): Promise<number> {
  return new Promise((resolveRun) => {
    const fd = openSync(logFile, 'a');
    writeSync(fd, `\n===== ${new Date().toISOString()} ${cmd} ${args.join(' ')}\n`);
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
    child.on('error', () => resolveRun(127));
    child.on('exit', (code) => {
      closeSync(fd);
      resolveRun(code ?? 1);
    });
  });
}

async function must(what: string, code: Promise<number>, logFile: string): Promise<void> {
  if ((await code) !== 0) throw new Error(`${what} failed; see ${logFile}`);
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolvePort) => {
    const socket = connect({ host: '127.0.0.1', port, timeout: 2000 });
    socket.once('connect', () => (socket.end(), resolvePort(true)));
    socket.once('error', () => resolvePort(false));
    socket.once('timeout', () => (socket.destroy(), resolvePort(false)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolvePort(port));
    });
  });
}

function pgReady(): boolean {
  return spawnSync('pg_isready', ['-q', '-h', '127.0.0.1', '-p', '5432', '-t', '2']).status === 0;
}

function pgVersion(): string {
  const versions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql').sort((a, b) => Number(a) - Number(b)) : [];
  if (versions.length === 0) throw new Error('no Debian PostgreSQL cluster under /etc/postgresql');
  return versions[versions.length - 1];
}

/** `export KEY=value` lines of deploy/local/.kafka/credentials.env. */
function kafkaCredentials(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(join(ROOT, 'deploy', 'local', '.kafka', 'credentials.env'), 'utf8').split('\n')) {
    const m = /^export ([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]] = m[2].replace(/^'(.*)'$/, '$1');
  }
  return out;
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, everyMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** One role as a process from the build, restarted like an orchestrator would when it dies on its own. */
class RoleProcess {
  child: ChildProcess | null = null;
  kills = 0;
  starts = 0;
  unplanned = 0;
  private expectExit = false;
  private stopping = false;

  constructor(
    readonly role: Role,
    readonly port: number,
    private readonly env: Record<string, string>,
    readonly logFile: string,
  ) {}

  start(extra: Record<string, string> = {}): void {
    this.expectExit = false;
    this.starts++;
    const fd = openSync(this.logFile, 'a');
    writeSync(fd, `\n===== ${new Date().toISOString()} start #${this.starts}${Object.keys(extra).length ? ` (${Object.keys(extra).join(', ')})` : ''}\n`);
    const child = spawn(process.execPath, ['--enable-source-maps', join(ROOT, 'dist', 'services', this.role, 'main.js')], { cwd: ROOT, env: { ...this.env, ...extra }, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    this.child = child;
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      if (this.expectExit || this.stopping) return;
      this.unplanned++;
      say(`${this.role} exited on its own (${signal ?? `code ${code}`}); restarting it`);
      setTimeout(() => {
        if (!this.stopping && !this.child) this.start();
      }, 1000);
    });
  }

  /** SIGKILL: no shutdown hook runs. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.expectExit = true;
    this.kills++;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  /** No more restarts (the suite is ending; a Ctrl-C reaches the roles too). */
  halt(): void {
    this.stopping = true;
  }

  async stop(timeoutMs = 20_000): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }

  async ready(): Promise<boolean> {
    if (!this.child) return false;
    const res = await fetch(`http://127.0.0.1:${this.port}/readyz`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
    return res?.status === 200;
  }

  log(): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8') : '';
  }
}

interface Example {
  body: Record<string, unknown> & { ticket: { key: string; comments?: never[] }; cutoff?: string | null };
  expectJudged: boolean;
}

function loadExamples(): Example[] {
  return readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const raw = JSON.parse(readFileSync(join(EXAMPLES_DIR, f), 'utf8')) as Example['body'] & { description?: string };
      delete raw.description;
      return { body: raw, expectJudged: holdsHumanAnswer(raw.ticket, raw.cutoff ?? null) };
    });
}

async function main(): Promise<number> {
  const settings: ChaosSettings = chaosSettings(process.env);
  const examples = loadExamples();
  const plan = chaosPlan(settings, examples.length);
  const runDir = mkdtempSync(join(tmpdir(), 'aoc-chaos-'));
  const opsLog = join(runDir, 'ops.log');
  say(`${settings.quick ? 'quick' : 'full'} run, seed ${settings.seed} (CHAOS_SEED=${settings.seed} repeats the schedule), ${settings.tickets} tickets, logs in ${runDir}`);

  const roles = new Map<Role, RoleProcess>();
  let inspector: KafkaInspector | null = null;
  let pool: Pool | null = null;
  const pgWasUp = pgReady();
  const kafkaPort = Number(process.env['AOC_KAFKA_PORT'] ?? 19092);
  const kafkaWasUp = await portOpen(kafkaPort);
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    for (const p of roles.values()) p.halt();
    say('interrupted: stopping what the suite started');
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    // ------------------------------------------------------------------ build, Postgres, Kafka
    if (!settings.skipBuild) {
      await must('npm run build', run('npm', ['run', '--silent', 'build'], join(runDir, 'build.log')), join(runDir, 'build.log'));
      say('built the six roles into dist/services');
    }
    await must('postgres-ensure.sh', run('bash', ['deploy/local/postgres-ensure.sh'], opsLog, { ...process.env, AOC_PG_DATABASE: settings.database }), opsLog);
    const admin = new Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres', max: 1 });
    admin.on('error', () => undefined);
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${settings.database}" WITH (FORCE)`);
      await admin.query(`CREATE DATABASE "${settings.database}"`);
    } finally {
      await admin.end();
    }
    const databaseUrl = `postgres://postgres@127.0.0.1:5432/${settings.database}`;
    pool = new Pool({ connectionString: databaseUrl, max: 2 });
    pool.on('error', () => undefined);
    say(`fresh database ${settings.database} (Postgres was ${pgWasUp ? 'running' : 'down: started'})`);
    await must('kafka-start.sh', run('bash', ['deploy/local/kafka-start.sh'], opsLog), opsLog);
    const creds = kafkaCredentials();
    const brokers = (creds['AOC_KAFKA_BROKERS'] ?? `127.0.0.1:${kafkaPort}`).split(',');
    inspector = new KafkaInspector({ brokers, sasl: { username: creds['AOC_KAFKA_ADMIN_USERNAME'] ?? 'aoc-admin', password: creds['AOC_KAFKA_ADMIN_PASSWORD'] ?? '' }, clientId: 'aoc-chaos', readerGroupPrefix: 'aoc.chaos-reader' });
    say(`Kafka on ${brokers.join(',')} (was ${kafkaWasUp ? 'running' : 'down: started'})`);
    const clients = ROLES.map(principalName);
    const busy = await inspector.groupsOfClients(clients);
    if (busy.length > 0) throw new Error(`the role consumer groups have live members of another run (${busy.map((g) => `${g.groupId}: ${g.clientIds.join(',')}`).join('; ')}): stop it (run-distributed.sh --keep?) first`);

    // What earlier suites left on the topics (CI runs this after the integration tests, whose
    // messages include deliberately malformed ones) is not this run's doing: the role groups start
    // at the topics' ends, so every dead letter and record counted is this run's.
    for (const role of ROLES) await inspector.skipToEnd(`aoc.${role}`, TOPIC_REGISTRY.filter((t) => t.consumers.includes(role)).map((t) => t.name));
    say('role consumer groups moved to the topics\' ends (earlier messages are not this run\'s)');

    // ------------------------------------------------------------------ roles
    const tokenOut = spawnSync(process.execPath, ['-r', './tools/register.js', 'tools/aoc.ts', 'token', 'create', '--role', 'admin', '--tenant', '*', '--name', 'chaos', '--expires-in', '2h', '--database', databaseUrl], { cwd: ROOT, encoding: 'utf8' });
    const token = /secret, shown once: (\S+)/.exec(tokenOut.stdout ?? '')?.[1];
    if (!token) throw new Error(`could not create an admin token: ${(tokenOut.stderr ?? '').slice(0, 300)}`);
    for (const role of ROLES) {
      const port = await freePort();
      roles.set(role, new RoleProcess(role, port, roleEnvironment(role, { port, databaseUrl, brokers, credentials: creds, base: process.env }), join(runDir, `${role}.log`)));
    }
    for (const p of roles.values()) p.start(p.role === 'provider-executor' && settings.stallMs > 0 ? { AOC_TEST_PROVIDER_DELAY_MS: String(settings.stallMs) } : {});
    await waitFor('every role to be ready (/readyz)', 180_000, async () => ((await Promise.all([...roles.values()].map((p) => p.ready()))).every(Boolean) ? true : undefined));
    say(`six roles ready (${[...roles.values()].map((p) => `${p.role} :${p.port}`).join(', ')})`);
    const inventories = await waitFor('a provider inventory at the router', 60_000, async () => {
      const r = await (pool as Pool).query<{ n: number }>('SELECT count(*)::int AS n FROM router.provider_inventories');
      return r.rows[0].n > 0 ? r.rows[0].n : undefined;
    }).catch(() => 0);
    if (inventories === 0) say('warning: no provider inventory reached the router; tickets naming a cluster will not resolve it');
    // The role consumer groups and their topics (kept across restarts: a group is missing from the list while its role restarts).
    const groups = new Map((await inspector.groupsOfClients(clients)).map((g) => [g.groupId, g.topics] as const));
    say(`${groups.size} role consumer groups: ${[...groups.keys()].join(', ')}`);

    // ------------------------------------------------------------------ chaos: tickets + faults
    const router = roles.get('router') as RoleProcess;
    const accepted: { runId: string; ticketKey: string }[] = [];
    const refused: string[] = [];
    const faults = { brokerRestarts: 0, postgresRestarts: 0 };
    let stall: { observed: boolean; batchRun: string | null } = { observed: false, batchRun: null };

    /** Posts one ticket until the router accepts it; a router that is down or restarting is tried again, as a client would. */
    const submit = async (s: Submission): Promise<void> => {
      const example = examples[s.example];
      const body = JSON.stringify({ ...example.body, import: true, ticket: { ...example.body.ticket, key: s.ticketKey } });
      const deadline = Date.now() + 180_000;
      for (;;) {
        const res = await fetch(`http://127.0.0.1:${router.port}/v1/tickets/analyze`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body,
          signal: AbortSignal.timeout(15_000),
        }).catch(() => null);
        if (res?.status === 202) {
          accepted.push({ runId: ((await res.json()) as { runId: string }).runId, ticketKey: s.ticketKey });
          return;
        }
        if (res && res.status < 500 && res.status !== 429) {
          refused.push(`${s.ticketKey}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
          return;
        }
        if (Date.now() > deadline || interrupted) {
          refused.push(`${s.ticketKey}: not accepted within 180 s`);
          return;
        }
        await sleep(1000);
      }
    };

    const inject = async (e: ChaosEvent): Promise<void> => {
      if (e.kind === 'kill') {
        const p = roles.get(e.role) as RoleProcess;
        if (e.role === 'provider-executor' && p.kills === 0 && settings.stallMs > 0) {
          // Its first incarnation stalls one provider call: kill it only once that call is through.
          const done = await waitFor('the stalled provider call', settings.stallMs + 90_000, async () => (p.log().includes(STALL_DONE) ? true : undefined), 1000).catch(() => false);
          const m = /test-only provider delay: done.*?"runId":"([^"]+)"/.exec(p.log());
          stall = { observed: done === true, batchRun: m?.[1] ?? null };
          say(done ? `a provider call stalled ${settings.stallMs} ms (session timeout ${settings.sessionTimeoutMs} ms) and went through` : 'warning: the stalled provider call was not seen');
        }
        await p.kill();
        say(`SIGKILL ${e.role}; restarting it in ${e.downMs} ms`);
        await sleep(e.downMs);
        p.start();
      } else if (e.kind === 'broker-restart') {
        say('stopping the broker (kafka-stop.sh)');
        await must('kafka-stop.sh', run('bash', ['deploy/local/kafka-stop.sh'], opsLog), opsLog);
        await sleep(e.downMs);
        await must('kafka-start.sh', run('bash', ['deploy/local/kafka-start.sh'], opsLog), opsLog);
        faults.brokerRestarts++;
        say(`broker back (${e.downMs} ms down, then kafka-start.sh)`);
      } else {
        say(`restarting Postgres (pg_ctlcluster ${pgVersion()} main restart)`);
        await must('pg_ctlcluster restart', run('pg_ctlcluster', [pgVersion(), 'main', 'restart'], opsLog), opsLog);
        await waitFor('Postgres after its restart', 60_000, async () => (pgReady() ? true : undefined));
        faults.postgresRestarts++;
        say('Postgres back');
      }
    };

    const faultCount = plan.steps.filter((s) => s.fault).length;
    say(`${faultCount} faults, ${settings.tickets} tickets: before each fault a few tickets, then a random pause of up to ${settings.maxPauseMs} ms`);
    for (const step of plan.steps) {
      if (interrupted) return 130;
      await Promise.all(step.submissions.map(submit));
      if (step.submissions.length) say(`submitted ${step.submissions.map((s) => s.ticketKey).join(', ')} (${accepted.length} accepted so far)`);
      await sleep(step.pauseMs);
      if (step.fault) await inject(step.fault);
    }
    if (interrupted) return 130;
    const quietFrom = 'the last fault';

    // ------------------------------------------------------------------ quiet
    await waitFor('every role to be ready again', 180_000, async () => ((await Promise.all([...roles.values()].map((p) => p.ready()))).every(Boolean) ? true : undefined));
    const examplesByKey = new Map(plan.steps.flatMap((step) => step.submissions).map((s) => [s.ticketKey, examples[s.example]] as const));
    const observeDb = async () => {
      const db = pool as Pool;
      const runs = (
        await db.query<{ run_id: string; ticket_key: string; status: string; open: number }>(
          `SELECT r.run_id, r.ticket_key, r.status, (SELECT count(*)::int FROM router.scenario_threads t WHERE t.run_id = r.run_id AND t.status <> 'concluded') AS open FROM router.runs r ORDER BY r.created_at`,
        )
      ).rows.map((r) => ({ runId: r.run_id, status: r.status, openThreads: r.open, expectJudged: examplesByKey.get(r.ticket_key)?.expectJudged ?? false }));
      const perRun = async (sql: string) => new Map((await db.query<{ run_id: string; n: number }>(sql)).rows.map((r) => [r.run_id, r.n] as const));
      const tables = {
        reporterRuns: await perRun('SELECT run_id, count(*)::int AS n FROM reporter.published_runs GROUP BY run_id'),
        reporterExecutions: await perRun('SELECT run_id, count(*)::int AS n FROM reporter.run_executions GROUP BY run_id'),
        reporterEvaluations: await perRun('SELECT run_id, count(*)::int AS n FROM reporter.evaluations GROUP BY run_id'),
        judgeEvaluations: await perRun('SELECT run_id, count(*)::int AS n FROM judge.evaluations WHERE published GROUP BY run_id'),
      };
      const pendingOutbox: Record<string, number> = {};
      for (const s of SCHEMAS) pendingOutbox[s] = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${s}".bus_outbox WHERE published_at IS NULL`)).rows[0].n;
      return { runs, tables, pendingOutbox };
    };
    const observeLag = async () => {
      for (const g of await (inspector as KafkaInspector).groupsOfClients(clients)) groups.set(g.groupId, [...new Set([...(groups.get(g.groupId) ?? []), ...g.topics])]);
      const lag: Record<string, number> = {};
      for (const [groupId, topics] of groups) lag[groupId] = Object.values(await (inspector as KafkaInspector).groupLag(groupId, topics)).reduce((a, b) => a + b, 0);
      return lag;
    };
    const settled = (db: Awaited<ReturnType<typeof observeDb>>) =>
      db.runs.length >= accepted.length &&
      db.runs.every((r) => r.status === 'published' && r.openThreads === 0 && db.tables.reporterExecutions.has(r.runId) && (!r.expectJudged || db.tables.reporterEvaluations.has(r.runId))) &&
      Object.values(db.pendingOutbox).every((n) => n === 0);
    // Quiet: everything expected arrived (twice in a row), or nothing moves any more (outboxes empty,
    // no consumer lag, the tables unchanged for IDLE_MS): then the checks below say what is missing.
    const IDLE_MS = 45_000;
    let complete = 0;
    let idleSince: number | null = null;
    let last = '';
    const quietStart = Date.now();
    let quiet: 'complete' | 'idle' | null = null;
    while (Date.now() - quietStart < settings.quietTimeoutMs && !interrupted) {
      const db = await observeDb().catch(() => null);
      const drained = db !== null && Object.values(db.pendingOutbox).every((n) => n === 0);
      const lag = drained ? await observeLag().catch(() => null) : null;
      const still = lag !== null && Object.values(lag).every((n) => n === 0);
      complete = still && db && settled(db) ? complete + 1 : 0;
      const snapshot = db ? JSON.stringify([db.runs, [...db.tables.reporterExecutions.keys()].sort(), [...db.tables.reporterEvaluations.keys()].sort(), [...db.tables.judgeEvaluations.keys()].sort()]) : '';
      idleSince = still && snapshot === last ? (idleSince ?? Date.now()) : null;
      last = snapshot;
      if (complete >= 2) quiet = 'complete';
      else if (idleSince !== null && Date.now() - idleSince >= IDLE_MS) quiet = 'idle';
      if (quiet) break;
      await sleep(3000);
    }
    say(
      quiet === 'complete'
        ? `quiet ${formatDuration(Date.now() - quietStart)} after ${quietFrom}`
        : quiet === 'idle'
          ? `idle (nothing sent, nothing behind, nothing changed for ${IDLE_MS / 1000} s) but incomplete, ${formatDuration(Date.now() - quietStart)} after ${quietFrom}`
          : `not quiet ${Math.round(settings.quietTimeoutMs / 1000)} s after ${quietFrom}: checking what is stuck`,
    );

    // ------------------------------------------------------------------ verify
    const db = await observeDb();
    const runIds = new Set([...db.runs.map((r) => r.runId), ...accepted.map((a) => a.runId)]);
    const read = async (topic: string) => tallyByRun((await (inspector as KafkaInspector).readTopics([topic])).map((m) => m.value), runIds);
    const dlqs = new Set(await inspector.listTopics());
    const letters = shelveDeadLetters(await inspector.readTopics(TOPIC_REGISTRY.map((t) => dlqTopicOf(t.name)).filter((t) => dlqs.has(t))))
      .letters.filter((l) => Date.parse(l.letter.deadLetteredAt) >= started && (l.letter.runId === null || runIds.has(l.letter.runId)))
      .map(summarizeDeadLetter);
    const observation: ChaosObservation = {
      tickets: settings.tickets,
      acceptedByApi: accepted.map((a) => a.runId),
      runs: db.runs,
      topics: { published: await read(Topics.runPublished.name), executionRecorded: await read(Topics.runExecutionRecorded.name), judged: await read(Topics.evaluationJudged.name) },
      tables: db.tables,
      pendingOutbox: db.pendingOutbox,
      lag: await observeLag(),
      deadLetters: letters.map((l) => ({ id: l.id, topic: l.topic, errorCode: l.errorCode, consumerGroup: l.consumerGroup, reason: l.reason })),
    };
    const verdict = verifyChaos(observation);
    if (settings.stallMs > 0 && !stall.observed) verdict.violations.push('the provider call was not stalled (no "test-only provider delay: done" in the provider-executor log)');
    for (const r of refused) verdict.violations.push(`ticket refused: ${r}`);
    const c = verdict.counts;
    const kills = [...roles.values()].map((p) => `${p.role} ${p.kills}`).join(', ');
    const unplanned = [...roles.values()].filter((p) => p.unplanned > 0).map((p) => `${p.role} ${p.unplanned}`);
    const lines = [
      `chaos ${settings.quick ? 'quick' : 'full'} run, seed ${settings.seed}, ${formatDuration(Date.now() - started)}`,
      `  tickets                 ${c.tickets} submitted, ${c.accepted} accepted runs (API returned ${accepted.length})`,
      `  kills (SIGKILL)         ${kills}`,
      `  restarts                broker ${faults.brokerRestarts}, postgres ${faults.postgresRestarts}, roles ${[...roles.values()].reduce((n, p) => n + p.kills, 0)} after kills + ${unplanned.length ? unplanned.join(', ') : '0'} unplanned`,
      `  stalled provider call   ${stall.observed ? `${settings.stallMs} ms > session timeout ${settings.sessionTimeoutMs} ms (run ${stall.batchRun ?? '?'})` : settings.stallMs > 0 ? 'NOT OBSERVED' : 'off'}`,
      `  run.published           ${c.published}`,
      `  run.execution-recorded  ${c.executionRecorded}`,
      `  evaluation.judged       ${c.judged} (expected ${c.expectedJudged}: runs whose ticket holds a human answer)`,
      `  duplicates              ${c.duplicates}`,
      `  lost                    ${c.lost}`,
      `  stuck                   ${c.stuck}`,
      `  dead letters            ${c.deadLetters}`,
      `  redundant records       ${c.redundantRecords} (a message relayed twice after a crash; consumers drop the copy)`,
      verdict.violations.length === 0 ? '  result                  PASS' : `  result                  FAIL (${verdict.violations.length} violation${verdict.violations.length === 1 ? '' : 's'})`,
      ...verdict.violations.slice(0, 50).map((v) => `    - ${v}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return verdict.violations.length === 0 ? 0 : 1;
  } finally {
    // ------------------------------------------------------------------ leave things as found
    await Promise.all([...roles.values()].map((p) => p.stop()));
    await inspector?.disconnect();
    await pool?.end().catch(() => undefined);
    if (kafkaWasUp) {
      if ((await run('bash', ['deploy/local/kafka-start.sh'], opsLog)) !== 0) say(`warning: the broker is not healthy after the suite; see ${opsLog}`);
    } else await run('bash', ['deploy/local/kafka-stop.sh'], opsLog);
    if (pgWasUp && !pgReady()) await run('pg_ctlcluster', [pgVersion(), 'main', 'start'], opsLog);
    if (!pgWasUp && pgReady()) await run('pg_ctlcluster', [pgVersion(), 'main', 'stop'], opsLog);
    say(`roles stopped; Kafka ${kafkaWasUp ? 'running' : 'stopped'} and Postgres ${pgWasUp ? 'running' : 'stopped'} as found; logs in ${runDir}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`chaos: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
