import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildWetechTargets, checkWetechInventoryModule, renderWetechInventoryModule, WETECH_INVENTORY_DATA_PATH, WETECH_INVENTORY_MODULE_PATH } from './wetech-inventory.generator';
import { WETECH_HOST_ALLOWLIST, WETECH_INVENTORY_DIGEST, WETECH_TARGETS } from './wetech-inventory.generated';

const ROOT = resolve(__dirname, '../../../../..');
const data = (): Record<string, unknown> & { regions: Record<string, unknown>[] } => JSON.parse(readFileSync(join(ROOT, WETECH_INVENTORY_DATA_PATH), 'utf8'));
const current = () => readFileSync(join(ROOT, WETECH_INVENTORY_MODULE_PATH), 'utf8');

describe('wetech inventory generation', () => {
  it('the committed generated module matches the data file (what --check verifies)', () => {
    expect(checkWetechInventoryModule(data(), current()).upToDate).toBe(true);
  });

  it('detects a stale module when the data changes', () => {
    const changed = data();
    (changed.regions[0]['clusters'] as Record<string, unknown>[]).push({ name: 'wt-prod-sg-99', datasourceUid: 'prom-99', dashboardCluster: 'wt-prod-sg-99' });
    const check = checkWetechInventoryModule(changed, current());
    expect(check.upToDate).toBe(false);
    expect(check.expected).toContain('wt-prod-sg-99');
  });

  it('is deterministic and independent of the order of the data', () => {
    const reversed = data();
    reversed.regions.reverse();
    expect(renderWetechInventoryModule(reversed)).toBe(renderWetechInventoryModule(data()));
  });

  it('exposes the same targets and allowlist the package reads', () => {
    expect(WETECH_TARGETS).toEqual(buildWetechTargets(data()).targets);
    expect(WETECH_HOST_ALLOWLIST).toEqual(buildWetechTargets(data()).hosts);
    expect(WETECH_INVENTORY_DIGEST).toMatch(/^sha256:[0-9a-f]{64}$/);
    for (const host of WETECH_HOST_ALLOWLIST) expect(host).toMatch(/^(grafana|dashboard)\.[a-z0-9-]+\.wetech\.example$/);
  });

  it.each([
    ['a host outside its region', (d: ReturnType<typeof data>) => ((d.regions[0]['hosts'] as Record<string, string>)['grafana'] = 'grafana.evil.example'), /regions\.0\.hosts\.grafana: must be grafana\.ap-southeast-1\.wetech\.example/],
    ['a duplicate cluster', (d: ReturnType<typeof data>) => (d.regions[0]['clusters'] as unknown[]).push((d.regions[0]['clusters'] as unknown[])[0]), /duplicate cluster wt-prod-sg-01/],
    ['an unknown credential profile', (d: ReturnType<typeof data>) => (d.regions[1]['credentialProfile'] = 'root'), /regions\.1\.credentialProfile/],
    ['a duplicate region', (d: ReturnType<typeof data>) => d.regions.push(d.regions[0]), /duplicate region ap-southeast-1/],
  ])('refuses %s, naming the field', (_name, mutate, why) => {
    const broken = data();
    mutate(broken);
    expect(() => renderWetechInventoryModule(broken)).toThrow(why);
  });

  it('the script --check exits 0 on the committed module', () => {
    const out = execFileSync(process.execPath, ['-r', './tools/register.js', 'libs/providers/scripts/generate-wetech-inventory.ts', '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toContain('up to date');
  }, 60_000);
});
