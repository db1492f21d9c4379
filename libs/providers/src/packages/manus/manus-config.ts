import { AocError, issuesText } from '@aoc/errors';
import { z } from 'zod';
import { SealKeyText } from '../../core/sealed-box';
import { DATASOURCE_PROXY_PATH, GRAFANA_ORIGIN } from '../../connectors/grafana-datasource-connector';

/** The only targets the Manus package serves. */
export const MANUS_TARGETS = ['vida', 'monica'] as const;
export type ManusTarget = (typeof MANUS_TARGETS)[number];

const ManusTargetConfig = z
  .object({
    grafanaOrigin: z.string().regex(GRAFANA_ORIGIN, 'must be an http(s) origin without a path'),
    datasourcePath: z.string().regex(DATASOURCE_PROXY_PATH, 'must be a Grafana datasource proxy path (/api/datasources/proxy/uid/<uid>)'),
  })
  .strict();

export const ManusConfigSchema = z
  .object({
    targets: z
      .object({ vida: ManusTargetConfig.optional(), monica: ManusTargetConfig.optional() })
      .strict()
      .refine((t) => t.vida !== undefined || t.monica !== undefined, { message: 'configure at least one of vida, monica' }),
    /** The package's own Grafana service-account token; no other package sees it. */
    credential: z.object({ token: z.string().min(8).max(4096) }).strict(),
    /** 32-byte AES-256-GCM key (base64url, base64 or hex) sealing instance references. */
    instanceRefKey: SealKeyText,
    limits: z
      .object({
        maxSeries: z.number().int().min(1).max(20).default(10),
        maxOutputBytes: z.number().int().min(4096).max(256 * 1024).default(64 * 1024),
        maxResponseBytes: z.number().int().min(1024).max(16 * 1024 * 1024).default(4 * 1024 * 1024),
        retryDelaysMs: z.array(z.number().int().min(0).max(5000)).max(2).default([250, 1000]),
      })
      .strict()
      .prefault({}),
  })
  .strict();
export type ManusConfig = z.input<typeof ManusConfigSchema>;
export type ParsedManusConfig = z.output<typeof ManusConfigSchema>;

/** Parses operator configuration; the error names every bad key and never echoes a value. */
export function parseManusConfig(config: unknown): ParsedManusConfig {
  const parsed = ManusConfigSchema.safeParse(config);
  if (!parsed.success) {
    const issues = issuesText(parsed.error.issues, '(config)');
    throw new AocError('PROVIDER.CONFIG_INVALID', `manus package configuration is invalid: ${issues}`);
  }
  return parsed.data;
}
