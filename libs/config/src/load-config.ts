import { z } from 'zod';

/**
 * Marks a config field as secret: its value is never printed by `describeConfig`, and error
 * messages about it name the key only.
 */
const SECRET_KEYS = new WeakSet<z.ZodType>();

export function secret<T extends z.ZodType>(schema: T): T {
  SECRET_KEYS.add(schema);
  return schema;
}

export class ConfigError extends Error {
  readonly code = 'CONFIG.INVALID';
  constructor(
    readonly service: string,
    readonly issues: { key: string; message: string }[],
  ) {
    super(`${service}: invalid configuration: ${issues.map((i) => `${i.key}: ${i.message}`).join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses environment variables once at boot with the service's schema. Fails fast naming every
 * bad key; secret values never appear in the error.
 */
export function loadConfig<S extends z.ZodObject>(
  service: string,
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) input[key] = env[key] === '' ? undefined : env[key];
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new ConfigError(
      service,
      result.error.issues.map((issue) => ({ key: issue.path.join('.') || '(root)', message: issue.message })),
    );
  }
  return result.data;
}

/** Printable view of a parsed config with secrets masked. */
export function describeConfig<S extends z.ZodObject>(schema: S, config: z.infer<S>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const values = config as Record<string, unknown>;
  for (const [key, fieldSchema] of Object.entries(schema.shape)) {
    const value = values[key];
    out[key] = SECRET_KEYS.has(fieldSchema as z.ZodType) && value !== undefined ? '***' : value;
  }
  return out;
}

/** Shared settings every service reads. Services extend this object with their own keys. */
export const baseConfigShape = {
  AOC_TRANSPORT: z.enum(['memory', 'kafka']).default('memory'),
  KAFKA_BROKERS: z
    .string()
    .default('127.0.0.1:19092')
    .transform((v) => v.split(',').map((b) => b.trim()).filter(Boolean)),
  KAFKA_SASL_USERNAME: z.string().optional(),
  KAFKA_SASL_PASSWORD: secret(z.string().optional()),
  DATABASE_URL: secret(z.string().url().optional()),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
};
