import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, secret } from '@aoc/config';
import { MySqlStatsEndpoint, PostgresStatsEndpoint } from '@aoc/providers';
import { z } from 'zod';
import { RecordingEntry } from '../evidence-recordings/evidence-recording';
import { RecordingPolicyShape, recordingPolicyOf, type RecordingPolicy } from '../evidence-recordings/recording-policy';

/** Sanitised evidence recorded for the bundled example tickets (`npm run examples:record`). */
export const BUNDLED_RECORDINGS = join(__dirname, '..', '..', 'recordings', 'examples.json');

/** Loads a recordings file; every entry is validated, a bad file fails loudly. */
export function loadRecordings(path: string = BUNDLED_RECORDINGS): RecordingEntry[] {
  if (!existsSync(path)) return [];
  return z.array(RecordingEntry).parse(JSON.parse(readFileSync(path, 'utf8')));
}

const LabelName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a Prometheus label name');

/** Loki of an endpoint's targets (`logs`): stream selectors must carry `{<selectorLabel>="<target>"}`. */
export const PrometheusLokiConfig = z
  .object({
    baseUrl: z.string().url(),
    bearerToken: z.string().min(1).optional(),
    /** Defaults to the endpoint's target label (`cluster` without one). */
    selectorLabel: LabelName.optional(),
  })
  .strict();

export const PrometheusTargetConfig = z
  .object({
    name: z.string().min(1).max(64),
    baseUrl: z.string().url(),
    bearerToken: z.string().min(1).optional(),
    /** With a target label the endpoint serves every value of it (its inventory); without, it is the one target `name`. */
    targetLabel: LabelName.optional(),
    /**
     * PostgreSQL statistics of the target (`sql`), read with this read-only (ideally pg_monitor)
     * account. The views hold the state at execution time, not the incident window's.
     */
    postgres: PostgresStatsEndpoint.optional(),
    /** With `targetLabel`: the one inventory target the `postgres` server is (required then). */
    postgresTarget: z.string().min(1).max(64).optional(),
    /** MySQL/MariaDB statistics of the target (the same `sql`, over performance_schema/information_schema), read with this read-only account. */
    mysql: MySqlStatsEndpoint.optional(),
    /** With `targetLabel`: the one inventory target the `mysql` server is (required then). */
    mysqlTarget: z.string().min(1).max(64).optional(),
    loki: PrometheusLokiConfig.optional(),
  })
  .superRefine((t, ctx) => {
    if (t.postgres && t.targetLabel && !t.postgresTarget) {
      ctx.addIssue({ code: 'custom', path: ['postgresTarget'], message: 'an endpoint with targetLabel serves many targets: name the one target its postgres server is' });
    }
    if (t.postgresTarget && !t.postgres) ctx.addIssue({ code: 'custom', path: ['postgresTarget'], message: 'needs postgres settings' });
    if (t.postgresTarget && !t.targetLabel && t.postgresTarget !== t.name) ctx.addIssue({ code: 'custom', path: ['postgresTarget'], message: 'without targetLabel the endpoint is the one target name' });
    if (t.mysql && t.targetLabel && !t.mysqlTarget) ctx.addIssue({ code: 'custom', path: ['mysqlTarget'], message: 'an endpoint with targetLabel serves many targets: name the one target its mysql server is' });
    if (t.mysqlTarget && !t.mysql) ctx.addIssue({ code: 'custom', path: ['mysqlTarget'], message: 'needs mysql settings' });
    if (t.mysqlTarget && !t.targetLabel && t.mysqlTarget !== t.name) ctx.addIssue({ code: 'custom', path: ['mysqlTarget'], message: 'without targetLabel the endpoint is the one target name' });
    const sqlOwner = (named: string | undefined) => (t.targetLabel ? named : t.name);
    if (t.postgres && t.mysql && sqlOwner(t.postgresTarget) === sqlOwner(t.mysqlTarget)) ctx.addIssue({ code: 'custom', path: ['mysql'], message: 'one target has one SQL server: postgres and mysql name the same target' });
  });
export type PrometheusTargetConfig = z.infer<typeof PrometheusTargetConfig>;

/** Where a targets list is wrong, by path and message only: the values (passwords, hosts) are never echoed. */
function describeTargetsError(error: unknown): string {
  if (error instanceof z.ZodError) return error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ').slice(0, 300);
  return error instanceof SyntaxError ? 'not valid JSON' : 'invalid';
}

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
  /** live: query providers (and keep sanitised results unless AOC_EVIDENCE_RECORDING=off); record: the same, recording forced on; replay: recorded results only. */
  AOC_EVIDENCE_MODE: z.enum(['live', 'record', 'replay']).default('live'),
  ...RecordingPolicyShape,
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
  /**
   * Test only (`npm run chaos`): the first evidence batch this process prepares waits this long
   * before its provider calls, as a provider that stalls would. 0 (default) = off; never set it in
   * a deployment.
   */
  AOC_TEST_PROVIDER_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(0),
  /** JSON array of {name, baseUrl, bearerToken?, targetLabel?, postgres?, postgresTarget?, mysql?, mysqlTarget?, loki?} for the generic Prometheus package. */
  AOC_PROMETHEUS_TARGETS: secret(
    z
      .string()
      .default('[]')
      .transform((text, ctx) => {
        try {
          return z.array(PrometheusTargetConfig).parse(JSON.parse(text));
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: `must be a JSON array of {name, baseUrl, bearerToken?, targetLabel?, postgres?, postgresTarget?, mysql?, mysqlTarget?, loki?}: ${describeTargetsError(error)}` });
          return z.NEVER;
        }
      }),
  ),
}).superRefine((c, ctx) => {
  // Contradictory settings fail at boot rather than silently recording (or not).
  if (c.AOC_EVIDENCE_MODE === 'record' && c.AOC_EVIDENCE_RECORDING === 'off') ctx.addIssue({ code: 'custom', path: ['AOC_EVIDENCE_RECORDING'], message: 'cannot be off with AOC_EVIDENCE_MODE=record (use live)' });
});
export type ExecutorConfig = z.infer<typeof ExecutorConfigSchema>;

export interface ExecutorOptions {
  mode: ExecutorConfig['AOC_EVIDENCE_MODE'];
  prometheusTargets: PrometheusTargetConfig[];
  /** Raw package configurations; each package validates its own and fails fast naming the field. */
  clinic?: unknown;
  manus?: unknown;
  wetech?: unknown;
  /**
   * Programmatic only (never from the environment): where an allowlisted Wetech host is reached.
   * The example recorder maps the inventory's hosts to local fixtures with it.
   */
  wetechResolveOrigin?: (host: string) => string;
  /** Bundled recordings available to replay (e.g. the example tickets). */
  recordings: RecordingEntry[];
  /** What a live run records and how long it is kept; on with the defaults when absent. */
  recording?: RecordingPolicy;
  /** Outer limit of provider authentication/bootstrap; 3 min unless set. */
  authTimeoutMs?: number;
  /** Inventory refresh period; 5 min unless set. */
  inventoryRefreshMs?: number;
  /** Test only: delay of the first batch this process prepares (AOC_TEST_PROVIDER_DELAY_MS); 0 or absent = none. */
  testDelayMs?: number;
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
    ...(config.AOC_TEST_PROVIDER_DELAY_MS > 0 ? { testDelayMs: config.AOC_TEST_PROVIDER_DELAY_MS } : {}),
    recording: recordingPolicyOf(config),
    recordings: config.AOC_EVIDENCE_MODE === 'replay' ? loadRecordings(config.AOC_EVIDENCE_RECORDINGS) : [],
  };
}
