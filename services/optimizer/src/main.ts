import './instrument';
import { runServiceProcess } from '@aoc/service-host';
import { optimizerDefinition } from './optimizer.definition';

runServiceProcess(optimizerDefinition).catch((error: unknown) => {
  process.stderr.write(`aoc-optimizer failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
