import { z } from 'zod';
import { RunId } from '../../common';
import { defineTopic } from '../../topic-definition';
import { EvidenceRequestedV1 } from '../evidence-requested/evidence-requested.schema';

export const MAX_CATALOG_METRICS = 400;
export const MAX_CATALOG_LABEL_KEYS = 16;

/** One metric name present for the target in the window, with the label keys its series carry. */
export const CatalogMetricV1 = z
  .object({
    name: z.string().regex(/^[A-Za-z_:][A-Za-z0-9_:]{0,199}$/, 'metric name must be a valid Prometheus metric name of at most 200 characters'),
    labelKeys: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/)).max(MAX_CATALOG_LABEL_KEYS),
    series: z.number().int().nonnegative().describe('Series of this name seen for the target (bounded by the discovery limit)'),
  })
  .strict();
export type CatalogMetricV1 = z.infer<typeof CatalogMetricV1>;

export const EvidenceCatalogListedKeyV1 = RunId;
/**
 * The metric catalogue of the frozen target and window, bounded and sanitised; never label values
 * other than the target. It also names the operations the target offers (`sql`, `logs`, ...).
 */
export const EvidenceCatalogListedV1 = z
  .object({
    runId: RunId,
    request: EvidenceRequestedV1,
    status: z.enum(['listed', 'empty', 'unsupported', 'failed']).describe('empty: the provider answered with no series for the target; unsupported: the provider has no discovery'),
    targetLabel: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/).nullable().describe('The label whose exact value selects the target; every planned selector must carry it'),
    metrics: z.array(CatalogMetricV1).max(MAX_CATALOG_METRICS),
    truncated: z.boolean().describe('More metric names exist than the catalogue carries'),
    failureCode: z.string().min(1).max(64).nullable(),
    operations: z
      .array(z.string().min(1).max(64))
      .max(16)
      .default([])
      .describe('What the package can run for this target besides discovery, e.g. promql_range, promql_instant, sql, logs; empty: not said (plan metrics only)'),
    logsLabel: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/)
      .nullable()
      .default(null)
      .describe('The label whose exact value selects the target in every log stream selector (operation logs); null: the target offers no logs'),
  })
  .strict();
export type EvidenceCatalogListedV1 = z.infer<typeof EvidenceCatalogListedV1>;

export const evidenceCatalogListedTopic = defineTopic({
  baseName: 'evidence.catalog-listed',
  version: 1,
  description: 'Metric names (and label keys) present for the frozen target and window, for planning by metric family.',
  keyField: 'runId',
  key: EvidenceCatalogListedKeyV1,
  value: EvidenceCatalogListedV1,
  producers: ['provider-executor'],
  consumers: ['evidence'],
});
