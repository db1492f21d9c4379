// deploy/Dockerfile and deploy/compose.roles.yml checked against the code. Docker does not run on
// the project's machines, so this spec reads both files. The expectations come from the code:
// - roles from libs/contracts ROLES, principals from libs/contracts brokerAclMatrix(), and password
//   variables and defaults from deploy/local/kafka-matrix.ts (those of kafka-start.sh and the broker);
// - ports from each role's ServiceDefinition: the HTTP API port, else the management port, after
//   the PORT / MANAGEMENT_PORT the compose file sets;
// - environment keys from what the role reads while it parses its configuration: the schemas
//   runServiceProcess parses, plus every key its definition's module() and provider factories read
//   from process.env (recorded through a Proxy).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ROLES, brokerAclMatrix } from '@aoc/contracts';
import { SYSTEM_CHROMIUM } from '@aoc/providers';
import { parse as parseYaml } from 'yaml';
import { roleEnvSuffix, rolePassword } from '../local/kafka-matrix';
import { HOST_SCHEMAS, factsOf, parseAtBoot, type Env, type RoleFacts } from './role-facts';

const ROOT = path.resolve(__dirname, '..', '..');
const DOCKERFILE = path.join(ROOT, 'deploy', 'Dockerfile');
const COMPOSE = path.join(ROOT, 'deploy', 'compose.roles.yml');
const read = (file: string) => readFileSync(file, 'utf8');

// ---------------------------------------------------------------------------------------------
// What the code says about each role: ./role-facts (shared with k8s.spec.ts)
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Dockerfile
// ---------------------------------------------------------------------------------------------

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

function parseDockerfile(text: string): Stage[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    lines.push(`${pending}${line}`.trim());
    pending = '';
  }
  const globalArgs: Env = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === 'ARG' && stages.length === 0) {
      const [name, value = ''] = args.split('=');
      globalArgs[name] = value;
    } else if (upper === 'FROM') {
      const words = args.split(/\s+/).filter((w) => !w.startsWith('--'));
      const from = words[0].replace(/\$\{(\w+)\}|\$(\w+)/g, (_m, a?: string, b?: string) => globalArgs[(a ?? b) as string] ?? '');
      const as = words.findIndex((w) => w.toUpperCase() === 'AS');
      stages.push({ name: as >= 0 ? words[as + 1] : String(stages.length), from, instructions: [] });
    } else if (stages.length > 0) {
      stages[stages.length - 1].instructions.push({ keyword: upper, args });
    }
  }
  return stages;
}

/** The stages a stage is built on, base first, ending with the stage itself; and the image at the bottom. */
function chainOf(stages: Stage[], name: string): { image: string; chain: Stage[] } {
  const chain: Stage[] = [];
  let stage = stages.find((s) => s.name === name);
  while (stage) {
    chain.unshift(stage);
    const from = stage.from;
    stage = stages.find((s) => s.name === from);
  }
  return { image: chain[0]?.from ?? '', chain };
}

const instructionsOf = (chain: Stage[], keyword: string) => chain.flatMap((s) => s.instructions.filter((i) => i.keyword === keyword));
const isRootUser = (user: string) => /^(root|0)(:|$)/.test(user.trim());

function copyOf(args: string): { from: string | null; chown: boolean; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const flags = words.filter((w) => w.startsWith('--'));
  const paths = words.filter((w) => !w.startsWith('--'));
  const from = flags.find((f) => f.startsWith('--from='));
  return { from: from ? from.slice('--from='.length) : null, chown: flags.some((f) => f.startsWith('--chown')), sources: paths.slice(0, -1), dest: paths[paths.length - 1] };
}

// ---------------------------------------------------------------------------------------------
// Compose
// ---------------------------------------------------------------------------------------------

interface ComposeService {
  image?: string;
  hostname?: string;
  build?: { context?: string; dockerfile?: string; target?: string };
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | number | { target: number })[];
  expose?: (string | number)[];
  read_only?: boolean;
  user?: string;
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[] };
  command?: string | string[];
  stop_grace_period?: string;
  /** The folder of the compose file that defines the service (relative paths resolve from it). */
  dir: string;
}

/** The compose model: the file's services plus those of the files it includes. */
function loadCompose(file: string): Map<string, ComposeService> {
  const doc = parseYaml(read(file), { merge: true }) as { include?: (string | { path: string | string[] })[]; services?: Record<string, Omit<ComposeService, 'dir'>> };
  const services = new Map<string, ComposeService>();
  for (const entry of doc.include ?? []) {
    const paths = typeof entry === 'string' ? [entry] : ([] as string[]).concat(entry.path);
    for (const included of paths) for (const [name, service] of loadCompose(path.resolve(path.dirname(file), included))) services.set(name, service);
  }
  for (const [name, service] of Object.entries(doc.services ?? {})) services.set(name, { ...service, dir: path.dirname(file) });
  return services;
}

/** Compose interpolation with an empty shell environment: `${VAR:-default}` gives the default. */
function interpolate(value: string, shell: Env = {}): string {
  return value.replace(/\$\$|\$\{(\w+)(?:(:?[-?+])([^}]*))?\}|\$(\w+)/g, (match, braced?: string, op?: string, word?: string, bare?: string) => {
    if (match === '$$') return '$';
    const name = (braced ?? bare) as string;
    const set = shell[name];
    if (op === ':-') return set ? set : (word ?? '');
    if (op === '-') return set !== undefined ? set : (word ?? '');
    return set ?? '';
  });
}

function rawEnvOf(service: ComposeService): Env {
  const env: Env = {};
  if (Array.isArray(service.environment)) {
    for (const item of service.environment) {
      const at = item.indexOf('=');
      if (at > 0) env[item.slice(0, at)] = item.slice(at + 1);
    }
  } else {
    for (const [key, value] of Object.entries(service.environment ?? {})) if (value !== null) env[key] = String(value);
  }
  return env;
}

const envOf = (service: ComposeService): Env => Object.fromEntries(Object.entries(rawEnvOf(service)).map(([k, v]) => [k, interpolate(v)]));

function containerPorts(service: ComposeService): number[] {
  const ports = (service.ports ?? []).map((p) => (typeof p === 'object' ? Number(p.target) : Number(interpolate(String(p)).split('/')[0].split(':').pop())));
  const exposed = (service.expose ?? []).map((p) => Number(String(p).split('/')[0]));
  return [...new Set([...ports, ...exposed])].sort((a, b) => a - b);
}

const dependsOn = (service: ComposeService): Record<string, string | undefined> =>
  Array.isArray(service.depends_on) ? Object.fromEntries(service.depends_on.map((d) => [d, undefined])) : Object.fromEntries(Object.entries(service.depends_on ?? {}).map(([k, v]) => [k, v.condition]));

function durationMs(value: string): number {
  let total = 0;
  for (const [, n, unit] of value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(n) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
  return total;
}

const asText = (command: string | string[] | undefined) => (Array.isArray(command) ? command.join(' ') : (command ?? ''));

// ---------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------

const stages = parseDockerfile(read(DOCKERFILE));
const compose = loadCompose(COMPOSE);
const matrix = brokerAclMatrix();
const rootPackage = JSON.parse(read(path.join(ROOT, 'package.json'))) as { engines: { node: string }; scripts: Record<string, string> };

const kafka = [...compose.entries()].find(([, s]) => Object.keys(rawEnvOf(s)).some((k) => /^KAFKA_LISTENER_NAME_.*_SASL_JAAS_CONFIG$/.test(k)));
const provisioner = [...compose.entries()].find(([, s]) => asText(s.command).includes('deploy/local/provision-kafka.ts'));
const postgres = [...compose.entries()].find(([, s]) => (s.image ?? '').startsWith('postgres'));

describe('the setup every role shares', () => {
  test('runServiceProcess parses exactly the schemas this spec knows', () => {
    const source = read(path.join(ROOT, 'libs', 'service-host', 'src', 'run-service-process.ts'));
    const parsed = [...source.matchAll(/loadConfig\([^,]+,\s*(\w+)/g)].map((m) => m[1]);
    expect(parsed.sort()).toEqual(Object.keys(HOST_SCHEMAS).sort());
  });

  test('the compose file has a broker, its ACL provisioning and Postgres', () => {
    expect(kafka).toBeDefined();
    expect(provisioner).toBeDefined();
    expect(postgres).toBeDefined();
  });

  test('the broker knows every principal of the matrix, with the password variable and default of deploy/local', () => {
    const [, broker] = kafka as [string, ComposeService];
    const jaas = Object.entries(rawEnvOf(broker)).filter(([k]) => /^KAFKA_LISTENER_NAME_(BROKER|INTERNAL)_PLAIN_SASL_JAAS_CONFIG$/.test(k));
    expect(jaas.length).toBeGreaterThan(0);
    expect(matrix.principals.map((p) => p.role).sort()).toEqual([...ROLES].sort());
    for (const [, config] of jaas) {
      for (const p of matrix.principals) {
        expect(config).toContain(`user_${p.username}="\${AOC_KAFKA_PASSWORD_${roleEnvSuffix(p.role)}:-${rolePassword(p.role, {})}}"`);
      }
    }
  });

  test('the Docker build context leaves out node_modules and dist', () => {
    const ignored = read(path.join(ROOT, '.dockerignore')).split('\n').map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist']));
  });

  test('the provider-executor image has the system Chromium the dashboard package launches, and a writable /tmp for it; no other role installs a browser', () => {
    const installsChromium = (role: string) => instructionsOf(chainOf(stages, role).chain, 'RUN').some((i) => /apt-get install\b.*\bchromium\b/.test(i.args));
    expect(SYSTEM_CHROMIUM).toBe('/usr/bin/chromium'); // where Debian's chromium package puts it
    expect(ROLES.filter(installsChromium)).toEqual(['provider-executor']);
    const compose = parseYaml(read(COMPOSE)) as { services: Record<string, { tmpfs?: string[] }> };
    expect(compose.services['provider-executor']?.tmpfs).toContain('/tmp');
  });

  test('the build stage runs `npm run build`, which builds every role through Nx', () => {
    expect(rootPackage.scripts['build']).toMatch(/\bnx run-many\b.*-t build\b/);
    const builders = stages.filter((s) => s.instructions.some((i) => i.keyword === 'RUN' && /\bnpm run build\b/.test(i.args)));
    expect(builders.map((s) => s.name)).toHaveLength(1);
  });
});

describe.each([...ROLES])('%s', (role) => {
  let facts: RoleFacts;
  beforeAll(async () => {
    facts = await factsOf(role);
  }, 60_000);

  const service = () => compose.get(role) as ComposeService;
  const env = () => envOf(service());
  /** The port the role serves its probes on, as runServiceProcess decides it. */
  const probePort = (): number => {
    const { definition } = facts;
    const host = parseAtBoot(role, definition, env());
    if (definition.http) return (host['PORT'] as number | undefined) ?? definition.http.defaultPort;
    if (definition.management) return (host['MANAGEMENT_PORT'] as number | undefined) ?? definition.management.defaultPort;
    throw new Error(`${role} serves no probes (neither http nor management in its definition)`);
  };

  describe('Dockerfile', () => {
    const target = () => chainOf(stages, role);

    test('has a target for the role, on a Node LTS image the engines field accepts', () => {
      const { image, chain } = target();
      expect(chain[chain.length - 1]?.name).toBe(role);
      const major = Number(/^node:(\d+)[.-]/.exec(image)?.[1]);
      expect(major % 2).toBe(0);
      expect(major).toBeGreaterThanOrEqual(Number(/(\d+)/.exec(rootPackage.engines.node)?.[1]));
    });

    test('runs as a non-root user', () => {
      const users = instructionsOf(target().chain, 'USER');
      expect(users.length).toBeGreaterThan(0);
      expect(isRootUser(users[users.length - 1].args)).toBe(false);
    });

    test('installs production dependencies only, with npm ci --omit=dev', () => {
      const installs = instructionsOf(target().chain, 'RUN').filter((i) => /\bnpm (ci|install|i)\b/.test(i.args));
      expect(installs.length).toBeGreaterThan(0);
      for (const install of installs) expect(install.args).toMatch(/\bnpm ci\b.*--omit=dev/);
      for (const copy of instructionsOf(target().chain, 'COPY').map((i) => copyOf(i.args))) expect(copy.sources.join(' ')).not.toMatch(/node_modules/);
    });

    test('copies only its own build output, root-owned (read-only for the runtime user)', () => {
      const copies = instructionsOf(target().chain, 'COPY').map((i) => copyOf(i.args));
      const built = copies.filter((c) => c.from !== null && c.sources.some((s) => /dist\/services\//.test(s)));
      expect(built.map((c) => c.sources).flat()).toEqual([`/app/dist/services/${role}`]);
      expect(copies.some((c) => c.chown)).toBe(false);
      expect(target().chain.some((s) => s.name === built[0].from)).toBe(false);
    });

    test('starts with plain node on the built main.js', () => {
      const cmds = instructionsOf(target().chain, 'CMD');
      const cmd = JSON.parse(cmds[cmds.length - 1].args) as string[];
      expect(cmd[0]).toBe('node');
      expect(cmd[cmd.length - 1]).toBe(`dist/services/${role}/main.js`);
      expect(cmd.slice(1, -1).filter((flag) => /^(-r|--require|--import|--loader|--experimental-loader)/.test(flag))).toEqual([]);
      expect(instructionsOf(target().chain, 'ENTRYPOINT')).toEqual([]);
    });

    test('exposes the port the role listens on', () => {
      const exposed = target()
        .chain[target().chain.length - 1].instructions.filter((i) => i.keyword === 'EXPOSE')
        .flatMap((i) => i.args.split(/\s+/).map((p) => Number(p.split('/')[0])));
      expect(exposed).toEqual([probePort()]);
    });
  });

  describe('compose', () => {
    test('has a service built from the role target of deploy/Dockerfile', () => {
      const s = service();
      expect(s).toBeDefined();
      expect(s.build?.target).toBe(role);
      expect(path.resolve(s.dir, s.build?.context ?? '.')).toBe(ROOT);
      expect(path.resolve(path.resolve(s.dir, s.build?.context ?? '.'), s.build?.dockerfile ?? 'Dockerfile')).toBe(DOCKERFILE);
    });

    test('read-only root filesystem, non-root user', () => {
      expect(service().read_only).toBe(true);
      if (service().user !== undefined) expect(isRootUser(String(service().user))).toBe(false);
    });

    test('sets no environment key the role does not read', () => {
      const unknown = Object.keys(env()).filter((k) => !facts.knownKeys.has(k));
      expect(unknown).toEqual([]);
    });

    test('sets every key the role requires, and the role accepts the values', () => {
      expect([...facts.requiredKeys].filter((k) => !(k in env()))).toEqual([]);
      expect(() => parseAtBoot(role, facts.definition, env())).not.toThrow();
    });

    test('joins the distributed deployment: Kafka transport on the internal listener, its own Postgres', () => {
      const e = env();
      expect(e['AOC_TRANSPORT']).toBe('kafka');
      const [brokerName, broker] = kafka as [string, ComposeService];
      const advertised = interpolate(rawEnvOf(broker)['KAFKA_ADVERTISED_LISTENERS'] ?? '')
        .split(',')
        .map((l) => l.replace(/^\w+:\/\//, ''))
        .filter((hostPort) => [brokerName, broker.hostname].includes(hostPort.split(':')[0]));
      expect(advertised).toHaveLength(1);
      expect(e['KAFKA_BROKERS']).toBe(advertised[0]);
      const [postgresName, pg] = postgres as [string, ComposeService];
      const url = new URL(e['DATABASE_URL']);
      expect(url.hostname).toBe(postgresName);
      expect(url.pathname).toBe(`/${envOf(pg)['POSTGRES_DB']}`);
    });

    test('uses its principal from the libs/contracts matrix, with the broker password variable and default', () => {
      const principal = matrix.principals.find((p) => p.role === role);
      expect(principal).toBeDefined();
      const raw = rawEnvOf(service());
      expect(interpolate(raw['KAFKA_SASL_USERNAME'] ?? '')).toBe(principal?.username);
      expect(raw['KAFKA_SASL_PASSWORD']).toBe(`\${AOC_KAFKA_PASSWORD_${roleEnvSuffix(role)}:-${rolePassword(role, {})}}`);
    });

    test('starts after the ACL provisioning and a healthy Postgres', () => {
      const deps = dependsOn(service());
      expect(deps[(provisioner as [string, ComposeService])[0]]).toBe('service_completed_successfully');
      expect(deps[(postgres as [string, ComposeService])[0]]).toBe('service_healthy');
    });

    test('exposes the port the role listens on and probes /readyz on it', () => {
      const port = probePort();
      expect(containerPorts(service())).toEqual([port]);
      expect(asText(service().healthcheck?.test)).toContain(`http://127.0.0.1:${port}/readyz`);
    });

    test('gives the role longer than its shutdown bound to stop', () => {
      const host = parseAtBoot(role, facts.definition, env());
      expect(durationMs(service().stop_grace_period ?? '10s')).toBeGreaterThan(host['AOC_SHUTDOWN_TIMEOUT_MS'] as number);
    });
  });
});
