import { randomUUID } from 'node:crypto';
import { Bus } from '@aoc/bus';
import { FrozenTicketV1, RunMode, RunTrigger, Topics, type TicketCommentV1, type TimelineCommentV1 } from '@aoc/contracts';
import { PermanentError } from '@aoc/errors';
import { timelineFeedback } from '@aoc/feedback';
import { BUS } from '@aoc/service-host';
import { Inject, Injectable } from '@nestjs/common';
import { SpanKind, trace } from '@opentelemetry/api';
import { z } from 'zod';
import { RunEntity } from '../persistence/run.entity';

export const AnalyzeTicketRequest = z.object({
  ticket: FrozenTicketV1,
  mode: RunMode.default('read'),
  trigger: RunTrigger.default('initial'),
  cutoff: z.string().nullable().default(null).describe('Replay cutoff (ISO-8601); required for trigger=replay'),
});
export type AnalyzeTicketRequest = z.input<typeof AnalyzeTicketRequest>;

export interface AnalyzeTicketAccepted {
  runId: string;
  ticketKey: string;
  traceId: string;
  cutoff: string | null;
  analysisComments: number;
}

/** Comments the analysis may read: customer-visible, by the customer, not later than the cutoff. */
export function analysisComments(comments: TicketCommentV1[], cutoff: string | null): TicketCommentV1[] {
  const limit = cutoff ? Date.parse(cutoff) : Number.POSITIVE_INFINITY;
  return comments.filter((c) => c.visibility === 'public' && c.authorRole === 'customer' && Date.parse(c.createdAt) <= limit);
}

/**
 * The ordered timeline for `ticket.timeline-updated`. `feedback` carries the parsed /ao command only
 * when the author may give feedback (see @aoc/feedback); an untrusted command stays plain text in the
 * body. Intake input has no edit time, so `updatedAt` is the creation time.
 */
export function timelineComments(comments: readonly TicketCommentV1[], visibleUntil: number): TimelineCommentV1[] {
  return [...comments]
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id.localeCompare(b.id))
    .map((c) => ({
      id: c.id,
      authorRole: c.authorRole,
      visibility: c.visibility,
      createdAt: c.createdAt,
      updatedAt: c.createdAt,
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

/** Ticket intake: freezes the ticket, records the run and emits the request and the timeline. */
@Injectable()
export class TicketIntakeService {
  constructor(@Inject(BUS) private readonly bus: Bus) {}

  async analyze(input: AnalyzeTicketRequest): Promise<AnalyzeTicketAccepted> {
    const request = AnalyzeTicketRequest.parse(input);
    const now = new Date();
    const cutoff = checkCutoff(request.cutoff, request.trigger, request.ticket.createdAt, now);
    const runId = `run-${now.toISOString().slice(0, 10).replace(/-/g, '')}-${randomUUID().slice(0, 12)}`;
    const ticket = { ...request.ticket, comments: analysisComments(request.ticket.comments, cutoff) };
    const tracer = trace.getTracer('@aoc/service-router');
    return tracer.startActiveSpan('ticket.intake', { kind: SpanKind.SERVER, attributes: { 'aoc.run_id': runId, 'aoc.ticket_key': ticket.key } }, async (span) => {
      try {
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
          });
          await uow.publish(Topics.ticketAnalysisRequested, {
            runId,
            ticketKey: ticket.key,
            mode: request.mode,
            trigger: request.trigger,
            requestedAt: now.toISOString(),
            cutoff,
            ticket,
          });
          await uow.publish(Topics.ticketTimelineUpdated, {
            ticketKey: ticket.key,
            observedAt: now.toISOString(),
            revision: now.getTime(),
            comments: timelineComments(request.ticket.comments, cutoff ? Date.parse(cutoff) : now.getTime()),
          });
        });
        return { runId, ticketKey: ticket.key, traceId: span.spanContext().traceId, cutoff, analysisComments: ticket.comments.length };
      } finally {
        span.end();
      }
    });
  }
}
