import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export type TimelineWatchStatus = 'active' | 'inaccessible' | 'expired';

/**
 * One answered ticket the timeline collector re-reads: what it last published (revision and a
 * digest of the comments) and when to read it next. The table is the collector's persisted
 * cursor: due tickets are taken in `next_poll_at` order, so a restart resumes where it stopped.
 */
@Entity({ schema: 'router', name: 'timeline_watch' })
@Index('idx_router_timeline_watch_due', ['status', 'nextPollAt'])
export class TimelineWatchEntity {
  @PrimaryColumn({ name: 'ticket_key', type: 'text' })
  ticketKey!: string;

  /** Publication time of the ticket's latest answer: the lookback counts from it. */
  @Column({ name: 'last_answered_at', type: 'timestamptz' })
  lastAnsweredAt!: Date;

  /** Comments up to this instant were visible to that answer (its cutoff or request time). */
  @Column({ name: 'visible_until', type: 'timestamptz' })
  visibleUntil!: Date;

  /** Last `ticket.timeline-updated` revision the collector published (0: none yet). */
  @Column({ type: 'bigint' })
  revision!: string;

  @Column({ type: 'text', nullable: true })
  digest!: string | null;

  @Column({ type: 'text' })
  status!: TimelineWatchStatus;

  /** Why polling stopped or keeps failing (error code and message, never a credential). */
  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  /** Consecutive failed reads (backoff grows with it). */
  @Column({ type: 'int' })
  failures!: number;

  @Column({ name: 'next_poll_at', type: 'timestamptz' })
  nextPollAt!: Date;

  @Column({ name: 'last_polled_at', type: 'timestamptz', nullable: true })
  lastPolledAt!: Date | null;
}
