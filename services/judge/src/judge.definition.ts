import { Topics } from '@aoc/contracts';
import { RuntimeModule, type ServiceDefinition } from '@aoc/service-host';
import { Module } from '@nestjs/common';
import { JudgeAnswerHandler } from './judge-answer/judge-answer.handler';
import { JudgeBusController } from './judge-bus.controller';
import { JudgeInit1764400000000 } from './migrations/1764400000000-judge-init.migration';
import { AnswerEntity, EvaluationEntity, TimelineEntity } from './persistence/judge.entities';

@Module({})
export class JudgeModule {}

export const judgeDefinition: ServiceDefinition = {
  role: 'judge',
  publishes: [Topics.evaluationJudged],
  entities: [AnswerEntity, TimelineEntity, EvaluationEntity],
  migrations: [JudgeInit1764400000000],
  module: (runtime) => ({
    module: JudgeModule,
    imports: [RuntimeModule.forRoot(runtime)],
    controllers: [JudgeBusController],
    providers: [JudgeAnswerHandler],
  }),
};
