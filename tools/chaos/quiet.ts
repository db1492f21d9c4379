// What the tables and the role consumer groups say about the runs, and when the system is quiet:
// shared by the chaos suite (chaos.ts) and the scale benchmark (tools/scale/scale.ts).
import type { KafkaInspector } from '@aoc/bus';
import type { Pool } from 'pg';
import type { ChaosObservation } from './chaos-plan';
import { sleep } from './processes';
import { ROLE_CLIENTS } from './stack';

const SCHEMAS = ['router', 'evidence', 'provider_executor', 'judge', 'reporter', 'optimizer'];

export type DbObservation = Pick<ChaosObservation, 'runs' | 'tables' | 'pendingOutbox'>;

export interface QuietOptions {
  /** How long the system may take to become quiet. */
  timeoutMs: number;
  /** How many runs must be there (the tickets accepted so far). */
  accepted: () => number;
  /** How often to look (3 s by default). */
  everyMs?: number;
  /** Idle but incomplete: nothing sent, nothing behind, the tables unchanged this long (45 s by default). */
  idleMs?: number;
  stopped?: () => boolean;
  /** Called when the tables first show every run complete (again, if a streak broke off): a benchmark's stop watch. */
  onComplete?: () => void;
}

export interface Quiet {
  outcome: 'complete' | 'idle' | null;
  /** When the tables first showed every run complete, in the streak that ended the wait (ms since the epoch). */
  completeAt: number | null;
}

/** Reads the runs from the tables and the lag of the role consumer groups (the database is the run's own). */
export class RunObserver {
  /** The role consumer groups and their topics (kept across restarts: a group is missing from the list while its role restarts). */
  readonly groups = new Map<string, string[]>();

  constructor(
    private readonly pool: Pool,
    private readonly inspector: KafkaInspector,
    private readonly expectJudged: (ticketKey: string) => boolean,
  ) {}

  /** Adds the groups that have a live member of a role client now; returns all known. */
  async discoverGroups(): Promise<string[]> {
    for (const g of await this.inspector.groupsOfClients(ROLE_CLIENTS)) this.groups.set(g.groupId, [...new Set([...(this.groups.get(g.groupId) ?? []), ...g.topics])]);
    return [...this.groups.keys()];
  }

  async observeDb(): Promise<DbObservation> {
    const db = this.pool;
    const runs = (
      await db.query<{ run_id: string; ticket_key: string; status: string; open: number }>(
        `SELECT r.run_id, r.ticket_key, r.status, (SELECT count(*)::int FROM router.scenario_threads t WHERE t.run_id = r.run_id AND t.status <> 'concluded') AS open FROM router.runs r ORDER BY r.created_at`,
      )
    ).rows.map((r) => ({ runId: r.run_id, status: r.status, openThreads: r.open, expectJudged: this.expectJudged(r.ticket_key) }));
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
  }

  async observeLag(): Promise<Record<string, number>> {
    await this.discoverGroups();
    const lag: Record<string, number> = {};
    for (const [groupId, topics] of this.groups) lag[groupId] = Object.values(await this.inspector.groupLag(groupId, topics)).reduce((a, b) => a + b, 0);
    return lag;
  }

  /** Every run published with its scenario threads concluded, its execution (and, when judged, its evaluation) at the reporter, every outbox drained. */
  static settled(db: DbObservation, accepted: number): boolean {
    return (
      db.runs.length >= accepted &&
      db.runs.every((r) => r.status === 'published' && r.openThreads === 0 && db.tables.reporterExecutions.has(r.runId) && (!r.expectJudged || db.tables.reporterEvaluations.has(r.runId))) &&
      Object.values(db.pendingOutbox).every((n) => n === 0)
    );
  }

  /**
   * Waits until quiet: everything expected arrived (twice in a row, no consumer lag), or nothing
   * moves any more (outboxes empty, no lag, the tables unchanged for `idleMs`): then the checks
   * say what is missing. `outcome` null: neither within `timeoutMs`.
   */
  async waitQuiet(o: QuietOptions): Promise<Quiet> {
    const everyMs = o.everyMs ?? 3000;
    const idleMs = o.idleMs ?? 45_000;
    let complete = 0;
    let completeAt: number | null = null;
    let idleSince: number | null = null;
    let last = '';
    const start = Date.now();
    while (Date.now() - start < o.timeoutMs && !o.stopped?.()) {
      const seenAt = Date.now();
      const db = await this.observeDb().catch(() => null);
      const drained = db !== null && Object.values(db.pendingOutbox).every((n) => n === 0);
      const lag = drained ? await this.observeLag().catch(() => null) : null;
      const still = lag !== null && Object.values(lag).every((n) => n === 0);
      const done = db !== null && RunObserver.settled(db, o.accepted());
      complete = still && done ? complete + 1 : 0;
      if (done && completeAt === null) o.onComplete?.();
      completeAt = done ? (completeAt ?? seenAt) : null;
      const snapshot = db ? JSON.stringify([db.runs, [...db.tables.reporterExecutions.keys()].sort(), [...db.tables.reporterEvaluations.keys()].sort(), [...db.tables.judgeEvaluations.keys()].sort()]) : '';
      idleSince = still && snapshot === last ? (idleSince ?? Date.now()) : null;
      last = snapshot;
      if (complete >= 2) return { outcome: 'complete', completeAt };
      if (idleSince !== null && Date.now() - idleSince >= idleMs) return { outcome: 'idle', completeAt: null };
      await sleep(everyMs);
    }
    return { outcome: null, completeAt: null };
  }
}
