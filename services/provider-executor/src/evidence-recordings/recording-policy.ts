import { z } from 'zod';

/**
 * What a live executor keeps of the evidence it fetched, so that any answered ticket can be
 * replayed later as a frozen case (the optimizer's `--from-deployment`): on by default, bounded
 * per run and in total, and deleted after a retention period.
 */
export interface RecordingPolicy {
  /** Off only by an explicit `AOC_EVIDENCE_RECORDING=off`; replay mode never records. */
  enabled: boolean;
  /** Sanitised bytes one run may record; later results of that run are not kept. */
  maxRunBytes: number;
  /** Bytes the whole store may hold; when full, new results wait for the retention delete. */
  maxTotalBytes: number;
  /** Recordings older than this are deleted (hourly, and at start). */
  retentionDays: number;
}

const MIB = 1024 * 1024;

export const DEFAULT_RECORDING_POLICY: RecordingPolicy = {
  enabled: true,
  // A run's results are ~1-2 KB each (series summaries, digests): 2 MiB is hundreds of queries.
  maxRunBytes: 2 * MIB,
  maxTotalBytes: 1024 * MIB,
  // Longer than a Focus usually lives (retirement needs >= 7 days of attempts), so its cases keep replaying.
  retentionDays: 90,
};

/** The recording keys of the executor's one config schema (spread into `ExecutorConfigSchema`). */
export const RecordingPolicyShape = {
  /** `on` (default) keeps the sanitised results of every live run for replay; `off` keeps none. */
  AOC_EVIDENCE_RECORDING: z.enum(['on', 'off']).default('on'),
  AOC_EVIDENCE_RECORDING_MAX_RUN_BYTES: z.coerce.number().int().min(1024).max(256 * MIB).default(DEFAULT_RECORDING_POLICY.maxRunBytes),
  AOC_EVIDENCE_RECORDING_MAX_TOTAL_BYTES: z.coerce.number().int().min(MIB).max(1024 * 1024 * MIB).default(DEFAULT_RECORDING_POLICY.maxTotalBytes),
  AOC_EVIDENCE_RECORDING_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(DEFAULT_RECORDING_POLICY.retentionDays),
};

type RecordingConfig = { [K in keyof typeof RecordingPolicyShape]: z.output<(typeof RecordingPolicyShape)[K]> };

export function recordingPolicyOf(config: RecordingConfig): RecordingPolicy {
  return {
    enabled: config.AOC_EVIDENCE_RECORDING === 'on',
    maxRunBytes: config.AOC_EVIDENCE_RECORDING_MAX_RUN_BYTES,
    maxTotalBytes: config.AOC_EVIDENCE_RECORDING_MAX_TOTAL_BYTES,
    retentionDays: config.AOC_EVIDENCE_RECORDING_RETENTION_DAYS,
  };
}

/** Whether a batch in this mode keeps what it fetched: record always, live unless turned off, replay never. */
export function recordsIn(mode: 'live' | 'record' | 'replay', policy: RecordingPolicy = DEFAULT_RECORDING_POLICY): boolean {
  return mode === 'record' || (mode === 'live' && policy.enabled);
}
