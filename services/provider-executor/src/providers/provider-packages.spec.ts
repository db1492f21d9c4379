import type { DataSource } from 'typeorm';
import { configuredPackages } from './provider-packages';

const ds = {} as DataSource;
const key = Buffer.alloc(32, 7).toString('base64url');

describe('configured provider packages', () => {
  it('builds only the packages that have configuration, each under its own name', () => {
    expect(configuredPackages({}, ds, 'provider_executor')).toEqual([]);
    const pkgs = configuredPackages(
      {
        clinic: { clinic: { baseUrl: 'https://clinic.example', token: 'clinic-token' } },
        manus: { targets: { vida: { grafanaOrigin: 'https://grafana.example', datasourcePath: '/api/datasources/proxy/uid/abc' } }, credential: { token: 'manus-token-123' }, instanceRefKey: key },
        wetech: {
          credentials: {
            default: { grafana: { username: 'g', password: 'gpass' }, dashboard: { username: 'd', password: 'dpass' } },
            'asia-production': { grafana: { username: 'ap', password: 'appass' } },
            'asia-saas01': { dashboard: { username: 's1', password: 's1pass' } },
            'asia-saas02': { dashboard: { username: 's2', password: 's2pass' } },
          },
          instanceRefKey: key,
          storageSealKey: key,
        },
      },
      ds,
      'provider_executor',
    );
    expect(pkgs.map((p) => p.name)).toEqual(['clinic', 'manus', 'wetech']);
  });

  it('fails fast naming the bad setting and field, without echoing secrets', () => {
    expect(() => configuredPackages({ clinic: { clinic: { baseUrl: 'not a url', token: 'super-secret-token' } } }, ds, 'provider_executor')).toThrow(/AOC_CLINIC_CONFIG: clinic\.baseUrl/);
    try {
      configuredPackages({ wetech: { credentials: {}, instanceRefKey: key, storageSealKey: key } }, ds, 'provider_executor');
    } catch (e) {
      expect(String(e)).toMatch(/AOC_WETECH_CONFIG: credentials\.default/);
    }
  });
});
