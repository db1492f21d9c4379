import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadManifest, readVersionedData, repoRoot, VERSIONED_DATA_DIR_ENV } from '@aoc/versioned-data';
import { GENERAL_HEALTH, SCENARIO_CATALOG, SCENARIO_CATALOG_PATH, ScenarioCatalogData } from './scenario-catalog';

const bundled = () => JSON.parse(readFileSync(join(repoRoot(), SCENARIO_CATALOG_PATH), 'utf8')) as { scenarios: Record<string, { signals: string[]; families: string[] }> };
const overlay = (doc: unknown): Record<string, string> => {
  const dir = mkdtempSync(join(tmpdir(), 'aoc-catalog-'));
  mkdirSync(dirname(join(dir, SCENARIO_CATALOG_PATH)), { recursive: true });
  writeFileSync(join(dir, SCENARIO_CATALOG_PATH), JSON.stringify(doc));
  return { [VERSIONED_DATA_DIR_ENV]: dir };
};

describe('scenario catalogue as versioned data', () => {
  it('is the data file, in its order, and declared in the manifest with its signal words tunable', () => {
    expect(SCENARIO_CATALOG.map((p) => p.scenario)).toEqual(Object.keys(bundled().scenarios));
    expect(GENERAL_HEALTH).toMatchObject({ scenario: 'general-health', signals: [], families: [] });
    const declared = loadManifest().files.find((f) => f.path === SCENARIO_CATALOG_PATH);
    expect(declared?.tunables).toEqual([expect.objectContaining({ kind: 'word_lists', pointer: '/scenarios', wordsKey: 'signals', familiesKey: 'families' })]);
  });

  it('reads a candidate overlay, and refuses one a matcher or the ontology could not use, naming the field', () => {
    const doc = bundled();
    doc.scenarios['lock-contention'].signals.push('innodb_lock_wait_timeout');
    expect(readVersionedData(SCENARIO_CATALOG_PATH, ScenarioCatalogData, overlay(doc)).scenarios['lock-contention'].signals).toContain('innodb_lock_wait_timeout');
    const upper = bundled();
    upper.scenarios['lock-contention'].signals.push('Lock Storm');
    expect(() => readVersionedData(SCENARIO_CATALOG_PATH, ScenarioCatalogData, overlay(upper))).toThrow(/scenario-catalog\.json: scenarios\.lock-contention\.signals\.\d+: must be a trimmed lower-case word/);
    const family = bundled();
    family.scenarios['lock-contention'].families.push('lock_storms');
    expect(() => readVersionedData(SCENARIO_CATALOG_PATH, ScenarioCatalogData, overlay(family))).toThrow(/families\.\d+: must be a metric family/);
  });
});
