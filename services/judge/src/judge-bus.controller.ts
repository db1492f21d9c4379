import { BusErrorPassthroughFilter, OnTopic, type HandlerContext } from '@aoc/bus';
import { Topics, type RunPublishedV1, type TicketTimelineUpdatedV1 } from '@aoc/contracts';
import { Controller, UseFilters } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { JudgeAnswerHandler } from './judge-answer/judge-answer.handler';

@Controller()
@UseFilters(BusErrorPassthroughFilter)
export class JudgeBusController {
  constructor(private readonly judge: JudgeAnswerHandler) {}

  @OnTopic(Topics.runPublished)
  onRunPublished(@Payload() payload: RunPublishedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.judge.onPublished(payload, ctx);
  }

  @OnTopic(Topics.ticketTimelineUpdated)
  onTimelineUpdated(@Payload() payload: TicketTimelineUpdatedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.judge.onTimeline(payload, ctx);
  }
}
