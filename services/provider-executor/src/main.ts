import './instrument';
import { runServiceProcess } from '@aoc/service-host';
import { providerExecutorDefinition } from './provider-executor.definition';

runServiceProcess(providerExecutorDefinition).catch((error: unknown) => {
  process.stderr.write(`aoc-provider-executor failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
