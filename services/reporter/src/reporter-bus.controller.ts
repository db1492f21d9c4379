import { BusErrorPassthroughFilter, OnTopic, type HandlerContext } from '@aoc/bus';
import { Topics, type EvaluationJudgedV1, type RunExecutionRecordedV1, type RunPublishedV1, type TicketTimelineUpdatedV1 } from '@aoc/contracts';
import { Controller, UseFilters } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { RecordRunHandler } from './record-run/record-run.handler';
import { RecordTimelineHandler } from './record-timeline/record-timeline.handler';

@Controller()
@UseFilters(BusErrorPassthroughFilter)
export class ReporterBusController {
  constructor(
    private readonly record: RecordRunHandler,
    private readonly timelines: RecordTimelineHandler,
  ) {}

  @OnTopic(Topics.runPublished)
  onRunPublished(@Payload() payload: RunPublishedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.record.onPublished(payload, ctx);
  }

  @OnTopic(Topics.runExecutionRecorded)
  onExecutionRecorded(@Payload() payload: RunExecutionRecordedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.record.onExecution(payload, ctx);
  }

  @OnTopic(Topics.evaluationJudged)
  onJudged(@Payload() payload: EvaluationJudgedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.record.onJudged(payload, ctx);
  }

  @OnTopic(Topics.ticketTimelineUpdated)
  onTimelineUpdated(@Payload() payload: TicketTimelineUpdatedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.timelines.onTimeline(payload, ctx);
  }
}
