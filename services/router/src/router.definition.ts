import { loadConfig } from '@aoc/config';
import { Topics } from '@aoc/contracts';
import type { ServiceDefinition } from '@aoc/service-host';
import { createTicketSource, ticketSourceConfigShape, ticketSourceSettingsOf, type TicketSource } from '@aoc/ticket-source';
import { z } from 'zod';
import { RouterInit1764400000000 } from './migrations/1764400000000-router-init.migration';
import { RouterDeadlinesRounds1764700000000 } from './migrations/1764700000000-router-deadlines-rounds.migration';
import { RouterRunRequest1764800000000 } from './migrations/1764800000000-router-run-request.migration';
import { RouterProviderInventories1764900000000 } from './migrations/1764900000000-router-provider-inventories.migration';
import { RouterTimelineWatch1765000000000 } from './migrations/1765000000000-router-timeline-watch.migration';
import { RouterHttpAudit1766000000000 } from './migrations/1766000000000-router-http-audit.migration';
import { TimelineWatchEntity } from './persistence/timeline-watch.entity';
import { loadCollectorOptions, type CollectorOptions } from './collect-timelines/collector-options';
import { ProviderInventoryEntity } from './persistence/provider-inventory.entity';
import { RunEntity } from './persistence/run.entity';
import { ScenarioThreadEntity } from './persistence/scenario-thread.entity';
import { ROUTER_ROLES, createRouterModel } from './router-model';
import { loadDeadlines, type DeadlineOptions } from './router-options';
import { ROUTER_BODY_LIMITS } from './router-body-limits';
import { RouterModule } from './router.module';

export interface RouterDefinitionOptions {
  /** Overrides of the deadlines read from the environment (tests shorten them). */
  deadlines?: Partial<DeadlineOptions>;
  /** Overrides of the timeline collector settings read from the environment. */
  collector?: Partial<CollectorOptions>;
  /** A ticket source instance; otherwise built from AOC_TICKET_SOURCE (none when unset). */
  ticketSource?: TicketSource | null;
  env?: Record<string, string | undefined>;
}

/** The router role; every setting is parsed when the role boots, failing fast on bad keys. */
export function createRouterDefinition(options: RouterDefinitionOptions = {}): ServiceDefinition {
  return {
    role: 'router',
    publishes: [
      Topics.ticketAnalysisRequested,
      Topics.ticketTimelineUpdated,
      Topics.scenarioSelected,
      Topics.evidenceRequested,
      Topics.diagnosisHandoffConsumed,
      Topics.runPublished,
      Topics.runExecutionRecorded,
    ],
    entities: [RunEntity, ScenarioThreadEntity, ProviderInventoryEntity, TimelineWatchEntity],
    migrations: [RouterInit1764400000000, RouterDeadlinesRounds1764700000000, RouterRunRequest1764800000000, RouterProviderInventories1764900000000, RouterTimelineWatch1765000000000, RouterHttpAudit1766000000000],
    module: (runtime) => {
      const env = options.env ?? process.env;
      const routerModel = createRouterModel(env);
      const deadlines = { ...loadDeadlines(env), ...options.deadlines };
      const collector = { ...loadCollectorOptions(env), ...options.collector };
      let ticketSource = options.ticketSource;
      if (ticketSource === undefined) {
        const settings = ticketSourceSettingsOf(loadConfig('router', z.object(ticketSourceConfigShape), env));
        ticketSource = settings ? createTicketSource(settings) : null;
      }
      runtime.logger.info('router agents', { ...Object.fromEntries(ROUTER_ROLES.map((role) => [role, routerModel.describe(role)])), deadlines, collector, ticketSource: ticketSource?.kind ?? 'none' });
      return RouterModule.register(runtime, { model: routerModel, deadlines, ticketSource, collector });
    },
    http: { defaultPort: 8080, bodyLimits: ROUTER_BODY_LIMITS },
  };
}

export const routerDefinition: ServiceDefinition = createRouterDefinition();
