import { BusErrorPassthroughFilter, OnTopic, PrepareTopic, type HandlerContext } from '@aoc/bus';
import { Topics, type DiagnosisHandoffConsumedV1, type EnvelopeMeta, type EvidenceBatchMaterializedV1, type ProviderInventoryListedV1, type ScenarioSelectedV1, type TicketAnalysisRequestedV1 } from '@aoc/contracts';
import { Controller, UseFilters } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { AskEvidenceHandler } from './ask-evidence/ask-evidence.handler';
import { ConcludeScenarioHandler } from './conclude-scenario/conclude-scenario.handler';
import { storeInventory } from './provider-inventory/inventory.store';
import { ReconcileRunHandler } from './reconcile-run/reconcile-run.handler';
import { SelectScenariosHandler } from './select-scenarios/select-scenarios.handler';

/**
 * The router's topic subscriptions; each delegates to its use-case handler. Model calls and
 * ticket write-back run in prepare steps, outside the handlers' transactions.
 */
@Controller()
@UseFilters(BusErrorPassthroughFilter)
export class RouterBusController {
  constructor(
    private readonly selectScenarios: SelectScenariosHandler,
    private readonly askEvidence: AskEvidenceHandler,
    private readonly concludeScenario: ConcludeScenarioHandler,
    private readonly reconcileRun: ReconcileRunHandler,
  ) {}

  @OnTopic(Topics.providerInventoryListed)
  onInventoryListed(@Payload() payload: ProviderInventoryListedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return storeInventory(ctx.manager, payload);
  }

  @PrepareTopic(Topics.ticketAnalysisRequested)
  prepareAnalysisRequested(@Payload() payload: TicketAnalysisRequestedV1, @Ctx() _envelope: EnvelopeMeta): Promise<unknown> {
    return this.selectScenarios.prepare(payload);
  }

  @OnTopic(Topics.ticketAnalysisRequested)
  onAnalysisRequested(@Payload() payload: TicketAnalysisRequestedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.selectScenarios.handle(payload, ctx);
  }

  @OnTopic(Topics.scenarioSelected)
  onScenarioSelected(@Payload() payload: ScenarioSelectedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.askEvidence.handle(payload, ctx);
  }

  @PrepareTopic(Topics.evidenceBatchMaterialized)
  prepareBatchMaterialized(@Payload() payload: EvidenceBatchMaterializedV1, @Ctx() _envelope: EnvelopeMeta): Promise<unknown> {
    return this.concludeScenario.prepare(payload);
  }

  @OnTopic(Topics.evidenceBatchMaterialized)
  onBatchMaterialized(@Payload() payload: EvidenceBatchMaterializedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.concludeScenario.handle(payload, ctx);
  }

  @PrepareTopic(Topics.diagnosisHandoffConsumed)
  prepareHandoffConsumed(@Payload() payload: DiagnosisHandoffConsumedV1, @Ctx() _envelope: EnvelopeMeta): Promise<unknown> {
    return this.reconcileRun.prepare(payload);
  }

  @OnTopic(Topics.diagnosisHandoffConsumed)
  onHandoffConsumed(@Payload() payload: DiagnosisHandoffConsumedV1, @Ctx() ctx: HandlerContext): Promise<void> {
    return this.reconcileRun.handle(payload, ctx);
  }
}
