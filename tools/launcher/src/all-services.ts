import type { ServiceDefinition } from '@aoc/service-host';
import { evidenceDefinition } from '@aoc/service-evidence';
import { judgeDefinition } from '@aoc/service-judge';
import { optimizerDefinition } from '@aoc/service-optimizer';
import { providerExecutorDefinition } from '@aoc/service-provider-executor';
import { reporterDefinition } from '@aoc/service-reporter';
import { routerDefinition } from '@aoc/service-router';

/** Every role, in the order the embedded launcher starts them. */
export const ALL_SERVICES: readonly ServiceDefinition[] = [
  routerDefinition,
  evidenceDefinition,
  providerExecutorDefinition,
  judgeDefinition,
  reporterDefinition,
  optimizerDefinition,
];
