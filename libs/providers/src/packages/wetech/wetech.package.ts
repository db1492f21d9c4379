import { AocError, issuesText } from '@aoc/errors';
import { z } from 'zod';
import { runBatch, type BatchLimits } from '../../core/batch-scheduler';
import type { EvidenceBatchDetails, EvidenceBatchRequest, EvidencePackage, EvidenceRunOptions, PlannedProviderQuery, TargetListing } from '../../core/evidence-package';
import { executeTool, type ToolImplementation } from '../../core/execute-tool';
import { runPlannedBatch } from '../../core/planned-batch';
import { ProviderError } from '../../core/provider-error';
import { parseSealKey, SealKeyText } from '../../core/sealed-box';
import { failure, type ToolResult } from '../../core/tool-result';
import type { ToolSpec } from '../../core/tool-spec';
import { playwrightTidbDashboard, type DashboardSession, type DashboardSessionFactory, type DashboardSessionRequest } from '../../connectors/dashboard-tidb-connector';
import { datasourceProxyPath, GRAFANA_ORIGIN, grafanaQueryRange, type GrafanaDatasource } from '../../connectors/grafana-datasource-connector';
import { AddressSealer, InstanceRefCodec, type InstanceSelection, type ProtectedSeries } from '../../connectors/grafana-instance-ref';
import { withLabelMatcher } from '../../connectors/grafana-label-matcher';
import { dropLowestRanked } from '../../core/anomaly-score';
import { recordOf } from '../../connectors/http-client';
import { StorageStateConflictError, type StorageStateSnapshot, type StorageStateStore } from '../../connectors/storage-state-store';
import { validatePromQl } from '../../validation/promql';
import { credentialSecrets, loginsFor, WetechCredentialsSchema, type WetechCredentials } from './wetech-credentials';
import { compactSlowQueries, compactStatements, compactTopSql, type CompactRows, type SlowQueryRow, type StatementRow, type TopSqlRow } from './wetech-dashboard-rows';
import { WETECH_HOST_ALLOWLIST, WETECH_TARGETS } from './wetech-inventory.generated';
import {
  defaultStepSeconds,
  WETECH_MAX_WINDOW_MS,
  WETECH_TOP_SQL_MAX_WINDOW_MS,
  WetechBatchInput,
  WetechBatchOutput,
  WetechEntry,
  type WetechQueryOut,
} from './wetech-schema';
import { wetechTarget, wetechTargetName } from './wetech-target';

/** Serial execution: one operation at a time, the 108 s budget split per entry, a 120 s hard limit. */
export const WETECH_BATCH_LIMITS: BatchLimits = { concurrency: 1, budgetMs: 108_000, outerMs: 120_000 };

export const wetechBatchSpec = {
  name: 'wetech_evidence_batch',
  description:
    'Runs up to 12 read-only Wetech operations, one at a time, for an APID ticket on one inventory region/cluster: bounded PromQL ranges (promql_range), and TiDB Dashboard TopSQL (top_sql: one TiDB instance chosen by instanceRef or by instanceFrom, at most 15 minutes), Statements (statements) and Slow Query (slow_query). Windows are absolute and at most 6 hours. Results are compact: series summaries with sealed instance references, and top rows as opaque digest references with numeric statistics.',
  input: WetechBatchInput,
  output: WetechBatchOutput,
  riskLevel: 'L0',
  accessMode: 'read',
  surfaces: ['evidence_agent', 'provider_executor'],
  networkMode: 'restricted',
  limits: {
    maxWindowMs: { batch: WETECH_MAX_WINDOW_MS, promql_range: WETECH_MAX_WINDOW_MS, top_sql: WETECH_TOP_SQL_MAX_WINDOW_MS, statements: WETECH_MAX_WINDOW_MS, slow_query: WETECH_MAX_WINDOW_MS },
    timeoutMs: WETECH_BATCH_LIMITS.outerMs,
    maxOutputBytes: 64 * 1024,
    maxQueries: 12,
    concurrency: 1,
  },
} as const satisfies ToolSpec;

export type WetechStorageStateEvent =
  | { kind: 'read'; revision: number; hadState: boolean; discarded?: 'unreadable' }
  | { kind: 'written'; revision: number; logins: number }
  | { kind: 'conflict'; expectedRevision: number; actualRevision: number; logins: number }
  | { kind: 'write_failed'; errorCode: string };

const WetechConfigData = z
  .object({
    credentials: WetechCredentialsSchema,
    instanceRefKey: SealKeyText,
    limits: z
      .object({
        maxSeries: z.number().int().min(1).max(20).default(10),
        maxRows: z.number().int().min(1).max(20).default(10),
        maxOutputBytes: z.number().int().min(4096).max(256 * 1024).default(64 * 1024),
        maxResponseBytes: z.number().int().min(1024).max(16 * 1024 * 1024).default(4 * 1024 * 1024),
        retryDelaysMs: z.array(z.number().int().min(0).max(5000)).max(2).default([250, 1000]),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export interface WetechPackageConfig {
  /** The package's own logins per credential profile; the target picks the profile. */
  credentials: WetechCredentials;
  /** 32-byte AES-256-GCM key sealing instance references. */
  instanceRefKey: string;
  /** Browser state, read before and written back (revision CAS) after every dashboard execution. */
  storageState: StorageStateStore;
  /** Origin an allowlisted host is reached at; defaults to `https://<host>` (tests map it to 127.0.0.1). */
  resolveOrigin?: (host: string) => string;
  /** Dashboard driver; defaults to Playwright on system Chromium. */
  dashboard?: DashboardSessionFactory;
  browserExecutablePath?: string;
  /** Execution-state events about the browser state (never part of a result). */
  onStorageState?: (event: WetechStorageStateEvent) => void;
  limits?: z.input<typeof WetechConfigData>['limits'];
  /** Outer limit of the dashboard login (browser state read, sign-in); 3 min by default. */
  authTimeoutMs?: number;
}

export const WETECH_AUTH_TIMEOUT_MS = 180_000;

export interface WetechPackage extends EvidencePackage {
  readonly name: 'wetech';
  readonly tool: ToolImplementation<typeof wetechBatchSpec>;
}

function serialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>) => {
    const next = tail.then(task, task);
    tail = next.catch(() => undefined);
    return next;
  };
}

/** Opens the dashboard at most once per execution, lazily, and always writes the state back. */
class DashboardLease {
  private snapshot: StorageStateSnapshot | null = null;
  private opening: Promise<DashboardSession> | null = null;

  constructor(
    private readonly store: StorageStateStore,
    private readonly factory: DashboardSessionFactory,
    private readonly request: Omit<DashboardSessionRequest, 'storageState'>,
    private readonly emit: (event: WetechStorageStateEvent) => void,
    private readonly authTimeoutMs: number = WETECH_AUTH_TIMEOUT_MS,
  ) {}

  session(): Promise<DashboardSession> {
    this.opening ??= (async () => {
      let snapshot: StorageStateSnapshot;
      try {
        snapshot = await this.store.read();
      } catch (error) {
        throw new ProviderError('PROVIDER.AUTH_FAILED', `the stored browser state could not be read (${error instanceof AocError ? error.code : 'store unavailable'})`);
      }
      this.snapshot = snapshot;
      this.emit({ kind: 'read', revision: snapshot.revision, hadState: snapshot.state !== null, ...(snapshot.discarded ? { discarded: snapshot.discarded } : {}) });
      // The login is bounded on its own: a dashboard that never finishes signing in stops the scenario.
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new ProviderError('PROVIDER.AUTH_TIMEOUT', `the dashboard login did not finish within ${this.authTimeoutMs} ms`)), this.authTimeoutMs);
      });
      try {
        return await Promise.race([this.factory({ ...this.request, storageState: snapshot.state }), timeout]);
      } finally {
        clearTimeout(timer);
      }
    })();
    return this.opening;
  }

  async finish(): Promise<void> {
    if (!this.opening) return;
    const session = await this.opening.catch(() => null);
    const snapshot = this.snapshot;
    if (!session || !snapshot) return;
    try {
      const state = await session.storageState();
      try {
        const revision = await this.store.write(snapshot.revision, state);
        this.emit({ kind: 'written', revision, logins: session.loginCount() });
      } catch (error) {
        if (error instanceof StorageStateConflictError) this.emit({ kind: 'conflict', expectedRevision: error.expectedRevision, actualRevision: error.actualRevision, logins: session.loginCount() });
        else this.emit({ kind: 'write_failed', errorCode: error instanceof AocError ? error.code : 'PROVIDER.STORAGE_STATE_WRITE_FAILED' });
      }
    } catch {
      this.emit({ kind: 'write_failed', errorCode: 'PROVIDER.STORAGE_STATE_CAPTURE_FAILED' });
    } finally {
      await session.close().catch(() => undefined);
    }
  }
}

type EntryValue = { kind: 'series'; resultType: string; seriesCount: number; omittedSeries: number; series: ProtectedSeries[]; filtered: boolean } | ({ kind: 'rows'; executions?: number } & CompactRows<TopSqlRow | StatementRow | SlowQueryRow>);

/** Drops the lowest-ranked series or rows until the result fits its byte budget. */
function fitToBudget(queries: WetechQueryOut[], budgetBytes: number): boolean {
  let truncated = false;
  const length = (q: WetechQueryOut) => (q.series?.length ?? 0) + (q.rows?.length ?? 0);
  while (Buffer.byteLength(JSON.stringify(queries), 'utf8') > budgetBytes) {
    const widest = queries.reduce<WetechQueryOut | null>((best, q) => (length(q) > (best ? length(best) : 0) ? q : best), null);
    if (!widest) break;
    if (widest.series?.length) {
      dropLowestRanked(widest.series);
      widest.omittedSeries = (widest.omittedSeries ?? 0) + 1;
    } else if (widest.rows?.length) {
      widest.rows.pop();
      widest.omittedRows = (widest.omittedRows ?? 0) + 1;
    } else break;
    truncated = true;
  }
  return truncated;
}

function createTool(config: WetechPackageConfig): ToolImplementation<typeof wetechBatchSpec> {
  const parsed = WetechConfigData.safeParse({ credentials: config.credentials, instanceRefKey: config.instanceRefKey, limits: config.limits });
  if (!parsed.success) {
    throw new AocError('PROVIDER.CONFIG_INVALID', `wetech package configuration is invalid: ${issuesText(parsed.error.issues, '(config)')}`);
  }
  const { credentials, limits } = parsed.data;
  // Every profile the inventory uses must be configured: a target never falls back to another profile's login.
  for (const t of WETECH_TARGETS) {
    try {
      loginsFor(t.credentialProfile, credentials);
    } catch (error) {
      throw new AocError('PROVIDER.CONFIG_INVALID', `wetech package configuration is invalid: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const resolve = config.resolveOrigin ?? ((host: string) => `https://${host}`);
  const origins = new Map<string, string>();
  for (const host of WETECH_HOST_ALLOWLIST) {
    const origin = resolve(host);
    if (!GRAFANA_ORIGIN.test(origin)) throw new AocError('PROVIDER.CONFIG_INVALID', `wetech package configuration is invalid: the origin of ${host} must be a plain http(s) origin`);
    origins.set(host, origin);
  }
  const originOf = (host: string): string => {
    const origin = origins.get(host);
    if (!origin) throw new ProviderError('PROVIDER.TARGET_REJECTED', 'target host is not on the Wetech allowlist');
    return origin;
  };
  const codec = new InstanceRefCodec(parseSealKey(config.instanceRefKey), 'wetech');
  const dashboard = config.dashboard ?? playwrightTidbDashboard({ executablePath: config.browserExecutablePath });
  const emit = (event: WetechStorageStateEvent) => config.onStorageState?.(event);
  const secrets = [config.instanceRefKey, ...credentialSecrets(credentials), ...WETECH_HOST_ALLOWLIST, ...[...origins.values()].flatMap((o) => [o, o.replace(/^https?:\/\//, '')])];
  const serial = serialQueue();
  const budget = Math.floor(Math.min(limits.maxOutputBytes, wetechBatchSpec.limits.maxOutputBytes) * 0.85);

  return {
    spec: wetechBatchSpec,
    secrets: () => secrets,
    checkTarget: (input) => {
      wetechTarget(input.region, input.cluster);
    },
    windows: (input) => [{ operation: 'batch', window: input.window }, ...input.queries.map((q) => ({ operation: q.operation, window: q.window ?? input.window }))],
    run: (input, ctx) =>
      serial(async () => {
        const target = wetechTarget(input.region, input.cluster);
        const name = wetechTargetName(target);
        const logins = loginsFor(target.credentialProfile, credentials);
        const datasource: GrafanaDatasource = { origin: originOf(target.grafanaHost), datasourcePath: datasourceProxyPath(target.datasourceUid), auth: { kind: 'basic', ...logins.grafana } };
        const sealer = new AddressSealer(codec, name);
        const seriesById = new Map<string, ProtectedSeries[]>();
        const lease = new DashboardLease(config.storageState, dashboard, { origin: originOf(target.dashboardHost), cluster: target.dashboardCluster, login: logins.dashboard, signal: ctx.signal }, emit, config.authTimeoutMs);
        const order = new Map(input.queries.map((q, i) => [q.id, i]));

        const selectInstance = (q: Extract<WetechEntry, { operation: 'top_sql' }>): InstanceSelection => {
          const field = `queries.${q.id}`;
          let selection: InstanceSelection;
          if (q.instanceRef !== undefined) selection = codec.open(q.instanceRef, name, `${field}.instanceRef`);
          else {
            const from = q.instanceFrom as { queryId: string; series: number };
            const source = input.queries[order.get(from.queryId) ?? -1];
            if (!source || source.operation !== 'promql_range' || (order.get(from.queryId) ?? 0) >= (order.get(q.id) ?? 0)) {
              throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}.instanceFrom.queryId: must name an earlier promql_range entry of this batch`);
            }
            const series = seriesById.get(from.queryId);
            if (!series) throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}.instanceFrom.queryId: ${from.queryId} returned no series to select from`);
            const chosen = series[from.series];
            if (!chosen) throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}.instanceFrom.series: ${from.queryId} returned ${series.length} series`);
            const ref = chosen.instanceRefs?.['instance'];
            if (!ref) throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}.instanceFrom.series: that series has no instance label`);
            selection = codec.open(ref, name, `${field}.instanceFrom`);
          }
          if (selection.label !== 'instance') throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}: the reference selects a ${selection.label} label, not a TiDB instance`);
          if (selection.component !== 'tidb') {
            throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}: the reference selects ${selection.component ? `a ${selection.component}` : 'an unclassified'} instance; TopSQL needs a TiDB instance chosen from a TiDB metric`);
          }
          return selection;
        };

        const runEntry = async (q: WetechEntry, signal: AbortSignal): Promise<EntryValue> => {
          const field = `queries.${q.id}`;
          const w = q.window ?? input.window;
          const fromMs = Date.parse(w.from);
          const toMs = Date.parse(w.to);
          switch (q.operation) {
            case 'promql_range': {
              let promql = validatePromQl(q.promql, `${field}.promql`);
              if (q.instanceRef !== undefined) {
                const selection = codec.open(q.instanceRef, name, `${field}.instanceRef`);
                promql = withLabelMatcher(promql, selection.label, selection.address, `${field}.promql`);
              }
              try {
                const { result, record } = await grafanaQueryRange(
                  datasource,
                  { promql, startMs: fromMs, endMs: toMs, stepSeconds: q.stepSeconds ?? defaultStepSeconds(toMs - fromMs) },
                  { signal, maxSeries: limits.maxSeries, maxResponseBytes: limits.maxResponseBytes, retryDelaysMs: limits.retryDelaysMs },
                );
                ctx.record(q.id, record);
                const series = result.series.map((s) => sealer.protect(s));
                seriesById.set(q.id, series);
                return { kind: 'series', resultType: result.resultType, seriesCount: result.seriesCount, omittedSeries: result.omittedSeries, series, filtered: q.instanceRef !== undefined };
              } catch (error) {
                const record = recordOf(error);
                if (record) ctx.record(q.id, record);
                throw error;
              }
            }
            case 'top_sql': {
              const selection = selectInstance(q);
              const limit = q.limit ?? limits.maxRows;
              const view = await (await lease.session()).fetchView({ view: 'top_sql', fromMs, toMs, limit: Math.min(100, limit * 5), instance: selection.address });
              return { kind: 'rows', ...compactTopSql(view.rows, limit, view.totalRows) };
            }
            case 'statements': {
              const limit = q.limit ?? limits.maxRows;
              const orderBy = q.orderBy ?? 'total_latency';
              const view = await (await lease.session()).fetchView({ view: 'statements', fromMs, toMs, limit: Math.min(100, limit * 5), orderBy });
              return { kind: 'rows', ...compactStatements(view.rows, limit, view.totalRows, orderBy) };
            }
            case 'slow_query': {
              const limit = q.limit ?? limits.maxRows;
              const orderBy = q.orderBy ?? 'query_time';
              const view = await (await lease.session()).fetchView({ view: 'slow_query', fromMs, toMs, limit: 200, orderBy });
              return { kind: 'rows', ...compactSlowQueries(view.rows, limit, view.totalRows, orderBy) };
            }
          }
        };

        try {
          const outcomes = await runBatch(input.queries, (q, signal) => runEntry(q, signal), WETECH_BATCH_LIMITS, ctx.signal);
          const queries: WetechQueryOut[] = input.queries.map((q) => {
            const o = outcomes.get(q.id);
            if (!o || !o.ok) {
              const error = o && !o.ok ? o.error : new ProviderError('PROVIDER.BUDGET_EXHAUSTED', 'query did not run');
              return { id: q.id, operation: q.operation, status: 'failed', error_code: error.code, detail_error: error.detail };
            }
            const v = o.value;
            if (v.kind === 'series') {
              return {
                id: q.id,
                operation: q.operation,
                status: v.seriesCount === 0 ? 'empty' : 'complete',
                resultType: v.resultType,
                seriesCount: v.seriesCount,
                omittedSeries: v.omittedSeries,
                ...(v.filtered ? { instanceFiltered: true } : {}),
                series: v.series,
              };
            }
            return {
              id: q.id,
              operation: q.operation,
              status: v.rows.length === 0 ? 'empty' : 'complete',
              rows: v.rows,
              totalRows: v.totalRows,
              omittedRows: v.omittedRows,
              ...(v.executions !== undefined ? { executions: v.executions } : {}),
            };
          });
          const truncated = fitToBudget(queries, budget);
          return { ticketKey: input.ticketKey, target: name, window: input.window, queries, ...(truncated ? { truncated } : {}) };
        } finally {
          await lease.finish();
        }
      }),
  };
}

const RESERVED_PARAMS = new Set(['id', 'operation', 'window', 'stepSeconds']);

/** A planned query as a tool entry: PromQL text for promql_range, otherwise a JSON object of the operation's parameters. */
function plannedToEntry(q: PlannedProviderQuery): WetechEntry {
  const field = `queries.${q.id}`;
  if (q.operation !== 'promql_range' && q.operation !== 'top_sql' && q.operation !== 'statements' && q.operation !== 'slow_query') {
    throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}.operation: ${q.operation} is not offered by the wetech package (promql_range, top_sql, statements, slow_query)`);
  }
  let json: unknown = undefined;
  try {
    json = JSON.parse(q.expression);
  } catch {
    // Not JSON: only promql_range accepts bare text (its PromQL).
  }
  let params: Record<string, unknown>;
  if (json !== null && typeof json === 'object' && !Array.isArray(json)) params = json as Record<string, unknown>;
  else if (q.operation === 'promql_range') params = { promql: q.expression };
  else throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}.expression: must be a JSON object of ${q.operation} parameters`);
  const reserved = Object.keys(params).find((k) => RESERVED_PARAMS.has(k));
  if (reserved) throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}.expression.${reserved}: set it on the planned query, not in the expression`);
  const candidate = { ...params, id: q.id, operation: q.operation, ...(q.window ? { window: q.window } : {}), ...(q.operation === 'promql_range' && q.stepSeconds ? { stepSeconds: q.stepSeconds } : {}) };
  const checked = WetechEntry.safeParse(candidate);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const path = issue.path.map(String).join('.');
    throw new ProviderError('PROVIDER.INPUT_INVALID', `${field}.${path === '' ? 'expression' : RESERVED_PARAMS.has(path.split('.')[0]) ? path : `expression.${path}`}: ${issue.message}`);
  }
  return checked.data;
}

/** Names a ticket may use for a Wetech cluster: plain identifiers without dots, so never a host name. */
const SAFE_ALIAS = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * The generated inventory as redacted candidates: each target in the package's own form
 * (`<region>/<cluster>`, exactly what `runBatch` takes), with the cluster name and its dashboard
 * display name as aliases. Host names and datasource ids stay inside the package; an entry the
 * host allowlist would refuse is not offered.
 */
export function wetechInventory(): TargetListing {
  const targets = WETECH_TARGETS.flatMap((entry) => {
    let target: ReturnType<typeof wetechTarget>;
    try {
      target = wetechTarget(entry.region, entry.cluster);
    } catch {
      return [];
    }
    const aliases = [...new Set([target.cluster, target.dashboardCluster])].filter((a) => SAFE_ALIAS.test(a));
    return [{ target: wetechTargetName(target), aliases }];
  });
  return { status: 'listed', targets: targets.sort((a, b) => a.target.localeCompare(b.target)), truncated: false, failureCode: null };
}

/**
 * The Wetech evidence package: APID tickets, inventory region/cluster pairs only, bounded PromQL
 * through the region's Grafana datasource proxy, and TiDB Dashboard TopSQL / Statements / Slow
 * Query through system Chromium with the browser state kept in a revisioned store. Serial, compact,
 * with its own credentials chosen by the target.
 */
export function wetechPackage(config: WetechPackageConfig): WetechPackage {
  const tool = createTool(config);
  return {
    name: 'wetech',
    tool,
    tools: [wetechBatchSpec],
    operations: ['promql_range', 'top_sql', 'statements', 'slow_query'],
    listTargets: () => Promise.resolve(wetechInventory()),
    runBatch: async (request: EvidenceBatchRequest, options: EvidenceRunOptions = {}): Promise<ToolResult<EvidenceBatchDetails>> => {
      const slash = request.target.indexOf('/');
      if (slash <= 0) return failure('PROVIDER.TARGET_REJECTED', 'target: must be <region>/<cluster> of the Wetech inventory');
      const region = request.target.slice(0, slash);
      const cluster = request.target.slice(slash + 1);
      return runPlannedBatch(request, 'wetech', plannedToEntry, (queries) =>
        executeTool(tool, { ticketKey: request.ticketKey, region, cluster, window: request.window, queries }, options),
      );
    },
  };
}
