/**
 * Domain expectations per service tier (data apart from the engine; read by `tier.ts`). Seed 002,
 * section 3: on Starter/Essential/shared tiers the Clinic data plane has no physical component
 * topology, no TopSQL, no persisted Statements, no Dedicated configuration and no physical node
 * `node_*` metrics, and Slow Query is read through NGM with NGM's sorting only. Missing such data
 * is not a bad case: a human fact of one of these kinds is something the automated answer could
 * not have had, so it never grounds `human_better` nor an AI gap.
 */
export const TIER_EXPECTATIONS_VERSION = 'tier-expectations-v1';

/** Kinds of data a tier may not provide to the automated answer. */
export type TierDataKind = 'topology' | 'topsql' | 'persisted_statements' | 'dedicated_config' | 'node_metrics';

export interface TierExpectation {
  id: 'shared' | 'dedicated';
  /** How reasons name the tier. */
  label: string;
  /** A ticket label naming the tier (whole label, case-insensitive; `tier:starter`, `tidb-cloud-essential`). */
  labels: RegExp;
  /** Ticket text naming the tier ("TiDB Cloud Starter", "on an Essential cluster"). */
  text: RegExp;
  /** Data the tier does not provide: a fact resting on it is not held against the AI. A named source comes before what it shows. */
  unavailable: readonly TierDataKind[];
  /**
   * How Slow Query is read: through NGM with its sorting only (shared), or in full. Slow Query is
   * available either way, so a slow-query fact still counts against the AI; only orderings NGM
   * does not offer would not (the seed names no such ordering, so none is encoded).
   */
  slowQuery: 'ngm_sorting_only' | 'full';
}

// Tier names as the Clinic provider uses them (`libs/providers/.../clinic-statements.operation.ts`):
// serverless/starter/essential/developer are the shared data plane; the rest are dedicated.
export const TIERS: readonly TierExpectation[] = [
  {
    id: 'shared',
    label: 'Starter/Essential/shared',
    labels: /^(?:(?:tier|plan|cluster[-_]?tier|service[-_]?tier)[:=_/-])?(?:tidb[-_ ]?cloud[-_ ]?)?(?:starter|essential|serverless|developer|shared)(?:[-_ ]?tier)?$/i,
    text: /\b(?:tidb\s+(?:cloud\s+)?(?:starter|essential|serverless)|(?:starter|essential|serverless|shared|developer)[-\s](?:tier|cluster|plan|instance)s?)\b/i,
    unavailable: ['topsql', 'persisted_statements', 'node_metrics', 'dedicated_config', 'topology'],
    slowQuery: 'ngm_sorting_only',
  },
  {
    id: 'dedicated',
    label: 'Dedicated',
    labels: /^(?:(?:tier|plan|cluster[-_]?tier|service[-_]?tier)[:=_/-])?(?:tidb[-_ ]?cloud[-_ ]?)?(?:dedicated|premium|enterprise|byoc)(?:[-_ ]?tier)?$/i,
    text: /\b(?:tidb\s+(?:cloud\s+)?dedicated|(?:dedicated|premium|enterprise|byoc)[-\s](?:tier|cluster|plan)s?)\b/i,
    unavailable: [],
    slowQuery: 'full',
  },
];

/**
 * Cues that a sentence of the human answer rests on data of a kind: it names the source (TopSQL,
 * the statements summary, a `node_*` metric) or a thing only that source shows (a TiKV instance
 * or store, a component configuration key).
 */
export const DATA_KIND_CUES: Readonly<Record<TierDataKind, RegExp>> = {
  // A numbered component or store; not a version ("TiDB 8.1") nor a verb ("we store 100 rows").
  topology:
    /\b(?:topology|physical (?:nodes?|components?|hosts?)|(?:tikv|tidb|pd|tiflash)[-_ ]?(?:node|instance|server|pod|host)?[-_ ]?\d{1,3}(?![.\d])|(?:tikv )?store (?:id )?\d{1,5}(?![.\d]| ?(?:rows?|records?|items?|bytes?|[kmgt]i?b|%))|(?:which|one|each|every) (?:tikv|tidb|pd|tiflash) (?:node|instance|store|server))\b/i,
  topsql: /\btop[-_ ]?sql\b/i,
  persisted_statements: /\b(?:statements?[-_ ]summary(?:[-_ ]history)?|statement history|persisted statements)\b/i,
  dedicated_config: /\b(?:(?:tikv|tidb|pd|tiflash)(?:'s)? (?:config(?:uration)?|parameters?|settings?)|(?:raftstore|readpool|rocksdb|raftdb|coprocessor|storage|server|schedule|replication|performance|pessimistic-txn|split)\.[a-z][\w-]*(?:\.[a-z][\w-]*)*)\b/i,
  node_metrics: /\b(?:node_[a-z][a-z0-9_]*|node[- ]exporter|host[- ](?:cpu|memory|disk|load|network)|(?:cpu|memory|disk) of the (?:host|machine|node))\b/i,
};

/** How reasons name a kind of data. */
export const DATA_KIND_LABEL: Readonly<Record<TierDataKind, string>> = {
  topology: 'physical topology',
  topsql: 'TopSQL',
  persisted_statements: 'persisted Statements',
  dedicated_config: 'Dedicated configuration',
  node_metrics: 'node_* metrics',
};
