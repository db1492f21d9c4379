import { ConfigError, loadConfig, secret } from '@aoc/config';
import { z } from 'zod';
import { AGENT_ROLES, roleEnvSuffix, type AgentRole } from './model-port';

export type RoleModelConfig =
  | { engine: 'builtin' }
  | {
      engine: 'openai';
      /** Base URL of an OpenAI-compatible API, e.g. `https://api.example.com/v1`. */
      baseUrl: string;
      model: string;
      /** Secret: sent as a bearer token, never logged, never put in errors or spans. */
      apiKey: string | null;
      timeoutMs: number;
      maxRetries: number;
    };

export type AgentRuntimeConfig = Partial<Record<AgentRole, RoleModelConfig>>;

const MODEL_KEY_PREFIX = 'AOC_MODEL_';
const FIELDS = ['ENGINE', 'BASE_URL', 'NAME', 'API_KEY', 'TIMEOUT_MS', 'MAX_RETRIES'] as const;
type Field = (typeof FIELDS)[number];

const keyOf = (field: Field, role: AgentRole): string => `${MODEL_KEY_PREFIX}${field}_${roleEnvSuffix(role)}`;

const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

function roleShape(role: AgentRole): Record<string, z.ZodType> {
  return {
    [keyOf('ENGINE', role)]: z.enum(['builtin', 'openai']).default('builtin'),
    [keyOf('BASE_URL', role)]: HttpUrl.optional(),
    [keyOf('NAME', role)]: z.string().min(1).max(200).optional(),
    [keyOf('API_KEY', role)]: secret(z.string().min(1).optional()),
    [keyOf('TIMEOUT_MS', role)]: z.coerce.number().int().min(100).max(600000).default(60000),
    [keyOf('MAX_RETRIES', role)]: z.coerce.number().int().min(0).max(10).default(2),
  };
}

/** The zod schema of the model configuration of the given roles (one set of keys per role). */
export function agentRuntimeConfigSchema(roles: readonly AgentRole[]): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const role of roles) Object.assign(shape, roleShape(role));
  return z.object(shape);
}

/** Keys an OpenAI-compatible engine cannot do without; checked from the raw environment. */
function missingForOpenai(env: Record<string, string | undefined>, roles: readonly AgentRole[]): { key: string; message: string }[] {
  const issues: { key: string; message: string }[] = [];
  for (const role of roles) {
    if (env[keyOf('ENGINE', role)] !== 'openai') continue;
    for (const field of ['BASE_URL', 'NAME'] as const) {
      const value = env[keyOf(field, role)];
      if (value === undefined || value === '') issues.push({ key: keyOf(field, role), message: `required when ${keyOf('ENGINE', role)}=openai` });
    }
  }
  return issues;
}

/**
 * Parses the per-role model configuration once (at boot). Fails fast naming every bad key,
 * including `AOC_MODEL_*` keys that name no known field or role (typos would otherwise be
 * ignored silently). Secret values never appear in the error.
 */
export function loadAgentRuntimeConfig(env: Record<string, string | undefined> = process.env, roles: readonly AgentRole[] = AGENT_ROLES): AgentRuntimeConfig {
  const known = new Set<string>();
  for (const role of AGENT_ROLES) for (const field of FIELDS) known.add(keyOf(field, role));
  const unknown = Object.keys(env).filter((k) => k.startsWith(MODEL_KEY_PREFIX) && !known.has(k) && env[k] !== undefined && env[k] !== '');
  const schema = agentRuntimeConfigSchema(roles);
  let parsed: Record<string, unknown> | null = null;
  let issues: { key: string; message: string }[] = [];
  try {
    parsed = loadConfig('agent-runtime', schema, env) as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    issues = error.issues;
  }
  issues = [...issues, ...missingForOpenai(env, roles), ...unknown.map((key) => ({ key, message: `unknown model setting (fields: ${FIELDS.join(', ')}; roles: ${AGENT_ROLES.map(roleEnvSuffix).join(', ')})` }))];
  if (issues.length > 0 || parsed === null) throw new ConfigError('agent-runtime', issues);
  const config: AgentRuntimeConfig = {};
  for (const role of roles) {
    const values = parsed;
    const get = <V>(field: Field) => values[keyOf(field, role)] as V;
    config[role] =
      get<'builtin' | 'openai'>('ENGINE') === 'openai'
        ? {
            engine: 'openai',
            baseUrl: get<string>('BASE_URL'),
            model: get<string>('NAME'),
            apiKey: get<string | undefined>('API_KEY') ?? null,
            timeoutMs: get<number>('TIMEOUT_MS'),
            maxRetries: get<number>('MAX_RETRIES'),
          }
        : { engine: 'builtin' };
  }
  return config;
}

/** Printable view of a role's configuration: the API key is reduced to whether one is set. */
export function describeRoleModelConfig(config: RoleModelConfig): Record<string, unknown> {
  if (config.engine === 'builtin') return { engine: 'builtin' };
  const { apiKey, ...rest } = config;
  return { ...rest, apiKey: apiKey ? '***' : null };
}
