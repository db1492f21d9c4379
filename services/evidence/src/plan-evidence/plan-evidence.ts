import { EvidenceRequestedV1, MAX_QUERIES_PER_BATCH, ProviderTarget, TimeWindow } from '@aoc/contracts';
import { classifyMetric, familiesInText, type MetricFamilyId } from '@aoc/metric-ontology';
import { metricNamesOf } from '@aoc/providers';
import { z } from 'zod';
import { planByFamily } from './family-plan';
import { PlanningCatalogV1, sqlDialectOf } from './planning-catalog';
import { PROVIDER_OPERATIONS, channelProbe, type StatisticsChannel } from './plan-validator';
import { QUERY_TEMPLATES, QUERY_TEMPLATES_VERSION, bindTarget, bindTemplate, templatesFor, type QueryTemplate } from './query-templates';


/** A query as a planner writes it: loose strings, so structural mistakes reach the validator. */
export const DraftQuery = z.object({
  id: z.string(),
  operation: z.string(),
  expression: z.string(),
  purpose: z.string(),
  window: TimeWindow.nullable(),
  stepSeconds: z.number().nullable(),
});
export type DraftQuery = z.infer<typeof DraftQuery>;

/** What the Evidence Agent sees: the neutral request (never a reason or hypothesis) and, once, the validator's findings. */
export const EvidencePlanInputV1 = z.object({
  /** The neutral request; the ticket key stays out (it scopes provider access, not what to measure). */
  request: EvidenceRequestedV1.omit({ ticketKey: true }),
  templatesVersion: z.string(),
  /** Metrics discovered for the target and window (null: the provider has no discovery; plan from templates). */
  catalog: PlanningCatalogV1.nullable().default(null),
  rewrite: z
    .object({
      previousQueries: z.array(DraftQuery),
      errors: z.array(z.object({ queryId: z.string().nullable(), code: z.string(), field: z.string(), message: z.string() })),
    })
    .nullable(),
});
export type EvidencePlanInputV1 = z.infer<typeof EvidencePlanInputV1>;

export const EvidencePlanOutputV1 = z.object({
  queries: z.array(DraftQuery),
  plannerNotes: z.string().max(1000),
});
export type EvidencePlanOutputV1 = z.infer<typeof EvidencePlanOutputV1>;

/** Templates may be limited to some providers (a `providers` list); without one they fit any. */
function servesProvider(template: QueryTemplate, provider: string): boolean {
  const providers = (template as { providers?: readonly string[] }).providers;
  return !providers || providers.includes(provider);
}

const draft = (q: Omit<DraftQuery, 'window' | 'stepSeconds'> & Partial<Pick<DraftQuery, 'window' | 'stepSeconds'>>): DraftQuery => ({ window: null, stepSeconds: null, ...q });

/** A typed comparison: the same measurement once per runner-generated prior window (the provider never sees a seven-day range). */
function priorDayQueries(query: Pick<DraftQuery, 'id' | 'operation' | 'expression' | 'purpose'>, windows: readonly TimeWindow[]): DraftQuery[] {
  return windows.map((w, i) =>
    draft({ id: `${query.id}_prior_${i + 1}d`.slice(0, 64), operation: query.operation, expression: query.expression, purpose: `${query.purpose}, same clock ${i + 1} day(s) earlier`.slice(0, 300), window: w }),
  );
}

/**
 * The built-in Evidence Agent: picks query templates by what the question asks to measure,
 * keeps only operations the provider serves, binds them to the frozen target, and for a typed
 * historical comparison plans one independent query per runner-generated window. Its single
 * rewrite removes exactly the queries the validator rejected.
 */
export function builtinPlan(input: EvidencePlanInputV1): EvidencePlanOutputV1 {
  const { request, rewrite } = input;
  if (rewrite) {
    const rejected = new Set(rewrite.errors.map((e) => e.queryId).filter((id): id is string => id !== null));
    const kept = rewrite.previousQueries.filter((q) => !rejected.has(q.id)).slice(0, MAX_QUERIES_PER_BATCH);
    const codes = [...new Set(rewrite.errors.map((e) => e.code))].join(', ');
    return { queries: kept, plannerNotes: `Rewrote the plan once after validation (${codes}): removed ${rejected.size} quer${rejected.size === 1 ? 'y' : 'ies'}.`.slice(0, 1000) };
  }
  if (request.provider === 'none' || request.target === null) return { queries: [], plannerNotes: 'No usable provider target was given; nothing can be queried.' };
  if (!ProviderTarget.safeParse(request.target).success) return { queries: [], plannerNotes: 'The target is not a safe identifier; no query was planned.' };
  if (input.catalog && input.catalog.status !== 'unsupported') return catalogPlan(request, input.catalog);
  const question = request.question.toLowerCase();
  const served = PROVIDER_OPERATIONS[request.provider];
  const asked = templatesFor(request.provider).filter((t) => t.asks.some((a) => question.includes(a)));
  const chosen = asked.filter((t) => served.includes(t.operation) && servesProvider(t, request.provider));
  const unserved = asked.filter((t) => !chosen.includes(t));
  const target = request.target;
  const bind = (expression: string) => bindTarget(expression, target);
  let queries: DraftQuery[];
  if (request.comparison) {
    // One independent range query per prior day: the provider never sees a seven-day range.
    const metric = chosen.find((t) => t.operation === 'promql_range');
    queries = metric ? priorDayQueries({ ...metric, expression: bind(metric.expression) }, request.comparison.windows) : [];
  } else {
    queries = chosen.map((t) => draft(bindTemplate(t, target, request.window)));
  }
  const notes = [
    queries.length === 0 ? 'No query template matches what the question asks to measure.' : '',
    unserved.length > 0 ? `Not available from ${request.provider}: ${unserved.map((t) => t.purpose).join('; ')}.` : '',
    queries.length > MAX_QUERIES_PER_BATCH ? `Kept the first ${MAX_QUERIES_PER_BATCH} of ${queries.length} queries.` : '',
  ].filter(Boolean);
  return { queries: queries.slice(0, MAX_QUERIES_PER_BATCH), plannerNotes: notes.join(' ').slice(0, 1000) };
}

/** Metric names a template reads (none for non-PromQL operations). */
function templateMetrics(template: QueryTemplate): string[] {
  if (template.operation !== 'promql_range' && template.operation !== 'promql_instant') return [];
  try {
    return metricNamesOf(template.expression);
  } catch {
    return [];
  }
}

/**
 * A plan from the discovered catalogue. Templates the question asks for are kept when the target
 * holds every metric they read (their ids are what the query-id mechanism rules know); the rest
 * of the budget goes to metrics picked by family, so names no template knows are planned too.
 */
function catalogPlan(request: EvidencePlanInputV1['request'], catalog: PlanningCatalogV1): EvidencePlanOutputV1 {
  const target = request.target as string;
  const label = catalog.targetLabel ?? 'cluster';
  const channels = channelPlan(request, catalog);
  // One probe keeps the outcome structural: it comes back empty when the provider holds no series
  // for the target, and fails with the provider's own code when discovery could not reach it.
  const probe = draft({ id: 'target_series', operation: 'promql_instant', expression: `count({${label}="${target}"})`, purpose: `series present for ${label}=${target}` });
  if (catalog.status === 'failed' || catalog.status === 'empty' || catalog.metrics.length === 0) {
    const why =
      catalog.status === 'failed'
        ? `Metric discovery for ${target} failed (${catalog.failureCode ?? 'unknown'}); only the presence of its series was probed.`
        : `The provider holds no series with ${label}="${target}" in the window.`;
    const queries = [probe, ...channels.drafts.slice(0, MAX_QUERIES_PER_BATCH - 1)];
    return { queries: request.comparison ? [probe] : queries, plannerNotes: [why, ...channels.notes].join(' ').slice(0, 1000) };
  }
  const question = request.question.toLowerCase();
  const servedOps = PROVIDER_OPERATIONS[request.provider];
  // An open-hypotheses round (a refinement that is no comparison) asks families: templates answered the scenario's own question in round 0.
  const openRound = request.refinement && !request.comparison;
  const asked = openRound ? [] : templatesFor(request.provider, catalog.operations ?? [], channels.dialect ?? undefined).filter((t) => !t.needsCatalogOperation && t.asks.some((a) => question.includes(a)));
  const unserved = asked.filter((t) => !servedOps.includes(t.operation));
  const present = new Set(catalog.metrics.map((m) => m.name));
  // Templates bind `cluster`; they fit only an endpoint whose target label is `cluster`.
  const templates = label === 'cluster' ? asked.filter((t) => servedOps.includes(t.operation) && templateMetrics(t).length > 0 && templateMetrics(t).every((n) => present.has(n))) : [];
  const covered = new Set(templates.flatMap(templateMetrics));
  // Channel queries (logs, statement statistics) share the budget; the metric queries keep the rest.
  const channelDrafts = channels.drafts.slice(0, Math.max(0, Math.min(MAX_CHANNEL_QUERIES, MAX_QUERIES_PER_BATCH - templates.length - MIN_METRIC_QUERIES)));
  const plan = planByFamily(request, { ...catalog, metrics: catalog.metrics.filter((m) => !covered.has(m.name)) }, Math.max(0, MAX_QUERIES_PER_BATCH - templates.length - channelDrafts.length), { askedOnly: openRound });
  const drafts = [...templates.map((t) => draft(bindTemplate(t, target, request.window))), ...channelDrafts, ...plan.drafts.map(({ family: _family, ...q }) => draft(q))];
  const stillMissing = plan.missing.filter((f) => ![...covered].some((n) => classifyMetric(n).family === f));
  const notes = [
    stillMissing.length > 0 ? `No metric of ${stillMissing.join(', ')} exists for ${target} in the window (${catalog.metrics.length} metric names discovered${catalog.truncated ? ', list truncated' : ''}).` : '',
    unserved.length > 0 ? `Not available from ${request.provider}: ${unserved.map((t) => t.purpose).join('; ')}.` : '',
    ...channels.notes,
    drafts.length === 0 ? 'No discovered metric belongs to a family the question asks to measure.' : '',
  ].filter(Boolean);
  if (request.comparison) {
    const first = drafts.find((d) => d.operation === 'promql_range');
    const queries = first ? priorDayQueries(first, request.comparison.windows) : [];
    return { queries, plannerNotes: notes.join(' ').slice(0, 1000) };
  }
  return { queries: drafts.slice(0, MAX_QUERIES_PER_BATCH), plannerNotes: notes.join(' ').slice(0, 1000) };
}

/** Channel queries (logs, statement statistics) a catalogue plan holds at most, so metric queries keep their share. */
const MAX_CHANNEL_QUERIES = 6;
/** Budget kept for metric queries whatever the channels ask for. */
const MIN_METRIC_QUERIES = 4;

/**
 * The channel queries of a catalogue plan: the templates of each channel the target offers
 * (`logs`, `sql` of its dialect) that can confirm a family the question names (ontology words, or
 * a template's own `asks` words), ordered so every named family gets one before any gets two; and
 * for a channel the question needs but the target does not offer, its probe (`channelProbe`),
 * which comes back as an explicit "not configured" fact and gap.
 */
function channelPlan(request: EvidencePlanInputV1['request'], catalog: PlanningCatalogV1): { drafts: DraftQuery[]; notes: string[]; dialect: 'postgresql' | 'mysql' | null } {
  const target = request.target as string;
  const operations = catalog.operations ?? [];
  const dialect = catalog.sqlDialect ?? sqlDialectOf(operations, catalog.metrics.map((m) => m.name));
  const question = request.question.toLowerCase();
  const named: MetricFamilyId[] = familiesInText(request.question).map((m) => m.family);
  const fits = (t: QueryTemplate) => (t.families ?? []).some((f) => named.includes(f)) || t.asks.some((a) => question.includes(a));
  const offered = templatesFor(request.provider, operations, dialect ?? undefined).filter((t) => t.needsCatalogOperation && fits(t));
  // Breadth first: the first template of each named family in question order, then the rest in catalogue order.
  const ordered: QueryTemplate[] = [];
  for (const family of named) {
    const next = offered.find((t) => !ordered.includes(t) && (t.families ?? []).includes(family));
    if (next) ordered.push(next);
  }
  ordered.push(...offered.filter((t) => !ordered.includes(t)));
  const logsFirst = [...ordered.filter((t) => t.operation === 'logs'), ...ordered.filter((t) => t.operation !== 'logs')];
  const drafts: DraftQuery[] = [];
  const notes: string[] = [];
  // Probes only where the endpoint offers some channel (sql or logs): an endpoint with none is
  // metrics-only by design, and replays recorded before probes existed hold no answer for them.
  // A catalogue that does not list operations (older ones) says nothing to probe either.
  if (operations.some((o) => o === 'sql' || o === 'logs') && request.provider === 'prometheus') {
    const logsLabel = catalog.logsLabel ?? catalog.targetLabel ?? 'cluster';
    const needs = (operation: 'logs' | 'sql') => QUERY_TEMPLATES.some((t) => t.needsCatalogOperation && t.operation === operation && t.providers.includes(request.provider) && fits(t));
    const missing: [StatisticsChannel, 'logs' | 'sql', string][] = [
      ['logs', 'logs', 'the database log is not configured for this target (its endpoint has no loki settings)'],
      ['statements', 'sql', 'statement statistics are not configured for this target (its endpoint has no postgres or mysql settings)'],
    ];
    for (const [channel, operation, why] of missing) {
      if (operations.includes(operation) || !needs(operation)) continue;
      drafts.push(draft(channelProbe(channel, target, logsLabel)));
      notes.push(`${why[0].toUpperCase()}${why.slice(1)}: what it would confirm stays open.`);
    }
  }
  // Probes first: they cost the provider nothing and must survive the channel budget.
  drafts.push(...logsFirst.map((t) => draft(bindTemplate(t, target, request.window, { logsLabel: catalog.logsLabel }))));
  return { drafts, notes, dialect };
}

export const BUILTIN_PLANNER_MODEL = `evidence-templates:${QUERY_TEMPLATES_VERSION}`;
