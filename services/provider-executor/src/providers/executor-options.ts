import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, secret } from '@aoc/config';
import { z } from 'zod';
import { RecordingEntry } from '../evidence-recordings/evidence-recording';

/** Sanitised evidence recorded for the bundled example tickets (`npm run examples:record`). */
export const BUNDLED_RECORDINGS = join(__dirname, '..', '..', 'recordings', 'examples.json');

/** Loads a recordings file; every entry is validated, a bad file fails loudly. */
export function loadRecordings(path: string = BUNDLED_RECORDINGS): RecordingEntry[] {
  if (!existsSync(path)) return [];
  return z.array(RecordingEntry).parse(JSON.parse(readFileSync(path, 'utf8')));
}

export const PrometheusTargetConfig = z.object({
  name: z.string().min(1).max(64),
  baseUrl: z.string().url(),
  bearerToken: z.string().min(1).optional(),
  /** With a target label the endpoint serves every value of it (its inventory); without, it is the one target `name`. */
  targetLabel: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a Prometheus label name').optional(),
});

/** A JSON-valued secret setting; the package validates the parsed object itself. */
function jsonSecret(what: string) {
  return secret(
    z
      .string()
      .optional()
      .transform((text, ctx) => {
        if (text === undefined) return undefined;
        try {
          return JSON.parse(text) as unknown;
        } catch {
          ctx.addIssue({ code: 'custom', message: `${what} must be a JSON object` });
          return z.NEVER;
        }
      }),
  );
}

export const ExecutorConfigSchema = z.object({
  /** live: query providers; record: query and keep sanitised results; replay: recorded results only. */
  AOC_EVIDENCE_MODE: z.enum(['live', 'record', 'replay']).default('live'),
  /** Recordings replayed in replay mode; defaults to the bundled example recordings. */
  AOC_EVIDENCE_RECORDINGS: z.string().optional(),
  /** Clinic package configuration (API base URL and token, CloudConfig, read-only SQL account). */
  AOC_CLINIC_CONFIG: jsonSecret('AOC_CLINIC_CONFIG'),
  /** Manus package configuration (targets vida/monica, token, instance-ref key). */
  AOC_MANUS_CONFIG: jsonSecret('AOC_MANUS_CONFIG'),
  /** Wetech package configuration (credential profiles, instance-ref key, storage-state seal key). */
  AOC_WETECH_CONFIG: jsonSecret('AOC_WETECH_CONFIG'),
  /** Outer limit of provider authentication and bootstrap (Clinic metadata, Wetech dashboard login). */
  AOC_PROVIDER_AUTH_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(180_000),
  /** How often every package's inventory is listed again and published to the router. */
  AOC_INVENTORY_REFRESH_MS: z.coerce.number().int().min(1000).max(86_400_000).default(300_000),
  /** JSON array of {name, baseUrl, bearerToken?, targetLabel?} for the generic Prometheus package. */
  AOC_PROMETHEUS_TARGETS: secret(
    z
      .string()
      .default('[]')
      .transform((text, ctx) => {
        try {
          return z.array(PrometheusTargetConfig).parse(JSON.parse(text));
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: `must be a JSON array of {name, baseUrl, bearerToken?, targetLabel?}: ${error instanceof Error ? error.message.slice(0, 200) : 'invalid'}` });
          return z.NEVER;
        }
      }),
  ),
});
export type ExecutorConfig = z.infer<typeof ExecutorConfigSchema>;

export interface ExecutorOptions {
  mode: ExecutorConfig['AOC_EVIDENCE_MODE'];
  prometheusTargets: z.infer<typeof PrometheusTargetConfig>[];
  /** Raw package configurations; each package validates its own and fails fast naming the field. */
  clinic?: unknown;
  manus?: unknown;
  wetech?: unknown;
  /** Bundled recordings available to replay (e.g. the example tickets). */
  recordings: RecordingEntry[];
  /** Outer limit of provider authentication/bootstrap; 3 min unless set. */
  authTimeoutMs?: number;
  /** Inventory refresh period; 5 min unless set. */
  inventoryRefreshMs?: number;
}

export function executorOptionsFromEnv(env: Record<string, string | undefined> = process.env): ExecutorOptions {
  const config = loadConfig('aoc-provider-executor', ExecutorConfigSchema, env);
  return {
    mode: config.AOC_EVIDENCE_MODE,
    prometheusTargets: config.AOC_PROMETHEUS_TARGETS,
    clinic: config.AOC_CLINIC_CONFIG,
    manus: config.AOC_MANUS_CONFIG,
    wetech: config.AOC_WETECH_CONFIG,
    authTimeoutMs: config.AOC_PROVIDER_AUTH_TIMEOUT_MS,
    inventoryRefreshMs: config.AOC_INVENTORY_REFRESH_MS,
    recordings: config.AOC_EVIDENCE_MODE === 'replay' ? loadRecordings(config.AOC_EVIDENCE_RECORDINGS) : [],
  };
}
