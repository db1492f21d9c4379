import type { DataSource, Repository } from 'typeorm';
import { issueApiToken, parseApiToken, secretMatches } from './api-token';
import { ApiTokenEntity } from './auth.entities';
import type { Principal } from './principal';
import { ALL_TENANTS, isAccessRole, type AccessRole } from './roles';

export interface CreateTokenInput {
  name: string;
  role: AccessRole;
  /** A tenant id, or `*` (admins only). */
  tenant: string;
  createdBy: string;
  /** Absent: the token never expires (documented as a choice for automation only). */
  expiresAt?: Date | null;
}

/** What `aoc token list` shows: everything but the secret (never stored) and its hash. */
export interface TokenSummary {
  id: string;
  name: string;
  role: AccessRole;
  tenant: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** Why a presented token was not accepted; logged by reason, never with the token. */
export type TokenRejection = 'malformed' | 'unknown' | 'bad_secret' | 'revoked' | 'expired';

/** API tokens in the credential store: created with their secret shown once, stored hashed. */
export class TokenStore {
  private readonly repo: Repository<ApiTokenEntity>;

  constructor(dataSource: DataSource, private readonly now: () => Date = () => new Date()) {
    this.repo = dataSource.getRepository(ApiTokenEntity);
  }

  async create(input: CreateTokenInput): Promise<{ token: string; summary: TokenSummary }> {
    if (input.tenant === ALL_TENANTS && input.role !== 'admin') throw new Error('only an admin token may span every tenant (--tenant "*")');
    const issued = issueApiToken();
    const row = this.repo.create({
      tokenId: issued.id,
      secretHash: issued.secretHash,
      name: input.name,
      role: input.role,
      tenant: input.tenant,
      createdBy: input.createdBy,
      createdAt: this.now(),
      expiresAt: input.expiresAt ?? null,
      revokedAt: null,
      lastUsedAt: null,
    });
    await this.repo.insert(row);
    return { token: issued.token, summary: summarize(row) };
  }

  async list(): Promise<TokenSummary[]> {
    const rows = await this.repo.find({ order: { createdAt: 'ASC' } });
    return rows.map(summarize);
  }

  /** Revokes by id; false when no such token exists. Revoking twice keeps the first time. */
  async revoke(id: string): Promise<boolean> {
    const row = await this.repo.findOneBy({ tokenId: id });
    if (!row) return false;
    if (!row.revokedAt) await this.repo.update({ tokenId: id }, { revokedAt: this.now() });
    return true;
  }

  /** Checks a presented token; the principal it stands for, or why it was refused. */
  async verify(token: string): Promise<Principal | TokenRejection> {
    const parts = parseApiToken(token);
    if (!parts) return 'malformed';
    const row = await this.repo.findOneBy({ tokenId: parts.id });
    if (!row) return 'unknown';
    if (!secretMatches(parts.secret, row.secretHash)) return 'bad_secret';
    if (row.revokedAt) return 'revoked';
    const now = this.now();
    if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return 'expired';
    if (!isAccessRole(row.role)) return 'unknown';
    // Last use is kept to the minute so a busy token does not write on every request.
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > 60_000) await this.repo.update({ tokenId: row.tokenId }, { lastUsedAt: now });
    return { subject: `token:${row.tokenId}`, role: row.role, tenant: row.tenant, credential: 'api_token' };
  }
}

function summarize(row: ApiTokenEntity): TokenSummary {
  return {
    id: row.tokenId,
    name: row.name,
    role: isAccessRole(row.role) ? row.role : 'viewer',
    tenant: row.tenant,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}
