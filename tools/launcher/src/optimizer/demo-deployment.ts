import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot, VERSIONED_DATA_DIR_ENV } from '@aoc/versioned-data';
import { z } from 'zod';

/*
 * Only node, zod and the versioned-data library here: this module is imported before the chain's
 * modules, which read their versioned data once, when they load.
 */

/** The demo's starting point, in the words its log and docs/optimizer.md use. */
export const DEMO_DEPLOYMENT =
  'the demo deployment has not catalogued failure modes yet (its catalogue holds only the health check), so it ranks causes by onset order alone: the family rules name the earliest sustained change';

const FAILURE_MODES = 'services/router/data/failure-modes.json';
/** The one mode the demo deployment's catalogue keeps: the schema needs one, and the health check is no cause. */
const HEALTH_CHECK = 'healthy';

// Only what the reduction reads; every other field is carried over as it is (the router validates the result).
const Reference = z.union([z.string(), z.object({ mode: z.string() }).passthrough()]);
const Catalogue = z.object({ modes: z.array(z.object({ id: z.string(), lookAlikes: z.array(z.object({ mode: z.string() }).passthrough()).optional(), explains: z.array(Reference).optional() }).passthrough()) }).passthrough();
const referenced = (r: z.infer<typeof Reference>) => (typeof r === 'string' ? r : r.mode);

/** The bundled failure-mode catalogue reduced to the health check: the diagnosis before the catalogue existed. */
export function demoFailureModes(bundled: string): string {
  const catalogue = Catalogue.parse(JSON.parse(bundled));
  const kept = catalogue.modes.filter((m) => m.id === HEALTH_CHECK);
  if (kept.length !== 1) throw new Error(`${FAILURE_MODES}: no "${HEALTH_CHECK}" mode to keep for the demo deployment`);
  // The kept mode may name modes the demo does not catalogue (a look-alike it rules out): those references go with them.
  const ids = new Set(kept.map((m) => m.id));
  const modes = kept.map((m) => ({
    ...m,
    ...(m.lookAlikes ? { lookAlikes: m.lookAlikes.filter((l) => ids.has(l.mode)) } : {}),
    ...(m.explains ? { explains: m.explains.filter((e) => ids.has(referenced(e))) } : {}),
  }));
  return `${JSON.stringify({ ...catalogue, modes }, null, 2)}\n`;
}

/** Writes the demo deployment's versioned data (its files that differ from the bundled ones) to a new directory. */
export function demoDeploymentData(root: string = repoRoot()): string {
  const dir = mkdtempSync(join(tmpdir(), 'aoc-optimizer-demo-data-'));
  mkdirSync(dirname(join(dir, FAILURE_MODES)), { recursive: true });
  writeFileSync(join(dir, FAILURE_MODES), demoFailureModes(readFileSync(join(root, FAILURE_MODES), 'utf8')));
  return dir;
}

/** Whether this process reads the demo deployment's data (the overlay holds its catalogue). */
export function onDemoDeployment(env: Record<string, string | undefined> = process.env, root: string = repoRoot()): boolean {
  const dir = env[VERSIONED_DATA_DIR_ENV];
  if (!dir || !existsSync(join(dir, FAILURE_MODES))) return false;
  return readFileSync(join(dir, FAILURE_MODES), 'utf8') === demoFailureModes(readFileSync(join(root, FAILURE_MODES), 'utf8'));
}

/**
 * Points this process at the demo deployment's data (AOC_VERSIONED_DATA_DIR) and returns the
 * directory. Call it before the chain's modules load: they read the data once, at load.
 */
export function useDemoDeployment(env: Record<string, string | undefined> = process.env): string {
  const dir = demoDeploymentData();
  env[VERSIONED_DATA_DIR_ENV] = dir;
  return dir;
}
