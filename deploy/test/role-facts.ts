// What the code says about each role's configuration, for the image and Kubernetes specs
// (images.spec.ts, k8s.spec.ts):
// - the role's ServiceDefinition (its ports);
// - every environment key the role reads while it parses its configuration: the schemas
//   runServiceProcess parses, plus every key its definition's module() and provider factories read
//   from process.env (recorded through a Proxy);
// - the keys whose absence the role refuses at boot.
import { authConfigSchema } from '@aoc/auth';
import { ConfigError, loadConfig } from '@aoc/config';
import type { Role } from '@aoc/contracts';
import { serviceConfigSchema, type RoleRuntime, type ServiceDefinition } from '@aoc/service-host';
import { createLogger } from '@aoc/telemetry';
import type { Provider } from '@nestjs/common';

/** The schemas runServiceProcess parses before it starts a role (the spec checks its source for them). */
export const HOST_SCHEMAS = { serviceConfigSchema, authConfigSchema } as const;

export type Env = Record<string, string>;

export async function definitionOf(role: Role): Promise<ServiceDefinition> {
  const exported = (await import(`@aoc/service-${role}`)) as Record<string, unknown>;
  const found = Object.values(exported).filter(
    (v): v is ServiceDefinition => typeof v === 'object' && v !== null && (v as ServiceDefinition).role === role && typeof (v as ServiceDefinition).module === 'function',
  );
  if (found.length !== 1) throw new Error(`@aoc/service-${role} should export exactly one ServiceDefinition of role ${role}, found ${found.length}`);
  return found[0];
}

function runtimeOf(role: Role): RoleRuntime {
  // module() only wires providers: nothing touches the bus or the database before Nest starts.
  return { role, schema: role.replace(/-/g, '_'), bus: {}, dataSource: {}, logger: createLogger(role, 'error', () => undefined) } as unknown as RoleRuntime;
}

/** Runs `fn` with process.env replaced by `env`, and returns every key read from it. */
function envKeysReadBy(env: Env, fn: () => void): Set<string> {
  const keys = new Set<string>();
  const saved = process.env;
  process.env = new Proxy(
    { ...env },
    {
      get(target, key, receiver) {
        if (typeof key === 'string') keys.add(key);
        return Reflect.get(target, key, receiver) as unknown;
      },
    },
  ) as NodeJS.ProcessEnv;
  try {
    fn();
  } finally {
    process.env = saved;
  }
  return keys;
}

/** runServiceProcess's schemas, then the definition's module() and its provider factories. */
function bootSteps(role: Role, definition: ServiceDefinition): { host: Record<string, unknown>; steps: (() => void)[] } {
  const host: Record<string, unknown> = {};
  const steps = Object.values(HOST_SCHEMAS).map((schema) => () => void Object.assign(host, loadConfig(`aoc-${role}`, schema, process.env)));
  steps.push(() => {
    const module = definition.module(runtimeOf(role));
    for (const provider of (module.providers ?? []) as Provider[]) {
      if (typeof provider === 'object' && 'useFactory' in provider && (provider.inject ?? []).length === 0) (provider.useFactory as () => unknown)();
    }
  });
  return { host, steps };
}

/** Every boot step with `env` as process.env; throws like the role would. Returns the parsed host settings. */
export function parseAtBoot(role: Role, definition: ServiceDefinition, env: Env): Record<string, unknown> {
  const { host, steps } = bootSteps(role, definition);
  envKeysReadBy(env, () => steps.forEach((step) => step()));
  return host;
}

export interface RoleFacts {
  definition: ServiceDefinition;
  /** Every environment key the role reads while it parses its configuration. */
  knownKeys: Set<string>;
  /** Keys whose absence the role refuses at boot. */
  requiredKeys: Set<string>;
}

export async function factsOf(role: Role): Promise<RoleFacts> {
  const definition = await definitionOf(role);
  const knownKeys = new Set<string>();
  const requiredKeys = new Set<string>();
  // With an empty environment, each step on its own: a refusal names the required keys, and the keys read before it still count.
  for (const step of bootSteps(role, definition).steps) {
    const read = envKeysReadBy({}, () => {
      try {
        step();
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        for (const issue of error.issues) requiredKeys.add(issue.key);
      }
    });
    for (const key of read) knownKeys.add(key);
  }
  return { definition, knownKeys, requiredKeys };
}
