import type { EvidenceCatalogListedV1, EvidenceCatalogRequestedV1 } from '@aoc/contracts';
import { MAX_CATALOG_METRICS } from '@aoc/contracts';
import { rankForCatalog, type CatalogListing } from '@aoc/providers';
import { recordingEntry, recordingKey, type RecordingEntry } from '../evidence-recordings/evidence-recording';
import type { ExecutionDeps } from '../execute-batch/execute-batch';
import { recordsIn } from '../evidence-recordings/recording-policy';

/** The recording operation of a discovery bootstrap (no expression: target and window are the key). */
export const CATALOG_OPERATION = 'metric_catalog';

export interface DiscoveryOutcome {
  listed: EvidenceCatalogListedV1;
  newRecordings: RecordingEntry[];
}

const keyParts = (request: EvidenceCatalogRequestedV1['request']) => ({
  provider: request.provider,
  target: request.target ?? '',
  operation: CATALOG_OPERATION,
  expression: '',
  window: request.window,
  stepSeconds: null,
});

/**
 * Discovery bootstrap of one evidence request, deterministic like batch execution: live (or
 * record) asks the package and keeps the catalogue for replay, replay reads the recorded catalogue. A package without discovery, or
 * a replay without a recorded catalogue, answers `unsupported` and the planner uses its templates.
 */
export async function discoverCatalog(requested: EvidenceCatalogRequestedV1, deps: Pick<ExecutionDeps, 'registry' | 'mode' | 'recordings' | 'recording'>): Promise<DiscoveryOutcome> {
  const { request } = requested;
  const answer = (listing: CatalogListing, newRecordings: RecordingEntry[] = []): DiscoveryOutcome => ({
    listed: {
      runId: requested.runId,
      request,
      status: listing.status,
      targetLabel: listing.targetLabel,
      metrics: rankForCatalog(listing.metrics, MAX_CATALOG_METRICS),
      truncated: listing.truncated || listing.metrics.length > MAX_CATALOG_METRICS,
      failureCode: listing.failureCode,
      operations: (listing.operations ?? []).slice(0, 16),
      logsLabel: listing.logsLabel ?? null,
    },
    newRecordings,
  });
  const unsupported = (failureCode: string | null): CatalogListing => ({ status: 'unsupported', targetLabel: null, metrics: [], truncated: false, failureCode });
  if (request.target === null || request.provider === 'none') return answer(unsupported('EVIDENCE.NO_TARGET'));
  if (deps.mode === 'replay') {
    const hit = await deps.recordings.get(recordingKey(keyParts(request)));
    const recorded = hit?.evidence.result as CatalogListing | undefined;
    return answer(recorded && hit?.evidence.status !== 'failed' ? recorded : unsupported(null));
  }
  const pkg = deps.registry.get(request.provider);
  if (!pkg?.discoverMetrics) return answer(unsupported(pkg ? null : 'PROVIDER.NOT_CONFIGURED'));
  const listing = await pkg.discoverMetrics({ target: request.target, window: request.window });
  const recordings =
    recordsIn(deps.mode, deps.recording) && listing.status !== 'failed'
      ? [recordingEntry(keyParts(request), { id: 'discovery', status: listing.status === 'empty' ? 'empty' : 'complete', result: listing })]
      : [];
  return answer(listing, recordings);
}
