import './instrument';
import { runServiceProcess } from '@aoc/service-host';
import { judgeDefinition } from './judge.definition';

runServiceProcess(judgeDefinition).catch((error: unknown) => {
  process.stderr.write(`aoc-judge failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
