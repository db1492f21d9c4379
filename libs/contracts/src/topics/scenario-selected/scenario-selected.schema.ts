import { z } from 'zod';
import { EntityRef, ProviderName, RunId, ScenarioId, TicketKey, TimeWindow } from '../../common';
import { defineTopic } from '../../topic-definition';

export const ScenarioSelectedKeyV1 = RunId;
export const ScenarioSelectedV1 = z.object({
  runId: RunId,
  ticketKey: TicketKey,
  scenarioId: ScenarioId,
  scenario: z.string().min(1).max(64).describe('Catalog scenario name, e.g. latency-regression'),
  catalogVersion: z.string().min(1).max(32),
  entity: EntityRef,
  window: TimeWindow,
  provider: ProviderName,
  target: z.string().max(128).nullable().describe('Provider target (cluster id, exact target name); null when unknown'),
  reason: z.string().min(1).max(2000).describe('Why the router picked this scenario; a hypothesis, never shown to evidence'),
});
export type ScenarioSelectedV1 = z.infer<typeof ScenarioSelectedV1>;

export const scenarioSelectedTopic = defineTopic({
  baseName: 'scenario.selected',
  version: 1,
  description: 'The router picked a scenario for a run, with entity, absolute window, provider and reason.',
  keyField: 'runId',
  key: ScenarioSelectedKeyV1,
  value: ScenarioSelectedV1,
  producers: ['router'],
  consumers: ['router'],
});
