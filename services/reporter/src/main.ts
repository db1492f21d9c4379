import './instrument';
import { runServiceProcess } from '@aoc/service-host';
import { reporterDefinition } from './reporter.definition';

runServiceProcess(reporterDefinition).catch((error: unknown) => {
  process.stderr.write(`aoc-reporter failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
