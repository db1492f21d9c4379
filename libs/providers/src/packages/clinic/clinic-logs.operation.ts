import { queryLokiRange } from '../../connectors/loki-connector';
import type { ClinicQueryOf } from './clinic-input.schema';
import { parseLogLine } from './clinic-log-events';
import { tracked, type ClinicOperationContext, type OperationOutcome } from './clinic-operation.context';
import type { LifecycleGroup, LogEvent, LogLevel, LogsResult } from './clinic-output.schema';

const DEFAULT_LIMIT = 1000;
const MAX_EVENTS = 100;

/**
 * LogQL is built here, never taken from the caller: the stream selector always names this
 * cluster, and the optional keyword and levels are plain, pre-validated text.
 */
export function buildLogQl(clusterId: string, q: ClinicQueryOf<'logs'>): string {
  let logql = `{cluster_id="${clusterId}", component="${q.component}"}`;
  if (q.levels && q.levels.length > 0) logql += ` |~ "(?i)\\\\[(${q.levels.join('|')})\\\\]"`;
  if (q.contains) logql += ` |= "${q.contains}"`;
  return logql;
}

function counts<K extends string>(values: readonly K[]): { key: K; count: number }[] {
  const map = new Map<K, number>();
  for (const v of values) map.set(v, (map.get(v) ?? 0) + 1);
  return [...map.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([key, count]) => ({ key, count }));
}

export async function runLogsQuery(q: ClinicQueryOf<'logs'>, ctx: ClinicOperationContext): Promise<OperationOutcome<LogsResult>> {
  const limit = q.limit ?? DEFAULT_LIMIT;
  const { result } = await tracked(
    ctx,
    queryLokiRange(ctx.api.logsEndpoint(), { logql: buildLogQl(ctx.scope.clusterId, q), startMs: ctx.window.fromMs, endMs: ctx.window.toMs, limit }, { signal: ctx.signal, retryDelaysMs: ctx.retryDelaysMs }),
  );
  const events: LogEvent[] = result.streams
    .flatMap((s) => s.entries.map((e) => parseLogLine(e.line, e.timestampNs, s.labels['level'])))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const byMinute = counts(events.map((e) => e.at.slice(0, 16)));
  const base: LogsResult = {
    detail: q.detail,
    component: q.component,
    lines: events.length,
    hit_limit: result.hitLimit,
    first_at: events[0]?.at ?? null,
    last_at: events.at(-1)?.at ?? null,
    by_level: counts<LogLevel>(events.map((e) => e.level)).map(({ key, count }) => ({ level: key, count })),
    by_group: counts<LifecycleGroup>(events.map((e) => e.group)).map(({ key, count }) => ({ group: key, count })),
  };
  let output: LogsResult;
  if (q.detail === 'summary') {
    output = {
      ...base,
      top_sources: counts(events.flatMap((e) => (e.source ? [e.source] : []))).slice(0, 10).map(({ key, count }) => ({ source: key, count })),
      busiest_minute: byMinute[0] ? { at: `${byMinute[0].key}:00.000Z`, lines: byMinute[0].count } : null,
    };
  } else {
    // Most telling first: errors and non-routine groups, then the most recent.
    const rank = (e: LogEvent) => (e.level === 'fatal' || e.level === 'error' ? 0 : e.level === 'warn' ? 1 : 2) * 2 + (e.group === 'other' ? 1 : 0);
    const kept = [...events].sort((a, b) => rank(a) - rank(b) || (a.at < b.at ? 1 : -1)).slice(0, MAX_EVENTS).sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    output = { ...base, events: kept, omitted_events: events.length - kept.length };
  }
  return { status: events.length === 0 ? 'empty' : 'complete', result: output };
}
