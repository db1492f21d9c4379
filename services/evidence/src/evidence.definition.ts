import { Topics } from '@aoc/contracts';
import { RuntimeModule, type ServiceDefinition } from '@aoc/service-host';
import { Module } from '@nestjs/common';
import { EvidenceBusController } from './evidence-bus.controller';
import { EvidenceInit1764400000000 } from './migrations/1764400000000-evidence-init.migration';
import { PlanEvidenceHandler } from './plan-evidence/plan-evidence.handler';
import { PlannedBatchEntity } from './planned-batch.entity';

@Module({})
export class EvidenceModule {}

export const evidenceDefinition: ServiceDefinition = {
  role: 'evidence',
  publishes: [Topics.evidenceBatchPlanned],
  entities: [PlannedBatchEntity],
  migrations: [EvidenceInit1764400000000],
  module: (runtime) => ({
    module: EvidenceModule,
    imports: [RuntimeModule.forRoot(runtime)],
    controllers: [EvidenceBusController],
    providers: [PlanEvidenceHandler],
  }),
};
