import { BusErrorPassthroughFilter, OnTopic, type HandlerContext } from '@aoc/bus';
import { Topics, type EvaluationJudgedV1, type RunExecutionRecordedV1, type RunPublishedV1, type TicketTimelineUpdatedV1 } from '@aoc/contracts';
import { Controller, UseFilters } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { CollectSignalsHandler } from './collect-signals/collect-signals.handler';

@Controller()
@UseFilters(BusErrorPassthroughFilter)
export class OptimizerBusController {
  constructor(private readonly signals: CollectSignalsHandler) {}

  @OnTopic(Topics.runPublished)
  onPublished(@Payload() payload: RunPublishedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.signals.onPublished(payload, ctx);
  }

  @OnTopic(Topics.ticketTimelineUpdated)
  onTimeline(@Payload() payload: TicketTimelineUpdatedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.signals.onTimeline(payload, ctx);
  }

  @OnTopic(Topics.runExecutionRecorded)
  onExecutionRecorded(@Payload() payload: RunExecutionRecordedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.signals.onExecution(payload, ctx);
  }

  @OnTopic(Topics.evaluationJudged)
  onJudged(@Payload() payload: EvaluationJudgedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.signals.onJudged(payload, ctx);
  }
}
