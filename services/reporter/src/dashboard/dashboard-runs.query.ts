import type { DataSource } from 'typeorm';
import type { ReporterTables } from '../reporter.tables';

export interface RunListRow {
  runId: string;
  ticketKey: string;
  trigger: string;
  decision: string;
  publishedAt: string;
  evidenceStatus: string | null;
  verdict: string | null;
}

export interface RunListPage {
  rows: RunListRow[];
  /** Cursor for the next (older) page: the last run on this page, or null at the end. */
  nextBefore: string | null;
}

interface RawRunRow {
  run_id: string;
  ticket_key: string;
  trigger: string;
  decision: string;
  published_at: Date | string;
  evidence_status: string | null;
  verdict: string | null;
}

/** Thrown when `before` names a run the reporter does not know. */
export class UnknownCursorError extends Error {}

/**
 * The runs list with keyset paging over (published_at, run_id), newest first. RunSummaryQuery.list()
 * carries neither trigger, evidence status, verdict nor a cursor, so the dashboard reads the
 * reporter's own tables here (never another role's).
 */
export class DashboardRunsQuery {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tables: ReporterTables,
  ) {}

  /** `tenant`: only that tenant's runs; null: every tenant's. */
  async page(limit: number, before?: string, tenant: string | null = null): Promise<RunListPage> {
    const { runs, executions, evaluations } = this.tables;
    const params: unknown[] = [limit + 1];
    const conditions: string[] = [];
    if (tenant !== null) {
      params.push(tenant);
      conditions.push(`p.tenant = $${params.length}`);
    }
    if (before !== undefined) {
      const cursor: unknown[] = await this.dataSource.query(`SELECT 1 FROM ${runs} WHERE run_id = $1`, [before]);
      if (cursor.length === 0) throw new UnknownCursorError(`run ${before} is not known to the reporter`);
      params.push(before);
      // The cursor's timestamp stays in SQL so no precision is lost on a round trip through JS.
      conditions.push(`(p.published_at, p.run_id) < ((SELECT published_at FROM ${runs} WHERE run_id = $${params.length}), $${params.length})`);
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    // One extra row tells whether an older page exists without a count query.
    const raw: RawRunRow[] = await this.dataSource.query(
      `SELECT p.run_id, p.ticket_key, p.trigger, p.decision, p.published_at, x.evidence_status, e.verdict
         FROM ${runs} p
         LEFT JOIN ${executions} x ON x.run_id = p.run_id
         LEFT JOIN LATERAL (SELECT verdict FROM ${evaluations} ev WHERE ev.run_id = p.run_id ORDER BY ev.judged_at DESC LIMIT 1) e ON true
         ${where}
         ORDER BY p.published_at DESC, p.run_id DESC
         LIMIT $1`,
      params,
    );
    const rows = raw.slice(0, limit).map((r) => ({
      runId: r.run_id,
      ticketKey: r.ticket_key,
      trigger: r.trigger,
      decision: r.decision,
      publishedAt: new Date(r.published_at).toISOString(),
      evidenceStatus: r.evidence_status,
      verdict: r.verdict,
    }));
    return { rows, nextBefore: raw.length > limit ? rows[rows.length - 1].runId : null };
  }
}
