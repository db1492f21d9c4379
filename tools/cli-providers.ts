import { readFileSync } from 'node:fs';
import { PrometheusTargetConfig, type ExecutorOptions } from '@aoc/service-provider-executor';
import { z } from 'zod';

/** The providers file of `aoc analyze --providers`: the same settings the executor reads from its environment. */
const ProvidersFile = z
  .object({
    prometheus: z.array(PrometheusTargetConfig).max(20).default([]),
    clinic: z.unknown().optional(),
    manus: z.unknown().optional(),
    wetech: z.unknown().optional(),
  })
  .strict();

export interface CliProviderOptions {
  prometheus?: string;
  targetLabel?: string;
  providersFile?: string;
}

/**
 * Live executor settings from the CLI flags, or null to replay the bundled recordings. A bad
 * file or URL stops the command naming the field; the settings never reach a log.
 */
export function liveExecutorOptions(options: CliProviderOptions): Partial<ExecutorOptions> | null {
  if (!options.prometheus && !options.providersFile) return null;
  let file: z.infer<typeof ProvidersFile> = { prometheus: [] };
  if (options.providersFile) {
    const parsed = ProvidersFile.safeParse(JSON.parse(readFileSync(options.providersFile, 'utf8')));
    if (!parsed.success) throw new Error(`--providers ${options.providersFile}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
    file = parsed.data;
  }
  const cli = options.prometheus ? [PrometheusTargetConfig.parse({ name: 'cli', baseUrl: options.prometheus, targetLabel: options.targetLabel ?? 'cluster' })] : [];
  return { mode: 'live', recordings: [], prometheusTargets: [...cli, ...file.prometheus], clinic: file.clinic, manus: file.manus, wetech: file.wetech };
}
