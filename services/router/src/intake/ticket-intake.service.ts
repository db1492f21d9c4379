import { randomUUID } from 'node:crypto';
import { Bus } from '@aoc/bus';
import { FrozenTicketV1, RunMode, RunTrigger, TicketKey, Topics, isCallerTicketKey, type TicketCommentV1, type TimelineCommentV1 } from '@aoc/contracts';
import { PermanentError } from '@aoc/errors';
import { timelineFeedback } from '@aoc/feedback';
import { BUS } from '@aoc/service-host';
import { questionDigest, TICKET_SOURCE, type TicketSource } from '@aoc/ticket-source';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { SpanKind, trace } from '@opentelemetry/api';
import { z } from 'zod';
import { RunEntity, type WriteBackState } from '../persistence/run.entity';
import { DEFAULT_DEADLINES, runDeadline, type DeadlineOptions } from '../router-options';
import { ROUTER_DEADLINES } from '../router.tokens';
import { WriteBackService } from '../write-back/write-back.service';
import { clipOversizedTicket } from './oversized-ticket';
import { callerTicketKey, checkCallerMode, type TicketOrigin } from './ticket-origin';

export const AnalyzeTicketRequest = z
  .object({
    ticket: FrozenTicketV1.optional().describe('The ticket itself; omit it to read ticketKey from the configured ticket source'),
    ticketKey: TicketKey.optional(),
    mode: RunMode.default('read'),
    trigger: RunTrigger.default('initial'),
    cutoff: z.string().nullable().default(null).describe('Replay cutoff (ISO-8601); required for trigger=replay'),
    import: z.boolean().default(false).describe('An operator vouches for the ticket in the body: it keeps its key and its history'),
  })
  .refine((r) => r.ticket !== undefined || r.ticketKey !== undefined, { message: 'give either ticket or ticketKey', path: ['ticket'] });
export type AnalyzeTicketRequest = z.input<typeof AnalyzeTicketRequest>;

export const PublishReadRequest = z.object({
  runId: z.string().min(1).max(128),
  ticketKey: TicketKey.describe('The issue the caller means to write to; must be the run\'s'),
  answerFingerprint: z.string().regex(/^[a-f0-9]{64}$/).describe('The answer version the caller reviewed; must be the run\'s'),
});
export type PublishReadRequest = z.input<typeof PublishReadRequest>;

export interface PublishReadResult {
  runId: string;
  ticketKey: string;
  writeBack: WriteBackState;
}

export interface AnalyzeTicketAccepted {
  runId: string;
  ticketKey: string;
  traceId: string;
  cutoff: string | null;
  analysisComments: number;
  /** What intake had to cut to fit the contract (oversized tickets), if anything. */
  clipped: string[];
}

/** Comments the analysis may read: customer-visible, by the customer, not later than the cutoff. */
export function analysisComments(comments: TicketCommentV1[], cutoff: string | null): TicketCommentV1[] {
  const limit = cutoff ? Date.parse(cutoff) : Number.POSITIVE_INFINITY;
  return comments.filter((c) => c.visibility === 'public' && c.authorRole === 'customer' && Date.parse(c.createdAt) <= limit);
}

/**
 * The ordered timeline for `ticket.timeline-updated`. `feedback` carries the parsed /ao command only
 * when the author may give feedback (see @aoc/feedback); an untrusted command stays plain text in the
 * body. Intake input has no edit time, so `updatedAt` is the creation time unless the source gave one.
 */
export function timelineComments(comments: readonly (TicketCommentV1 & { updatedAt?: string })[], visibleUntil: number): TimelineCommentV1[] {
  return [...comments]
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id.localeCompare(b.id))
    .map((c) => ({
      id: c.id,
      authorRole: c.authorRole,
      visibility: c.visibility,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt ?? c.createdAt,
      body: c.body,
      visibleToAi: c.visibility === 'public' && Date.parse(c.createdAt) <= visibleUntil,
      feedback: timelineFeedback(c),
    }));
}

/** Validates a replay cutoff; anything doubtful fails closed. */
export function checkCutoff(cutoff: string | null, trigger: string, ticketCreatedAt: string, now: Date): string | null {
  if (cutoff === null) {
    if (trigger === 'replay') throw new PermanentError('INTAKE.CUTOFF_MISSING', 'a replay needs a cutoff; refusing to read comments without one');
    return null;
  }
  const parsed = z.iso.datetime({ offset: true }).safeParse(cutoff);
  if (!parsed.success) throw new PermanentError('INTAKE.CUTOFF_INVALID', `cutoff "${cutoff.slice(0, 64)}" is not an ISO-8601 timestamp with offset`);
  const at = Date.parse(cutoff);
  if (at > now.getTime()) throw new PermanentError('INTAKE.CUTOFF_INVALID', 'cutoff lies in the future');
  if (at < Date.parse(ticketCreatedAt)) throw new PermanentError('INTAKE.CUTOFF_INVALID', 'cutoff is earlier than the ticket itself');
  return new Date(at).toISOString();
}

/** A ticket created after the request arrived cannot be analysed: its times are not trustworthy. */
export function checkTicketTimes(ticket: FrozenTicketV1, now: Date): void {
  const skewMs = 5 * 60_000;
  if (Date.parse(ticket.createdAt) > now.getTime() + skewMs) throw new PermanentError('INTAKE.TICKET_TIME_INVALID', 'ticket.createdAt lies in the future');
  const late = ticket.comments.find((c) => Date.parse(c.createdAt) > now.getTime() + skewMs);
  if (late) throw new PermanentError('INTAKE.TICKET_TIME_INVALID', `comment ${late.id.slice(0, 64)} has a createdAt in the future`);
}

/** Ticket intake: freezes the ticket, records the run and emits the request and the timeline. */
@Injectable()
export class TicketIntakeService {
  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Optional() @Inject(ROUTER_DEADLINES) private readonly deadlines: DeadlineOptions = DEFAULT_DEADLINES,
    @Optional() @Inject(TICKET_SOURCE) private readonly source: TicketSource | null = null,
    @Optional() @Inject(WriteBackService) private readonly writeBack: WriteBackService | null = null,
  ) {}

  /** Writes a published read-mode answer back to its ticket as the one internal comment of its run. */
  async publishRead(input: PublishReadRequest): Promise<PublishReadResult> {
    const { runId, ticketKey, answerFingerprint } = PublishReadRequest.parse(input);
    if (isCallerTicketKey(ticketKey)) throw new PermanentError('INTAKE.UNTRUSTED_TICKET', 'an answer to a ticket sent in a request body is never written to a ticket source');
    if (!this.writeBack) throw new PermanentError('TICKET_SOURCE.NOT_CONFIGURED', 'no ticket source is configured (AOC_TICKET_SOURCE); nothing can be written back');
    const done = await this.writeBack.writeRun(runId, 'publish-read', { ticketKey, answerFingerprint });
    if (!done) throw new PermanentError('INTAKE.RUN_NOT_FOUND', `no run ${runId.slice(0, 128)}`);
    if (done.state.status === 'failed') throw new PermanentError(done.state.errorCode ?? 'TICKET_SOURCE.WRITE_FAILED', `writing the internal comment for run ${runId} failed`);
    return { runId: done.run.runId, ticketKey: done.run.ticketKey, writeBack: done.state };
  }

  /**
   * In-process callers (the launcher, the CLI) run on the operator's machine and import; the HTTP
   * intake passes the caller's origin, so a body from anyone but an importing operator is untrusted.
   */
  async analyze(input: AnalyzeTicketRequest, origin: TicketOrigin = { kind: 'import' }): Promise<AnalyzeTicketAccepted> {
    const clipped: string[] = [];
    // A request without a body (or not an object) is refused by the schema below, naming its fields.
    const raw = (typeof input === 'object' && input !== null ? input : {}) as { ticket?: unknown };
    const request = AnalyzeTicketRequest.parse(raw.ticket === undefined ? raw : { ...raw, ticket: clipOversizedTicket(raw.ticket, clipped) });
    if (request.ticket) checkCallerMode(origin, request.mode);
    if (request.mode === 'write' && !this.source) throw new PermanentError('TICKET_SOURCE.NOT_CONFIGURED', 'mode=write needs a ticket source (AOC_TICKET_SOURCE) to write the internal comment to');
    let frozen: FrozenTicketV1;
    const untrusted = request.ticket !== undefined && origin.kind === 'caller';
    if (request.ticket && origin.kind === 'caller') {
      frozen = { ...request.ticket, key: callerTicketKey(origin.subject, request.ticket.key) };
    } else if (request.ticket) frozen = request.ticket;
    else if (this.source && request.ticketKey) frozen = FrozenTicketV1.parse(clipOversizedTicket(await this.source.readTicket(request.ticketKey), clipped));
    else throw new PermanentError('TICKET_SOURCE.NOT_CONFIGURED', 'ticketKey was given but no ticket source is configured (AOC_TICKET_SOURCE); send the ticket itself');
    const now = new Date();
    checkTicketTimes(frozen, now);
    const cutoff = checkCutoff(request.cutoff, request.trigger, frozen.createdAt, now);
    const runId = `run-${now.toISOString().slice(0, 10).replace(/-/g, '')}-${randomUUID().slice(0, 12)}`;
    const ticket = { ...frozen, comments: analysisComments(frozen.comments, cutoff) };
    const tracer = trace.getTracer('@aoc/service-router');
    return tracer.startActiveSpan('ticket.intake', { kind: SpanKind.SERVER, attributes: { 'aoc.run_id': runId, 'aoc.ticket_key': ticket.key } }, async (span) => {
      try {
        const analysisRequest = { runId, ticketKey: ticket.key, mode: request.mode, trigger: request.trigger, requestedAt: now.toISOString(), cutoff, ticket };
        await this.bus.transaction(async (uow) => {
          await uow.manager.insert(RunEntity, {
            runId,
            ticketKey: ticket.key,
            title: ticket.title,
            mode: request.mode,
            trigger: request.trigger,
            cutoff: cutoff ? new Date(cutoff) : null,
            status: 'requested',
            scenarioCount: 0,
            traceId: span.spanContext().traceId,
            answerFingerprint: null,
            publishedAt: null,
            deadlineAt: runDeadline(now, this.deadlines),
            request: analysisRequest,
          });
          await uow.publish(Topics.ticketAnalysisRequested, analysisRequest);
          // An untrusted body's comments (claimed authors, /ao lines, "human answers") never become
          // a timeline revision: no Judge verdict, feedback, report quality or optimizer signal.
          if (!untrusted) await uow.publish(Topics.ticketTimelineUpdated, {
            ticketKey: ticket.key,
            observedAt: now.toISOString(),
            revision: now.getTime(),
            comments: timelineComments(frozen.comments, cutoff ? Date.parse(cutoff) : now.getTime()),
            questionDigest: questionDigest(frozen),
          });
        });
        return { runId, ticketKey: ticket.key, traceId: span.spanContext().traceId, cutoff, analysisComments: ticket.comments.length, clipped };
      } finally {
        span.end();
      }
    });
  }
}
