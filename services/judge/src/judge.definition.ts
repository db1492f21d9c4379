import { Topics } from '@aoc/contracts';
import { RuntimeModule, type ServiceDefinition } from '@aoc/service-host';
import { Module } from '@nestjs/common';
import { JudgeAnswerHandler } from './judge-answer/judge-answer.handler';
import { JUDGE_MODEL, createJudgeModel } from './judge-answer/judge-model.provider';
import { JudgeBusController } from './judge-bus.controller';
import { JudgeInit1764400000000 } from './migrations/1764400000000-judge-init.migration';
import { JudgeEvaluation1764500000000 } from './migrations/1764500000000-judge-evaluation.migration';
import { JudgeFeedbackTicketKeys1764900000000 } from './migrations/1764900000000-judge-feedback-ticket-keys.migration';
import { JudgeCrossCheck1765000000000 } from './migrations/1765000000000-judge-cross-check.migration';
import { JudgeEvaluationRevisions1765100000000 } from './migrations/1765100000000-judge-evaluation-revisions.migration';
import { JudgePreviousVersion1765200000000 } from './migrations/1765200000000-judge-previous-version.migration';
import {
  AnswerEntity,
  EvaluationEntity,
  EvaluationFailureEntity,
  FeedbackBindingEntity,
  FeedbackCommentEntity,
  FrozenTicketEntity,
  JudgeDisagreementEntity,
  TimelineEntity,
} from './persistence/judge.entities';
import { RecordInputsHandler } from './record-inputs/record-inputs.handler';

@Module({})
export class JudgeModule {}

export const judgeDefinition: ServiceDefinition = {
  role: 'judge',
  management: { defaultPort: 8092 },
  publishes: [Topics.evaluationJudged],
  entities: [FrozenTicketEntity, AnswerEntity, TimelineEntity, FeedbackBindingEntity, FeedbackCommentEntity, EvaluationEntity, EvaluationFailureEntity, JudgeDisagreementEntity],
  migrations: [JudgeInit1764400000000, JudgeEvaluation1764500000000, JudgeFeedbackTicketKeys1764900000000, JudgeCrossCheck1765000000000, JudgeEvaluationRevisions1765100000000, JudgePreviousVersion1765200000000],
  module: (runtime) => {
    // Parsed here so that a bad AOC_MODEL_*_JUDGE key stops the role at boot, naming the key.
    const judgeModel = createJudgeModel();
    runtime.logger.info('judge model', judgeModel.description);
    return {
      module: JudgeModule,
      imports: [RuntimeModule.forRoot(runtime)],
      controllers: [JudgeBusController],
      providers: [RecordInputsHandler, JudgeAnswerHandler, { provide: JUDGE_MODEL, useValue: judgeModel.model }],
    };
  },
};

