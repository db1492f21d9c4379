import type { EdgeRequest } from '@aoc/auth';
import type { DataSource } from 'typeorm';

/** One audited HTTP request: who, for which tenant, did what to which target, with what outcome. */
export interface AuditEvent {
  at: Date;
  subject: string;
  tenant: string | null;
  role: string | null;
  action: string;
  target: string;
  status: number;
}

/** Name of the table each HTTP role keeps its audit in, inside its own schema (created by its migration). */
export const AUDIT_TABLE = 'http_audit';

const MAX_TARGET = 300;

/** What was asked for: the route's parameters (a run, a ticket, a Focus), never the query string or the body. */
export function auditTargetOf(params: Readonly<Record<string, string>> | undefined): string {
  const parts = Object.entries(params ?? {}).map(([k, v]) => `${k}=${String(v).slice(0, 128)}`);
  return parts.join(' ').slice(0, MAX_TARGET);
}

/**
 * The audit event of a finished request, or null for what needs none (the sign-in page itself).
 * Token values, cookies and bodies are never part of it.
 */
/** Paths machines read on every role: liveness, readiness and the metrics scrape. */
const MACHINE_READS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

export function auditEventOf(request: EdgeRequest & { route?: { path?: string }; params?: Record<string, string> }, status: number, at: Date): AuditEvent | null {
  const path = request.route?.path ?? (request.originalUrl ?? request.url).split('?')[0];
  if (request.method.toUpperCase() === 'GET' && path === '/auth/sign-in') return null;
  // Probes and scrapes come every few seconds, carry no credential and read no customer data: an
  // answered one is no event worth a row; a refused or failed one still is.
  if (request.method.toUpperCase() === 'GET' && MACHINE_READS.has(path) && status < 400) return null;
  const p = request.principal;
  return {
    at,
    subject: p?.subject ?? 'unauthenticated',
    tenant: p?.tenant ?? null,
    role: p?.role ?? null,
    action: `${request.method.toUpperCase()} ${path}`.slice(0, 200),
    target: auditTargetOf(request.params),
    status,
  };
}

interface AuditRow {
  at: Date | string;
  subject: string;
  tenant: string | null;
  role: string | null;
  action: string;
  target: string;
  status: number | string;
}

/** How often a process deletes the rows past retention: at most once an hour, on a write. */
const PRUNE_EVERY_MS = 3_600_000;

/** Writes and reads a role's audit table, and keeps it within its retention. */
export class AuditLog {
  private readonly table: string;
  private lastPrune = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
    private readonly retentionMs: number = 90 * 86_400_000,
    private readonly now: () => number = Date.now,
  ) {
    // TypeORM quotes each part of the path itself.
    this.table = `${schema}.${AUDIT_TABLE}`;
  }

  async record(event: AuditEvent): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(this.table, ['at', 'subject', 'tenant', 'role', 'action', 'target', 'status'])
      .values({ at: event.at, subject: event.subject, tenant: event.tenant, role: event.role, action: event.action, target: event.target, status: event.status })
      .execute();
    if (this.now() - this.lastPrune >= PRUNE_EVERY_MS) await this.prune();
  }

  /** Deletes the rows older than the retention; returns how many went. */
  async prune(): Promise<number> {
    this.lastPrune = this.now();
    const result = await this.dataSource
      .createQueryBuilder()
      .delete()
      .from(this.table)
      .where('at < :before', { before: new Date(this.now() - this.retentionMs) })
      .execute();
    return result.affected ?? 0;
  }

  async recent(limit: number): Promise<AuditEvent[]> {
    const rows = await this.dataSource
      .createQueryBuilder()
      .select(['a.at AS at', 'a.subject AS subject', 'a.tenant AS tenant', 'a.role AS role', 'a.action AS action', 'a.target AS target', 'a.status AS status'])
      .from(this.table, 'a')
      .orderBy('a.id', 'DESC')
      .limit(limit)
      .getRawMany<AuditRow>();
    return rows.map((r) => ({ ...r, at: new Date(r.at), status: Number(r.status) }));
  }
}
