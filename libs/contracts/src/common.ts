import { z } from 'zod';

/** Shared field schemas reused by several topic payloads. */
export const IsoDateTime = z.iso.datetime({ offset: true }).describe('ISO-8601 timestamp with offset');
export const RunId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'runId must be a safe identifier (letters, digits, . _ : -)')
  .describe('Run identifier, one per analysis of a ticket');
/** The longest ticket key any topic or route takes. */
export const TICKET_KEY_MAX_LENGTH = 64;
export const TicketKey = z
  .string()
  .max(TICKET_KEY_MAX_LENGTH)
  .regex(new RegExp(`^[A-Za-z0-9][A-Za-z0-9_-]{0,${TICKET_KEY_MAX_LENGTH - 1}}$`), 'ticketKey must look like PROJ-123')
  .describe('Ticket key in the ticket source, e.g. SUP-1042');
/** The tenant of a deployment without `AOC_TENANTS`: it owns every ticket and target. */
export const SINGLE_TENANT = 'default';
export const TenantId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'a tenant is lower-case letters, digits, "-" and "_"')
  .describe('Tenant owning a ticket, taken from the ticket source (its project) at intake');
/**
 * The tenant a run belongs to: null when no configured tenant owns its ticket (seen by admins
 * only). Messages written before tenants existed parse as the single tenant.
 */
export const RunTenant = TenantId.nullable().default(SINGLE_TENANT);
/**
 * A provider query's id: a safe slug used in artifact paths and dependency references, not a
 * diagnostic category. One pattern for the contracts, every provider package and the optimizer.
 */
export const QUERY_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const QueryId = z.string().regex(QUERY_ID_PATTERN, 'must be a safe slug (a-z, 0-9, "_", "-") of at most 64 characters');
export const ScenarioId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'scenarioId must be a lower-case slug')
  .describe('Scenario slug within a run');

export const TimeWindow = z
  .object({
    from: IsoDateTime,
    to: IsoDateTime,
  })
  .refine((w) => Date.parse(w.from) < Date.parse(w.to), { message: 'window.from must be before window.to', path: ['from'] })
  .describe('Absolute time window [from, to]');
export type TimeWindow = z.infer<typeof TimeWindow>;

export const ProviderName = z
  .enum(['clinic', 'manus', 'wetech', 'prometheus', 'none'])
  .describe('Evidence provider package; none when no usable target exists');
export type ProviderName = z.infer<typeof ProviderName>;

/** A provider target identifier (cluster label value, `<org>/<cluster>`): safe to place in a query matcher. */
export const ProviderTarget = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_./-]{0,127}$/, 'a target starts with a letter or digit and holds only letters, digits, _ . / -, at most 128 characters')
  .describe('Exact provider target');
export type ProviderTarget = z.infer<typeof ProviderTarget>;

export const Decision = z
  .enum(['internal_only', 'human_required', 'clarification_needed'])
  .describe('Typed publication decision of a run');
export type Decision = z.infer<typeof Decision>;

export const RunMode = z.enum(['read', 'write']).describe('read: analyse only; write: also write the internal comment');
export type RunMode = z.infer<typeof RunMode>;

export const RunTrigger = z
  .enum(['initial', 'bot_assignment', 'continuation', 'replay'])
  .describe('Why the run started; reports count initial and bot_assignment only');
export type RunTrigger = z.infer<typeof RunTrigger>;

/**
 * Keys of tickets a caller sent in a request body rather than the ticket source: the router runs
 * them under this namespace (read mode, no timeline revision), and reports never count their runs.
 */
export const CALLER_TICKET_KEY_PREFIX = 'adhoc-';

export function isCallerTicketKey(key: string): boolean {
  return key.startsWith(CALLER_TICKET_KEY_PREFIX);
}

/** The key a caller sent, inside its namespaced key (`adhoc-<8 hex of the caller>-<key>`); other keys as they are. */
export function innerTicketKey(key: string): string {
  return isCallerTicketKey(key) ? key.slice(CALLER_TICKET_KEY_PREFIX.length).replace(/^[0-9a-f]{8}-/, '') : key;
}

export const Verdict = z
  .enum(['ai_better', 'equivalent', 'different_but_valid', 'human_better', 'not_compared'])
  .describe('Judge verdict of the AI answer against the human answer');
export type Verdict = z.infer<typeof Verdict>;

/**
 * Why an evaluation is `not_compared`. The Judge abstains instead of guessing: every abstention
 * carries one of these codes.
 */
export const JudgeAbstentionCode = z
  .enum([
    'JUDGE.HUMAN_ANSWER_EMPTY', // no public Support reply after the anchor
    'JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE', // only acknowledgements, progress or closing
    'JUDGE.HUMAN_CLAIM_WITHDRAWN', // the customer called the human's suspicion a separate issue
    'JUDGE.NEEDS_MODEL', // the built-in judge cannot decide from the texts (meaning, language)
    'JUDGE.FEEDBACK_UNPARSEABLE', // the previous version's revise|wrong reason gives nothing checkable
    'JUDGE.ORDER_DISAGREEMENT', // the two answer orders gave different verdicts
    'JUDGE.NO_REFERENCE_SELECTED', // the model named no human reply as the answer
  ])
  .describe('Reason code of a not_compared verdict');
export type JudgeAbstentionCode = z.infer<typeof JudgeAbstentionCode>;

export const Severity = z.enum(['info', 'low', 'medium', 'high', 'critical']);
export type Severity = z.infer<typeof Severity>;

export const Sha256Hex = z.string().regex(/^[a-f0-9]{64}$/, 'must be a lower-case sha256 hex digest');

export const EntityRef = z
  .object({
    kind: z.enum(['cluster', 'instance', 'changefeed', 'database', 'table', 'unknown']),
    id: z.string().min(1).max(128),
  })
  .describe('The entity a scenario is about');
export type EntityRef = z.infer<typeof EntityRef>;
