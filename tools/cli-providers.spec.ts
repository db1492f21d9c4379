import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { liveExecutorOptions } from './cli-providers';

describe('aoc analyze provider flags', () => {
  it('replays the bundled recordings without --prometheus or --providers', () => {
    expect(liveExecutorOptions({})).toBeNull();
  });

  it('--prometheus makes one live endpoint whose target label values are the targets', () => {
    expect(liveExecutorOptions({ prometheus: 'http://127.0.0.1:9090' })).toMatchObject({ mode: 'live', recordings: [], prometheusTargets: [{ name: 'cli', baseUrl: 'http://127.0.0.1:9090', targetLabel: 'cluster' }] });
    expect(liveExecutorOptions({ prometheus: 'http://127.0.0.1:9090', targetLabel: 'dbinstance_identifier' })?.prometheusTargets?.[0]?.targetLabel).toBe('dbinstance_identifier');
  });

  it('--providers reads every package configuration from one file and names a bad field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aoc-cli-'));
    const good = join(dir, 'providers.json');
    writeFileSync(good, JSON.stringify({ prometheus: [{ name: 'rds', baseUrl: 'http://127.0.0.1:9091', targetLabel: 'cluster' }], manus: { token: 'manus-token' } }));
    expect(liveExecutorOptions({ providersFile: good })).toMatchObject({ prometheusTargets: [{ name: 'rds' }], manus: { token: 'manus-token' } });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ prometheus: [{ name: 'rds', baseUrl: 'not a url' }] }));
    expect(() => liveExecutorOptions({ providersFile: bad })).toThrow(/prometheus\.0\.baseUrl/);
    expect(() => liveExecutorOptions({ prometheus: 'http://x:1', targetLabel: 'bad label' })).toThrow(/targetLabel/);
  });
});
