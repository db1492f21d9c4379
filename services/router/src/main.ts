import './instrument';
import { runServiceProcess } from '@aoc/service-host';
import { routerDefinition } from './router.definition';

runServiceProcess(routerDefinition).catch((error: unknown) => {
  process.stderr.write(`aoc-router failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
