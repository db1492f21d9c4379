// Diagnosis benchmark: the platform in live mode against the benchmark's Prometheus, and one
// ticket's run through it (intake -> run.published), read back from the reporter and the router.
import { startPlatform, waitForRun, type Platform } from '@aoc/launcher';
import type { ExecutorOptions } from '@aoc/service-provider-executor';
import { TicketIntakeService, type AnalyzeTicketRequest } from '@aoc/service-router';
import { PrometheusTargetConfig } from '../../services/provider-executor/src/providers/executor-options';
import { summariseBriefs, type EngineOutcome, type ThreadRow } from '../../tools/launcher/src/diagnosis-bench/score';

export type { EngineOutcome };

/** How the generic Prometheus package is configured for the benchmark. */
export type TargetMode = 'targetLabel' | 'legacy';

/** Whether the executor's target schema has `targetLabel` (one endpoint serving every value of a label). */
export function supportsTargetLabel(): boolean {
  return 'targetLabel' in PrometheusTargetConfig.shape;
}

/**
 * One `{name: 'bench', baseUrl, targetLabel: 'cluster'}` entry when the package serves every value
 * of its target label; before that lands, one legacy entry per cluster (`cluster="<name>"`).
 */
export function prometheusTargets(baseUrl: string, clusters: readonly string[], mode: TargetMode = supportsTargetLabel() ? 'targetLabel' : 'legacy'): { mode: TargetMode; targets: ExecutorOptions['prometheusTargets'] } {
  const entries: Record<string, string>[] = mode === 'targetLabel' ? [{ name: 'bench', baseUrl, targetLabel: 'cluster' }] : [...new Set(clusters)].map((name) => ({ name, baseUrl }));
  for (const e of entries) PrometheusTargetConfig.parse(e);
  return { mode, targets: entries as unknown as ExecutorOptions['prometheusTargets'] };
}

/** Further endpoints (suite L's own Prometheus and Loki), validated like the others. */
export function labTarget(entry: Record<string, unknown>): ExecutorOptions['prometheusTargets'] {
  PrometheusTargetConfig.parse(entry);
  return [entry] as unknown as ExecutorOptions['prometheusTargets'];
}

export async function startLivePlatform(targets: ExecutorOptions['prometheusTargets']): Promise<Platform> {
  return startPlatform({ executor: { mode: 'live', recordings: [], prometheusTargets: targets }, logLevel: 'error' });
}

const EMPTY = { decision: null, evidenceStatus: null, customerReply: '', briefs: [], leadingFamily: null, leadingStrength: null, namesCause: false, saysMissing: false };

/** Submits one ticket through the router's intake and waits for its published answer only (no human answer: never judged). */
export async function runTicket(platform: Platform, request: AnalyzeTicketRequest, timeoutMs: number): Promise<EngineOutcome> {
  const started = Date.now();
  const router = platform.roles.get('router');
  if (!router) throw new Error('the platform has no router');
  let runId: string | null = null;
  try {
    runId = (await router.get(TicketIntakeService).analyze(request)).runId;
  } catch (error) {
    return { ...EMPTY, status: 'crash', error: `intake: ${errorText(error)}`, runId, ms: Date.now() - started };
  }
  let summary;
  try {
    summary = await waitForRun(platform, runId, 'published', timeoutMs);
  } catch (error) {
    const text = errorText(error);
    return { ...EMPTY, status: /did not reach/.test(text) ? 'timeout' : 'crash', error: text.slice(0, 500), runId, ms: Date.now() - started };
  }
  const rows: ThreadRow[] = await platform.dataSource.query(`SELECT "scenario", "brief", "evidence_status" FROM "router"."scenario_threads" WHERE "run_id" = $1 ORDER BY "scenario_id"`, [runId]);
  return {
    status: 'published',
    error: null,
    runId,
    ms: Date.now() - started,
    decision: summary.decision,
    evidenceStatus: summary.evidenceStatus,
    customerReply: summary.customerReplyMarkdown,
    ...summariseBriefs(rows),
  };
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs `work` over `items` with at most `limit` in flight, results in input order. */
export async function pool<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      out[i] = await work(items[i], i);
    }
  });
  await Promise.all(lanes);
  return out;
}
