import { randomBytes } from 'node:crypto';
import type { DataSource, Repository } from 'typeorm';
import { hashSecret } from './api-token';
import { SessionEntity } from './auth.entities';
import type { Principal } from './principal';
import { isAccessRole } from './roles';

export interface SessionTimeouts {
  /** A session unused this long ends. */
  idleMs: number;
  /** A session ends this long after sign-in, used or not. */
  absoluteMs: number;
}

export interface OpenedSession {
  /** The cookie value: shown to the browser only, stored as a hash. */
  readonly cookieValue: string;
  readonly csrfToken: string;
}

export type SessionRejection = 'unknown' | 'ended' | 'idle' | 'expired';

/** Dashboard sign-in sessions in the credential store. */
export class SessionStore {
  private readonly repo: Repository<SessionEntity>;

  constructor(dataSource: DataSource, private readonly timeouts: SessionTimeouts, private readonly now: () => Date = () => new Date()) {
    this.repo = dataSource.getRepository(SessionEntity);
  }

  async open(principal: Principal): Promise<OpenedSession> {
    const cookieValue = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(24).toString('base64url');
    const now = this.now();
    await this.repo.insert({
      idHash: hashSecret(cookieValue),
      subject: principal.subject,
      role: principal.role,
      tenant: principal.tenant,
      credential: principal.credential,
      csrfToken,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + this.timeouts.absoluteMs),
      endedAt: null,
    });
    return { cookieValue, csrfToken };
  }

  async resume(cookieValue: string): Promise<{ principal: Principal; csrfToken: string } | SessionRejection> {
    const row = await this.repo.findOneBy({ idHash: hashSecret(cookieValue) });
    if (!row || !isAccessRole(row.role)) return 'unknown';
    if (row.endedAt) return 'ended';
    const now = this.now();
    if (row.expiresAt.getTime() <= now.getTime()) return 'expired';
    if (now.getTime() - row.lastSeenAt.getTime() > this.timeouts.idleMs) return 'idle';
    if (now.getTime() - row.lastSeenAt.getTime() > 60_000) await this.repo.update({ idHash: row.idHash }, { lastSeenAt: now });
    return { principal: { subject: row.subject, role: row.role, tenant: row.tenant, credential: 'session' }, csrfToken: row.csrfToken };
  }

  async end(cookieValue: string): Promise<void> {
    await this.repo.update({ idHash: hashSecret(cookieValue) }, { endedAt: this.now() });
  }
}
