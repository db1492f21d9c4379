// deploy/k8s, the roles' configuration: every key a role parses at boot is given, from a ConfigMap
// or, for a secret, from the role's own Secret, and the role accepts the values (see k8s.spec.ts).
import { describeOverlays, envEntries, loadCluster, podSpecOf, read, secretKeys } from './k8s-fixture';
import { HOST_SCHEMAS, parseAtBoot, type Env } from './role-facts';

// Every schema a role hands to loadConfig while it parses its configuration is recorded: the keys
// those schemas mark secret() must come from Secrets.
jest.mock('@aoc/config', () => {
  const actual = jest.requireActual<typeof import('@aoc/config')>('@aoc/config');
  const store = globalThis as unknown as { aocLoadedSchemas?: Set<unknown> };
  store.aocLoadedSchemas ??= new Set();
  const seen = store.aocLoadedSchemas;
  return {
    ...actual,
    loadConfig: (...args: Parameters<typeof actual.loadConfig>) => {
      seen.add(args[1]);
      return actual.loadConfig(...args);
    },
  };
});

/** What a role needs in a cluster whatever its code defaults to (a laptop's). */
const CLUSTER_SETTINGS: Env = { AOC_TRANSPORT: 'kafka', AOC_BIND_HOST: '0.0.0.0' };
/** Secrets a role cannot run without in a cluster: referenced without `optional`. */
const CLUSTER_SECRETS = ['DATABASE_URL', 'KAFKA_SASL_PASSWORD'];
/** Test-only settings (a stall for chaos tests, ...): never set in a cluster. */
const TEST_ONLY = /^AOC_TEST_/;
/** Names that are secret whatever their schema says. */
const SECRET_NAME = /PASSWORD|SECRET|TOKEN|API_KEY/;

loadCluster();

describe('what the checks rely on', () => {
  test('runServiceProcess parses exactly the schemas the role facts know', () => {
    const parsed = [...read('libs/service-host/src/run-service-process.ts').matchAll(/loadConfig\([^,]+,\s*(\w+)/g)].map((m) => m[1]);
    expect(parsed.sort()).toEqual(Object.keys(HOST_SCHEMAS).sort());
  });

  test('loadConfig was seen with the schemas that mark DATABASE_URL and KAFKA_SASL_PASSWORD secret', () => {
    expect([...secretKeys()]).toEqual(expect.arrayContaining(['DATABASE_URL', 'KAFKA_SASL_PASSWORD', 'AOC_OIDC_CLIENT_SECRET']));
  });
});

describeOverlays({
  role: ({ overlay, role, name, r, f, deployment, container, env }) => {
    describe('configuration', () => {
      test('every key the role parses is given (ConfigMap or Secret), and no other; test-only keys never', () => {
        const keys = envEntries(r(), container()).map((e) => e.key);
        expect(keys.filter((k) => !f().knownKeys.has(k) || TEST_ONLY.test(k))).toEqual([]);
        expect([...f().knownKeys].filter((k) => !keys.includes(k) && !TEST_ONLY.test(k)).sort()).toEqual([]);
      });

      test('each key is defined once', () => {
        const keys = envEntries(r(), container()).map((e) => e.key);
        expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
      });

      test('secret keys come from the role’s own Secrets, every other key from a ConfigMap', () => {
        const secrets = secretKeys();
        for (const entry of envEntries(r(), container())) {
          const secret = secrets.has(entry.key) || SECRET_NAME.test(entry.key);
          if (secret) {
            expect({ key: entry.key, source: 'secret' in entry.source ? 'Secret' : 'not a Secret' }).toEqual({ key: entry.key, source: 'Secret' });
            if ('secret' in entry.source) expect([name, `${name}-kafka`]).toContain(entry.source.secret);
          } else {
            expect({ key: entry.key, source: 'configMap' in entry.source ? 'ConfigMap' : 'not a ConfigMap' }).toEqual({ key: entry.key, source: 'ConfigMap' });
          }
        }
      });

      test('the keys the role requires, and those a cluster needs, are set', () => {
        const e = env();
        expect([...f().requiredKeys].filter((k) => !e[k])).toEqual([]);
        for (const [key, value] of Object.entries(CLUSTER_SETTINGS)) expect({ key, value: e[key] }).toEqual({ key, value });
        expect(e['KAFKA_BROKERS']).toBeTruthy();
        const refs = envEntries(r(), container()).filter((entry) => 'secret' in entry.source && !entry.source.optional);
        expect(refs.map((entry) => entry.key).sort()).toEqual([...CLUSTER_SECRETS].sort());
        if (overlay === 'dev') for (const key of CLUSTER_SECRETS) expect(e[key]).toBeTruthy();
      });

      test('the role accepts the values', () => {
        expect(() => parseAtBoot(role, f().definition, env())).not.toThrow();
      });

      test('the role has longer than its shutdown bound to stop', () => {
        const host = parseAtBoot(role, f().definition, env());
        expect((podSpecOf(deployment()).terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(host['AOC_SHUTDOWN_TIMEOUT_MS'] as number);
      });
    });
  },
});
