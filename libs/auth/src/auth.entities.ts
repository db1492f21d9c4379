import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The credential store's schema: shared by every role that serves HTTP, owned by no role. */
export const AUTH_SCHEMA = 'auth';

@Entity({ schema: AUTH_SCHEMA, name: 'api_tokens' })
export class ApiTokenEntity {
  @PrimaryColumn({ name: 'token_id', type: 'text' })
  tokenId!: string;

  @Column({ name: 'secret_hash', type: 'text' })
  secretHash!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  role!: string;

  @Column({ type: 'text' })
  tenant!: string;

  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;
}

/** Dashboard sessions: the cookie holds a random id; only its hash is stored. */
@Entity({ schema: AUTH_SCHEMA, name: 'sessions' })
export class SessionEntity {
  @PrimaryColumn({ name: 'id_hash', type: 'text' })
  idHash!: string;

  @Column({ type: 'text' })
  subject!: string;

  @Column({ type: 'text' })
  role!: string;

  @Column({ type: 'text' })
  tenant!: string;

  @Column({ type: 'text' })
  credential!: string;

  /** Sent back with every state-changing request from the dashboard (double submit). */
  @Column({ name: 'csrf_token', type: 'text' })
  csrfToken!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Index('IDX_auth_sessions_last_seen_at')
  @Column({ name: 'last_seen_at', type: 'timestamptz' })
  lastSeenAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt!: Date | null;
}
