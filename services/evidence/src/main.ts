import './instrument';
import { runServiceProcess } from '@aoc/service-host';
import { evidenceDefinition } from './evidence.definition';

runServiceProcess(evidenceDefinition).catch((error: unknown) => {
  process.stderr.write(`aoc-evidence failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
