import { Topics } from '@aoc/contracts';
import { RuntimeModule, type ServiceDefinition } from '@aoc/service-host';
import { Module } from '@nestjs/common';
import { EvidenceBusController } from './evidence-bus.controller';
import { EvidenceInit1764400000000 } from './migrations/1764400000000-evidence-init.migration';
import { EVIDENCE_MODEL, createEvidenceModel } from './plan-evidence/evidence-planner.agent';
import { PlanEvidenceHandler } from './plan-evidence/plan-evidence.handler';
import { PlannedBatchEntity } from './planned-batch.entity';

@Module({})
export class EvidenceModule {}

export const evidenceDefinition: ServiceDefinition = {
  role: 'evidence',
  management: { defaultPort: 8091 },
  publishes: [Topics.evidenceBatchPlanned, Topics.evidenceCatalogRequested],
  entities: [PlannedBatchEntity],
  migrations: [EvidenceInit1764400000000],
  module: (runtime) => {
    // Parsed here so that a bad AOC_MODEL_*_EVIDENCE key stops the role at boot, naming the key.
    const evidenceModel = createEvidenceModel();
    runtime.logger.info('evidence model', evidenceModel.describe('evidence'));
    return {
      module: EvidenceModule,
      imports: [RuntimeModule.forRoot(runtime)],
      controllers: [EvidenceBusController],
      providers: [PlanEvidenceHandler, { provide: EVIDENCE_MODEL, useValue: evidenceModel }],
    };
  },
};
