import { CLINIC_BOOTSTRAP_TIMEOUT_MS, WETECH_AUTH_TIMEOUT_MS, clinicPackage, manusPackage, parseSealKey, postgresStorageStateStore, wetechPackage, WetechCredentialsSchema, type EvidencePackage, type SqlQueryable } from '@aoc/providers';
import { issuesText, PermanentError } from '@aoc/errors';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import type { ExecutorOptions } from './executor-options';

const Api = z.object({ baseUrl: z.string().url(), token: z.string().min(1) }).strict();
const ClinicJson = z
  .object({
    clinic: Api,
    cloudConfig: Api.optional(),
    sql: z
      .object({
        user: z.string().min(1),
        password: z.string(),
        endpoint: z.object({ host: z.string().min(1), port: z.number().int().min(1).max(65535), database: z.string().optional() }).strict(),
        systemSchema: z.string().optional(),
        /** The operator attests a SELECT-only account (checked with SHOW GRANTS) for a server whose session cannot be made read-only (TiDB). */
        attestedSelectOnlyAccount: z.boolean().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const WetechJson = z.object({ credentials: WetechCredentialsSchema, instanceRefKey: z.string(), storageSealKey: z.string() }).strict();

function parseOrFail<T>(schema: z.ZodType<T>, value: unknown, setting: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new PermanentError('CONFIG.INVALID', `${setting}: ${issuesText(parsed.error.issues)}`);
  }
  return parsed.data;
}

/** Raw pg access for the browser-state store (it speaks the pg result shape). */
function pgQueryable(dataSource: DataSource): SqlQueryable {
  return {
    query: async (text, values) => {
      const runner = dataSource.createQueryRunner();
      try {
        const result = (await runner.query(text, values, true)) as { records: unknown[]; affected?: number | null };
        return { rows: result.records ?? [], rowCount: result.affected ?? result.records?.length ?? 0 };
      } finally {
        await runner.release();
      }
    },
  };
}

/**
 * Builds the Clinic, Manus and Wetech packages this deployment has configuration for. Each is
 * its own identity with its own credentials; a bad configuration stops the service at boot.
 */
export function configuredPackages(options: Pick<ExecutorOptions, 'clinic' | 'manus' | 'wetech' | 'wetechResolveOrigin' | 'authTimeoutMs'>, dataSource: DataSource, schema: string): EvidencePackage[] {
  const packages: EvidencePackage[] = [];
  // One outer limit for authentication and bootstrap; a package's own tighter bound still applies.
  const authTimeoutMs = options.authTimeoutMs ?? WETECH_AUTH_TIMEOUT_MS;
  if (options.clinic !== undefined) {
    packages.push(clinicPackage({ ...parseOrFail(ClinicJson, options.clinic, 'AOC_CLINIC_CONFIG'), bootstrapTimeoutMs: Math.min(CLINIC_BOOTSTRAP_TIMEOUT_MS, authTimeoutMs) }));
  }
  if (options.manus !== undefined) packages.push(manusPackage(options.manus as Parameters<typeof manusPackage>[0]));
  if (options.wetech !== undefined) {
    const wetech = parseOrFail(WetechJson, options.wetech, 'AOC_WETECH_CONFIG');
    packages.push(
      wetechPackage({
        credentials: wetech.credentials,
        instanceRefKey: wetech.instanceRefKey,
        storageState: postgresStorageStateStore({ db: pgQueryable(dataSource), schema, key: 'wetech', sealKey: parseSealKey(wetech.storageSealKey) }),
        authTimeoutMs,
        ...(options.wetechResolveOrigin ? { resolveOrigin: options.wetechResolveOrigin } : {}),
      }),
    );
  }
  return packages;
}
