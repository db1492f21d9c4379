import { Bus } from '@aoc/bus';
import { TicketKey, Topics } from '@aoc/contracts';
import { AocError } from '@aoc/errors';
import { BUS, DATA_SOURCE, LOGGER } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import { TICKET_SOURCE, type TicketSource } from '@aoc/ticket-source';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { TimelineWatchEntity } from '../persistence/timeline-watch.entity';
import { ROUTER_COLLECTOR } from '../router.tokens';
import { backoffMs, DEFAULT_COLLECTOR, MAX_BACKFILL, type CollectorOptions } from './collector-options';
import { nextRevision, snapshotOf } from './timeline-snapshot';

export const CollectRequest = z.object({
  limit: z.number().int().min(1).max(MAX_BACKFILL).default(MAX_BACKFILL).describe('Tickets to read in this call'),
  ticketKeys: z.array(TicketKey).max(MAX_BACKFILL).optional().describe('Only these tickets (still within the lookback), due or not'),
  all: z.boolean().default(false).describe('Backfill: read every watched ticket now, due or not (oldest read first)'),
});
export type CollectRequest = z.input<typeof CollectRequest>;

export interface CollectResult {
  enrolled: number;
  polled: number;
  published: number;
  unchanged: number;
  /** Tickets that stopped being polled (gone or no longer readable), with the reason recorded. */
  stopped: number;
  failed: number;
  /** Set when the source is down or limiting: the cycle stopped early and resumes after this. */
  pausedUntil: string | null;
}

/** Ticket source errors that say the source as a whole is unusable right now (not this ticket). */
const SOURCE_WIDE = new Set(['TICKET_SOURCE.AUTH_FAILED', 'TICKET_SOURCE.CONFIG_INVALID']);
/** Failed reads in a row after which a ticket is given up with the reason recorded. */
const GIVE_UP_AFTER = 8;

/**
 * Timeline collector: re-reads the comments of every ticket answered within the lookback and
 * publishes a new `ticket.timeline-updated` revision only when something changed (a new, edited,
 * re-scoped or deleted comment), in the same transaction as its own record, so a crash publishes
 * a change once or not at all. Bounded per call; a source that is down or rate-limiting pauses
 * the cycle (Retry-After honoured); a ticket that is gone stops being polled with its reason.
 */
@Injectable()
export class TimelineCollector {
  private pausedUntil = 0;
  /** Consecutive cycles that found the source down: the pause grows with them. */
  private sourceFailures = 0;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
    @Optional() @Inject(TICKET_SOURCE) private readonly source: TicketSource | null = null,
    @Optional() @Inject(ROUTER_COLLECTOR) private readonly options: CollectorOptions = DEFAULT_COLLECTOR,
  ) {}

  get configured(): boolean {
    return this.source !== null;
  }

  async collect(input: CollectRequest = {}, now: Date = new Date()): Promise<CollectResult> {
    const request = CollectRequest.parse(input);
    const result: CollectResult = { enrolled: await this.enroll(now), polled: 0, published: 0, unchanged: 0, stopped: 0, failed: 0, pausedUntil: null };
    if (!this.source) return result;
    if (this.pausedUntil > now.getTime() && !request.ticketKeys && !request.all) return { ...result, pausedUntil: new Date(this.pausedUntil).toISOString() };
    for (const watch of await this.due(request, now)) {
      const outcome = await this.poll(this.source, watch, now);
      result.polled += 1;
      result[outcome.kind] += 1;
      if (outcome.pauseMs !== null) {
        this.pausedUntil = now.getTime() + outcome.pauseMs;
        result.pausedUntil = new Date(this.pausedUntil).toISOString();
        break;
      }
    }
    return result;
  }

  /** Adds tickets answered within the lookback (and refreshes the latest answer of known ones); expires the rest. */
  private async enroll(now: Date): Promise<number> {
    const since = new Date(now.getTime() - this.options.lookbackDays * 86_400_000);
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO "router"."timeline_watch" AS w ("ticket_key", "last_answered_at", "visible_until", "revision", "digest", "status", "reason", "failures", "next_poll_at", "last_polled_at")
       SELECT DISTINCT ON (r."ticket_key") r."ticket_key", r."published_at", COALESCE(r."cutoff", (r."request"->>'requestedAt')::timestamptz, r."created_at"), 0, NULL, 'active', NULL, 0, $2::timestamptz, NULL
         FROM "router"."runs" r
        WHERE r."published_at" IS NOT NULL AND r."published_at" >= $1
        ORDER BY r."ticket_key", r."published_at" DESC
       ON CONFLICT ("ticket_key") DO UPDATE SET
         "last_answered_at" = excluded."last_answered_at", "visible_until" = excluded."visible_until",
         "status" = CASE WHEN w."status" = 'expired' THEN 'active' ELSE w."status" END,
         "next_poll_at" = CASE WHEN w."status" = 'expired' THEN excluded."next_poll_at" ELSE w."next_poll_at" END
       WHERE excluded."last_answered_at" > w."last_answered_at"
       RETURNING "ticket_key"`,
      [since, now],
    );
    await this.dataSource.query(`UPDATE "router"."timeline_watch" SET "status" = 'expired' WHERE "status" = 'active' AND "last_answered_at" < $1`, [since]);
    return rows.length;
  }

  private due(request: z.output<typeof CollectRequest>, now: Date): Promise<TimelineWatchEntity[]> {
    const q = this.dataSource.manager.createQueryBuilder(TimelineWatchEntity, 'w').where('w.status = :status', { status: 'active' });
    if (request.ticketKeys) q.andWhere('w.ticketKey IN (:...keys)', { keys: request.ticketKeys.length > 0 ? request.ticketKeys : [''] });
    else if (!request.all) q.andWhere('w.nextPollAt <= :now', { now });
    // A backfill reads the least recently read first, so consecutive calls cover every ticket.
    if (request.all || request.ticketKeys) q.orderBy('w.lastPolledAt', 'ASC', 'NULLS FIRST').addOrderBy('w.ticketKey', 'ASC');
    else q.orderBy('w.nextPollAt', 'ASC').addOrderBy('w.ticketKey', 'ASC');
    return q.limit(request.limit).getMany();
  }

  private async poll(source: TicketSource, watch: TimelineWatchEntity, now: Date): Promise<{ kind: 'published' | 'unchanged' | 'stopped' | 'failed'; pauseMs: number | null }> {
    let snapshot: ReturnType<typeof snapshotOf>;
    try {
      snapshot = snapshotOf(await source.readTimeline(watch.ticketKey), watch.visibleUntil);
    } catch (error) {
      return this.failed(watch, error, now);
    }
    this.sourceFailures = 0;
    const done: { kind: 'published' | 'unchanged' } = { kind: 'unchanged' };
    try {
      await this.record(watch, snapshot, now, done);
    } catch (error) {
      // One ticket's failure (a timeline the bus refuses, say) is that ticket's: it backs off and the cycle goes on.
      return this.failed(watch, error, now);
    }
    if (done.kind === 'published') this.logger.info('timeline changed', { ticketKey: watch.ticketKey, comments: snapshot.comments.length });
    return { kind: done.kind, pauseMs: null };
  }

  /** Publishes the snapshot when it changed and records the poll, in one transaction. */
  private async record(watch: TimelineWatchEntity, snapshot: ReturnType<typeof snapshotOf>, now: Date, done: { kind: 'published' | 'unchanged' }): Promise<void> {
    await this.bus.transaction(async (uow) => {
      // Re-read under a lock: a concurrent cycle (another replica) publishes a change once.
      const [row] = (await uow.manager.query(`SELECT "revision", "digest" FROM "router"."timeline_watch" WHERE "ticket_key" = $1 FOR UPDATE`, [watch.ticketKey])) as { revision: string; digest: string | null }[];
      const changed = !row || row.digest !== snapshot.digest;
      const revision = changed ? nextRevision(Number(row?.revision ?? 0), now) : Number(row.revision);
      if (changed) {
        await uow.publish(Topics.ticketTimelineUpdated, { ticketKey: watch.ticketKey, observedAt: now.toISOString(), revision, comments: snapshot.comments, questionDigest: snapshot.questionDigest });
        done.kind = 'published';
      }
      await uow.manager.update(
        TimelineWatchEntity,
        { ticketKey: watch.ticketKey },
        { revision: String(revision), digest: snapshot.digest, failures: 0, reason: null, lastPolledAt: now, nextPollAt: new Date(now.getTime() + this.options.repollMs) },
      );
    });
  }

  private async failed(watch: TimelineWatchEntity, error: unknown, now: Date): Promise<{ kind: 'stopped' | 'failed'; pauseMs: number | null }> {
    const code = error instanceof AocError ? error.code : 'TICKET_SOURCE.UNKNOWN';
    const reason = `${code}: ${(error instanceof Error ? error.message : String(error)).slice(0, 500)}`;
    const failures = watch.failures + 1;
    const gone = code === 'TICKET_SOURCE.NOT_FOUND' || failures >= GIVE_UP_AFTER;
    const sourceDown = error instanceof AocError && (error.retryable || SOURCE_WIDE.has(code));
    const retryAfter = error instanceof AocError && typeof error.details['retryAfterMs'] === 'number' ? error.details['retryAfterMs'] : null;
    if (sourceDown) this.sourceFailures += 1;
    const wait = backoffMs(sourceDown ? this.sourceFailures : failures, retryAfter, this.options.maxBackoffMs);
    if (gone && !sourceDown) {
      await this.dataSource.manager.update(TimelineWatchEntity, { ticketKey: watch.ticketKey }, { status: 'inaccessible', reason, failures, lastPolledAt: now });
      this.logger.warn('ticket no longer polled', { ticketKey: watch.ticketKey, code });
      return { kind: 'stopped', pauseMs: null };
    }
    // A source-wide failure leaves the ticket's own count alone: it is not the ticket's fault.
    await this.dataSource.manager.update(
      TimelineWatchEntity,
      { ticketKey: watch.ticketKey },
      { reason, failures: sourceDown ? watch.failures : failures, lastPolledAt: now, nextPollAt: new Date(now.getTime() + wait) },
    );
    this.logger.warn('timeline read failed', { ticketKey: watch.ticketKey, code, retryInMs: wait });
    return { kind: 'failed', pauseMs: sourceDown ? wait : null };
  }
}
