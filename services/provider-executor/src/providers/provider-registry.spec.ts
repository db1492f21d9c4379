import { executorOptionsFromEnv } from './executor-options';
import { ProviderRegistry, prometheusTargetOf } from './provider-registry';

const WINDOW = { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' };
const postgres = { host: 'db.internal', port: 5432, database: 'orders', user: 'monitor', password: 'pg-secret-password' };

describe('generic Prometheus endpoints with postgres and loki settings', () => {
  it('parses postgres and loki per endpoint and hands them to the package, tokens as headers', () => {
    const options = executorOptionsFromEnv({
      AOC_PROMETHEUS_TARGETS: JSON.stringify([
        { name: 'orders-db', baseUrl: 'http://127.0.0.1:9', postgres, loki: { baseUrl: 'http://127.0.0.1:9', bearerToken: 'loki-token-abc' } },
        { name: 'rds', baseUrl: 'http://127.0.0.1:9', targetLabel: 'dbinstance_identifier', postgres, postgresTarget: 'billing-db', loki: { baseUrl: 'http://127.0.0.1:9', selectorLabel: 'instance' } },
        { name: 'plain', baseUrl: 'http://127.0.0.1:9' },
      ]),
    });
    const [orders, rds, plain] = options.prometheusTargets.map(prometheusTargetOf);
    expect(orders).toMatchObject({ postgres, loki: { baseUrl: 'http://127.0.0.1:9', headers: { authorization: 'Bearer loki-token-abc' }, secrets: ['loki-token-abc'] } });
    expect(rds).toMatchObject({ postgresTarget: 'billing-db', loki: { selectorLabel: 'instance' } });
    expect(plain).not.toHaveProperty('postgres');
    expect(plain).not.toHaveProperty('loki');
  });

  it('refuses postgres on a labelled endpoint without the one target it belongs to, naming fields and never values', () => {
    const bad = (targets: unknown[]) => {
      try {
        executorOptionsFromEnv({ AOC_PROMETHEUS_TARGETS: JSON.stringify(targets) });
      } catch (error) {
        return String(error);
      }
      throw new Error('expected a configuration error');
    };
    const labelled = bad([{ name: 'rds', baseUrl: 'http://127.0.0.1:9', targetLabel: 'dbinstance_identifier', postgres }]);
    expect(labelled).toMatch(/AOC_PROMETHEUS_TARGETS/);
    expect(labelled).toMatch(/0\.postgresTarget/);
    const wrongShape = bad([{ name: 'x', baseUrl: 'http://127.0.0.1:9', postgres: { ...postgres, port: 'five' }, loki: { baseUrl: 'not a url', selectorLabel: 'bad-label' } }]);
    expect(wrongShape).toMatch(/0\.postgres\.port/);
    expect(wrongShape).toMatch(/0\.loki/);
    for (const text of [labelled, wrongShape]) {
      expect(text).not.toContain('pg-secret-password');
      expect(text).not.toContain('db.internal');
    }
  });

  it('parses mysql per endpoint like postgres, refusing one target with both and naming fields, never values', () => {
    const mysql = { host: 'maria.internal', port: 3306, user: 'monitor', password: 'my-secret-password' };
    const [maria] = executorOptionsFromEnv({ AOC_PROMETHEUS_TARGETS: JSON.stringify([{ name: 'maria-1', baseUrl: 'http://127.0.0.1:9', mysql }]) }).prometheusTargets.map(prometheusTargetOf);
    expect(maria).toMatchObject({ mysql });
    const bad = (targets: unknown[]) => {
      try {
        executorOptionsFromEnv({ AOC_PROMETHEUS_TARGETS: JSON.stringify(targets) });
      } catch (error) {
        return String(error);
      }
      throw new Error('expected a configuration error');
    };
    const both = bad([{ name: 'x', baseUrl: 'http://127.0.0.1:9', postgres, mysql }]);
    expect(both).toMatch(/0\.mysql: one target has one SQL server/);
    const labelled = bad([{ name: 'rds', baseUrl: 'http://127.0.0.1:9', targetLabel: 'dbinstance_identifier', mysql }]);
    expect(labelled).toMatch(/0\.mysqlTarget/);
    const wrongShape = bad([{ name: 'x', baseUrl: 'http://127.0.0.1:9', mysql: { ...mysql, port: 'x' } }]);
    expect(wrongShape).toMatch(/0\.mysql\.port/);
    for (const text of [both, labelled, wrongShape]) expect(text).not.toMatch(/my-secret-password|maria\.internal/);
  });

  it('the registered package offers sql and logs in the catalogue only for the target that has them', async () => {
    const registry = new ProviderRegistry({
      prometheusTargets: [
        { name: 'orders-db', baseUrl: 'http://127.0.0.1:9', postgres, loki: { baseUrl: 'http://127.0.0.1:9' } },
        { name: 'plain', baseUrl: 'http://127.0.0.1:9' },
      ],
    });
    const pkg = registry.get('prometheus');
    expect(await pkg?.discoverMetrics?.({ target: 'orders-db', window: WINDOW })).toMatchObject({ operations: ['promql_range', 'promql_instant', 'sql', 'logs'], logsLabel: 'cluster' });
    expect(await pkg?.discoverMetrics?.({ target: 'plain', window: WINDOW })).toMatchObject({ operations: ['promql_range', 'promql_instant'], logsLabel: null });
  });
});
