// `npm run chaos` (CHAOS_QUICK=1 for the CI variant): the six roles as processes from the build, on
// the local Kafka and Postgres, under faults: every role SIGKILLed at random moments and restarted,
// the broker restarted, Postgres restarted, one provider call stalled past the consumer session
// timeout, while tickets arrive through the router's HTTP API. Then, once the system is quiet, the
// topics and the roles' tables must show exactly one `run.published` and `run.execution-recorded`
// per accepted run, one `evaluation.judged` per run whose ticket holds a human answer, and nothing
// stuck or dead-lettered. Prints the counts; exits 1 on any violation. See tools/chaos/README.md.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shelveDeadLetters, summarizeDeadLetter, type KafkaInspector } from '@aoc/bus';
import { ROLES, TOPIC_REGISTRY, Topics, dlqTopicOf } from '@aoc/contracts';
import type { Pool } from 'pg';
import { chaosPlan, chaosSettings, formatDuration, tallyByRun, verifyChaos, type ChaosEvent, type ChaosObservation, type ChaosSettings } from './chaos-plan';
import { loadExamples, must, pgReady, pgVersion, run, sleep, waitFor, type RoleProcess } from './processes';
import { RunObserver } from './quiet';
import { RoleSet, TicketDesk, createAdminToken, ensurePostgres, openPool, recreateDatabase, refuseBusyGroups, restoreServices, servicesFound, skipRoleGroupsToEnd, startKafka, waitForInventory } from './stack';

const STALL_DONE = 'test-only provider delay: done';
/** Idle but incomplete: nothing sent, nothing behind, the tables unchanged this long. */
const IDLE_MS = 45_000;

const started = Date.now();
const stamp = () => formatDuration(Date.now() - started);
const say = (line: string) => process.stdout.write(`[chaos ${stamp()}] ${line}\n`);

async function main(): Promise<number> {
  const settings: ChaosSettings = chaosSettings(process.env);
  const examples = loadExamples();
  const plan = chaosPlan(settings, examples.length);
  const runDir = mkdtempSync(join(tmpdir(), 'aoc-chaos-'));
  const opsLog = join(runDir, 'ops.log');
  const replicaNote = settings.replicas > 1 ? `, ${settings.replicas} replicas of every role` : '';
  say(`${settings.quick ? 'quick' : 'full'} run, seed ${settings.seed} (CHAOS_SEED=${settings.seed} repeats the schedule), ${settings.tickets} tickets${replicaNote}, logs in ${runDir}`);

  let roles: RoleSet | null = null;
  let inspector: KafkaInspector | null = null;
  let pool: Pool | null = null;
  const found = await servicesFound();
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    roles?.halt();
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
    await ensurePostgres(settings.database, opsLog);
    const databaseUrl = await recreateDatabase(settings.database);
    pool = openPool(databaseUrl);
    say(`fresh database ${settings.database} (Postgres was ${found.pgWasUp ? 'running' : 'down: started'})`);
    const kafka = await startKafka(found, opsLog, 'aoc-chaos');
    inspector = kafka.inspector;
    say(`Kafka on ${kafka.brokers.join(',')} (was ${found.kafkaWasUp ? 'running' : 'down: started'})`);
    await refuseBusyGroups(inspector);
    await skipRoleGroupsToEnd(inspector);
    say('role consumer groups moved to the topics\' ends (earlier messages are not this run\'s)');

    // ------------------------------------------------------------------ roles
    const token = createAdminToken(databaseUrl, 'chaos');
    const set = await RoleSet.create(settings.replicas, { databaseUrl, kafka, runDir, notify: say });
    roles = set;
    // The provider-executor's first process stalls its first evidence batch past the session timeout.
    await set.start((p): Record<string, string> => (p.role === 'provider-executor' && p.replica === 0 && settings.stallMs > 0 ? { AOC_TEST_PROVIDER_DELAY_MS: String(settings.stallMs) } : {}));
    say(`${set.all().length} role processes ready (${set.describe()})`);
    const inventories = await waitForInventory(pool);
    if (inventories === 0) say('warning: no provider inventory reached the router; tickets naming a cluster will not resolve it');
    const examplesByKey = new Map(plan.steps.flatMap((step) => step.submissions).map((s) => [s.ticketKey, examples[s.example]] as const));
    const observer = new RunObserver(pool, inspector, (ticketKey) => examplesByKey.get(ticketKey)?.expectJudged ?? false);
    const groups = await observer.discoverGroups();
    const members = await inspector.groupMembers(groups);
    say(`${groups.length} role consumer groups: ${groups.map((g) => (settings.replicas > 1 ? `${g} (${members[g]} members)` : g)).join(', ')}`);

    // ------------------------------------------------------------------ chaos: tickets + faults
    const desk = new TicketDesk(set.of('router'), token, () => interrupted);
    const faults = { brokerRestarts: 0, postgresRestarts: 0 };
    const stalled = set.of('provider-executor')[0];
    let stall: { observed: boolean; batchRun: string | null } = { observed: false, batchRun: null };
    const observeStall = () => {
      const m = /test-only provider delay: done.*?"runId":"([^"]+)"/.exec(stalled.log());
      stall = { observed: stalled.log().includes(STALL_DONE), batchRun: m?.[1] ?? null };
    };

    const inject = async (e: ChaosEvent): Promise<void> => {
      if (e.kind === 'kill') {
        const replicas = set.of(e.role);
        const p = replicas[e.replica] as RoleProcess;
        if (e.role === 'provider-executor' && replicas.every((r) => r.kills === 0) && settings.stallMs > 0) {
          // Its first process stalls one provider call: no kill of the role before that call is through.
          const done = await waitFor('the stalled provider call', settings.stallMs + 90_000, async () => (stalled.log().includes(STALL_DONE) ? true : undefined), 1000).catch(() => false);
          observeStall();
          say(done ? `a provider call stalled ${settings.stallMs} ms (session timeout ${settings.sessionTimeoutMs} ms) and went through` : 'warning: the stalled provider call was not seen');
        }
        await p.kill();
        say(`SIGKILL ${p.name}${replicas.length > 1 ? ` (${replicas.length - 1} other replica${replicas.length > 2 ? 's' : ''} running)` : ''}; restarting it in ${e.downMs} ms`);
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
      await Promise.all(step.submissions.map((s) => desk.submit(examples[s.example], s.ticketKey)));
      if (step.submissions.length) say(`submitted ${step.submissions.map((s) => s.ticketKey).join(', ')} (${desk.accepted.length} accepted so far)`);
      await sleep(step.pauseMs);
      if (step.fault) await inject(step.fault);
    }
    if (interrupted) return 130;
    const quietFrom = 'the last fault';

    // ------------------------------------------------------------------ quiet
    await set.waitReady('every role to be ready again');
    const quietStart = Date.now();
    const { outcome: quiet } = await observer.waitQuiet({ timeoutMs: settings.quietTimeoutMs, accepted: () => desk.accepted.length, idleMs: IDLE_MS, stopped: () => interrupted });
    say(
      quiet === 'complete'
        ? `quiet ${formatDuration(Date.now() - quietStart)} after ${quietFrom}`
        : quiet === 'idle'
          ? `idle (nothing sent, nothing behind, nothing changed for ${IDLE_MS / 1000} s) but incomplete, ${formatDuration(Date.now() - quietStart)} after ${quietFrom}`
          : `not quiet ${Math.round(settings.quietTimeoutMs / 1000)} s after ${quietFrom}: checking what is stuck`,
    );

    // ------------------------------------------------------------------ verify
    const db = await observer.observeDb();
    const accepted = desk.accepted;
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
      lag: await observer.observeLag(),
      deadLetters: letters.map((l) => ({ id: l.id, topic: l.topic, errorCode: l.errorCode, consumerGroup: l.consumerGroup, reason: l.reason })),
    };
    const verdict = verifyChaos(observation);
    // The stall may have happened without a provider-executor kill waiting for it (CHAOS_KILLS_PER_ROLE, replicas).
    if (!stall.observed) observeStall();
    if (settings.stallMs > 0 && !stall.observed) verdict.violations.push('the provider call was not stalled (no "test-only provider delay: done" in the first provider-executor\'s log)');
    for (const r of desk.refused) verdict.violations.push(`ticket refused: ${r}`);
    const c = verdict.counts;
    const all = set.all();
    const killsOf = (role: (typeof ROLES)[number]) => {
      const replicas = set.of(role);
      const n = replicas.reduce((a, p) => a + p.kills, 0);
      return replicas.length > 1 ? `${role} ${n} (${replicas.filter((p) => p.kills > 0).map((p) => `#${p.replica + 1}`).join(' ') || 'none'})` : `${role} ${n}`;
    };
    const unplanned = all.filter((p) => p.unplanned > 0).map((p) => `${p.name} ${p.unplanned}`);
    const lines = [
      `chaos ${settings.quick ? 'quick' : 'full'} run, seed ${settings.seed}, ${settings.replicas} replica${settings.replicas === 1 ? '' : 's'} per role, ${formatDuration(Date.now() - started)}`,
      `  tickets                 ${c.tickets} submitted, ${c.accepted} accepted runs (API returned ${accepted.length})`,
      `  kills (SIGKILL)         ${ROLES.map(killsOf).join(', ')}`,
      `  restarts                broker ${faults.brokerRestarts}, postgres ${faults.postgresRestarts}, roles ${all.reduce((n, p) => n + p.kills, 0)} after kills + ${unplanned.length ? unplanned.join(', ') : '0'} unplanned`,
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
    await roles?.stop();
    await inspector?.disconnect();
    await pool?.end().catch(() => undefined);
    await restoreServices(found, opsLog, say);
    say(`roles stopped; Kafka ${found.kafkaWasUp ? 'running' : 'stopped'} and Postgres ${found.pgWasUp ? 'running' : 'stopped'} as found; logs in ${runDir}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`chaos: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
