import { BusErrorPassthroughFilter, OnTopic, PrepareTopic, type HandlerContext } from '@aoc/bus';
import { Topics, type EnvelopeMeta, type RunPublishedV1, type TicketAnalysisRequestedV1, type TicketTimelineUpdatedV1 } from '@aoc/contracts';
import { Controller, UseFilters } from '@nestjs/common';
import { Payload, Ctx } from '@nestjs/microservices';
import { JudgeAnswerHandler } from './judge-answer/judge-answer.handler';

/**
 * The judge's subscriptions: the frozen ticket, published answers and ticket timelines. Never
 * `run.execution-recorded` (the bus and the broker refuse it anyway). Each topic has a prepare
 * step that asks the model outside the handler's transaction.
 */
@Controller()
@UseFilters(BusErrorPassthroughFilter)
export class JudgeBusController {
  constructor(private readonly judge: JudgeAnswerHandler) {}

  @PrepareTopic(Topics.ticketAnalysisRequested)
  prepareAnalysisRequested(@Payload() payload: TicketAnalysisRequestedV1, @Ctx() _envelope: EnvelopeMeta): Promise<unknown> {
    return this.judge.prepare({ kind: 'ticket', request: payload });
  }

  @OnTopic(Topics.ticketAnalysisRequested)
  onAnalysisRequested(@Payload() payload: TicketAnalysisRequestedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.judge.handle({ kind: 'ticket', request: payload }, ctx);
  }

  @PrepareTopic(Topics.runPublished)
  preparePublished(@Payload() payload: RunPublishedV1, @Ctx() _envelope: EnvelopeMeta): Promise<unknown> {
    return this.judge.prepare({ kind: 'answer', run: payload });
  }

  @OnTopic(Topics.runPublished)
  onRunPublished(@Payload() payload: RunPublishedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.judge.handle({ kind: 'answer', run: payload }, ctx);
  }

  @PrepareTopic(Topics.ticketTimelineUpdated)
  prepareTimeline(@Payload() payload: TicketTimelineUpdatedV1, @Ctx() _envelope: EnvelopeMeta): Promise<unknown> {
    return this.judge.prepare({ kind: 'timeline', timeline: payload });
  }

  @OnTopic(Topics.ticketTimelineUpdated)
  onTimelineUpdated(@Payload() payload: TicketTimelineUpdatedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.judge.handle({ kind: 'timeline', timeline: payload }, ctx);
  }
}
