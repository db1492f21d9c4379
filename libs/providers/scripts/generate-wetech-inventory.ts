/**
 * Generates the Wetech target inventory module from libs/providers/data/wetech-inventory.json.
 *   node -r ./tools/register.js libs/providers/scripts/generate-wetech-inventory.ts          (write)
 *   node -r ./tools/register.js libs/providers/scripts/generate-wetech-inventory.ts --check  (fail when stale)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkWetechInventoryModule, WETECH_INVENTORY_DATA_PATH, WETECH_INVENTORY_MODULE_PATH } from '../src/packages/wetech/wetech-inventory.generator';

const root = resolve(__dirname, '../../..');
const dataPath = join(root, WETECH_INVENTORY_DATA_PATH);
const modulePath = join(root, WETECH_INVENTORY_MODULE_PATH);

function main(): number {
  const data: unknown = JSON.parse(readFileSync(dataPath, 'utf8'));
  const current = existsSync(modulePath) ? readFileSync(modulePath, 'utf8') : null;
  const { upToDate, expected } = checkWetechInventoryModule(data, current);
  if (process.argv.includes('--check')) {
    if (upToDate) {
      process.stdout.write(`${WETECH_INVENTORY_MODULE_PATH} is up to date\n`);
      return 0;
    }
    process.stderr.write(`${WETECH_INVENTORY_MODULE_PATH} is stale: run node -r ./tools/register.js libs/providers/scripts/generate-wetech-inventory.ts\n`);
    return 1;
  }
  if (!upToDate) writeFileSync(modulePath, expected);
  process.stdout.write(`${upToDate ? 'unchanged' : 'wrote'} ${WETECH_INVENTORY_MODULE_PATH}\n`);
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
