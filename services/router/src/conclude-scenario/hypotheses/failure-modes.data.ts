import { METRIC_UNITS, isMetricFamilyId } from '@aoc/metric-ontology';
import { readVersionedData } from '@aoc/versioned-data';
import { z } from 'zod';

/**
 * The failure-mode catalogue: versioned data (`services/router/data/failure-modes.json`, declared
 * in the versioned-data manifest) that says, per mode, what it looks like over metric families
 * and channels, what tells it apart from its look-alikes, how engineers word it and what to do.
 * The engine in `evaluate-modes.ts` tests every mode of a scenario against the evidence; nothing
 * here names an exporter's metric.
 */
export const FAILURE_MODES_PATH = 'services/router/data/failure-modes.json';

const Family = z.string().refine(isMetricFamilyId, 'must be a metric family of the ontology');
const Share = z.number().min(0).max(1);
const Factor = z.number().min(1).max(1e6);
const Word = z.string().min(1).max(80);

/** Events a provider reports or the engine derives from metrics (restart from an uptime reset, ...). */
export const EVENT_KINDS = ['restart', 'role_change', 'config_change', 'alert_firing'] as const;

/**
 * An absolute floor a change must reach to matter (replica lag of a few kilobytes is noise,
 * whatever its ratio): the worst series in `unit` (default the family's own) must reach `atLeast`.
 */
const Floor = { atLeast: z.number().min(0).optional(), unit: z.enum(METRIC_UNITS).optional() };

/** One testable condition over the evidence. */
export const ConditionSchema = z.discriminatedUnion('kind', [
  /** Peak of `family` against the latest value of the family (or setting) that bounds it. */
  z.object({ kind: z.literal('atLimit'), family: Family, limit: Family, ratio: Share }).strict(),
  /** An absolute level in the family's unit: the peak, or the level held over the window's second half. */
  z.object({ kind: z.literal('level'), family: Family, over: z.enum(['peak', 'sustained', 'low']), atLeast: z.number().optional(), atMost: z.number().optional(), unit: z.enum(METRIC_UNITS).optional() }).strict(),
  /** Free space (or credits) near zero: the low within `ratio` of capacity (or of the usual level), or a ramp down that reaches zero within `withinHours`. */
  z.object({ kind: z.literal('nearEmpty'), family: Family, capacity: Family.optional(), ratio: Share, withinHours: z.number().positive().max(720).optional() }).strict(),
  /** A change against the usual level by at least `factor` (up: peak / usual; down: usual / low). */
  z.object({ kind: z.literal('rise'), family: Family, factor: Factor, ...Floor }).strict(),
  z.object({ kind: z.literal('fall'), family: Family, factor: Factor }).strict(),
  /** Moved away from the usual level in the family's bad direction (the providers' robust shift test). */
  z.object({ kind: z.literal('deviates'), family: Family }).strict(),
  /** A steady trend over the window in a direction. */
  z.object({ kind: z.literal('ramp'), family: Family, direction: z.enum(['up', 'down']), ...Floor }).strict(),
  /** Stayed within `within` of its usual level: a discriminator ("writes stayed flat"). */
  z.object({ kind: z.literal('steady'), family: Family, within: Share }).strict(),
  /** `family` changed at least `factor` times more than `other` did (lag grew far faster than writes). */
  z.object({ kind: z.literal('outpaces'), family: Family, other: Family, factor: Factor }).strict(),
  /**
   * `family` climbs in step with `other` (both steady rises in one unit, slopes within `within` times
   * each other, starting together): a replica's replay lag that grows second for second with the age
   * of the query holding it.
   */
  z.object({ kind: z.literal('tracks'), family: Family, other: Family, within: Factor }).strict(),
  /** The change of `first` began before (or with) that of `then`. */
  z.object({ kind: z.literal('before'), first: Family, then: Family }).strict(),
  /** The lead series of the family is at least `atLeast` times the next one (one store, one node). */
  z.object({ kind: z.literal('skew'), family: Family, atLeast: Factor }).strict(),
  /** An event: from metrics (`events`) or a database log pattern (`patterns`). */
  z.object({ kind: z.literal('event'), events: z.array(z.enum(EVENT_KINDS)).max(4).default([]), patterns: z.array(Word).max(12).default([]) }).strict(),
  /** Database log lines of a pattern. */
  /** `atLeast`: lines it takes to stand out from the background (one reset connection an hour is noise, not a network fault). */
  z.object({ kind: z.literal('log'), patterns: z.array(Word).min(1).max(12), atLeast: z.number().int().min(1).max(100_000).optional() }).strict(),
  /** The lead statement of the statement statistics takes at least this share (%) of the time. */
  /** `types`: only a lead statement of these kinds counts (a SELECT for a plan, never the bulk INSERT of a write load). */
  /** `rowsPerCall`: and each call reads or changes at least this many rows (a bulk write, a scan), as the statistics count them. */
  z
    .object({
      kind: z.literal('statement'),
      atLeast: z.number().min(0).max(100),
      types: z.array(z.enum(['SELECT', 'WITH', 'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'COPY', 'OTHER'])).min(1).max(8).optional(),
      rowsPerCall: z.number().positive().optional(),
    })
    .strict(),
  /** A count read from statement or session statistics (blocked sessions, deadlocks) of a family. */
  z.object({ kind: z.literal('count'), family: Family, atLeast: z.number().min(0) }).strict(),
  /** The metric name of the family's series matches (a changefeed's lag, not a replica's). */
  z.object({ kind: z.literal('named'), family: Family, pattern: z.string().min(1).max(120) }).strict(),
  /** Nothing measured left its usual level and nothing sits at a limit. */
  z.object({ kind: z.literal('quiet') }).strict(),
]);
export type Condition = z.infer<typeof ConditionSchema>;

const AllOf = z.object({ allOf: z.array(ConditionSchema).min(2).max(4) }).strict();
export type AllOf = z.infer<typeof AllOf>;
/** A clause of a signature: one condition, or any one of several (each possibly a conjunction). */
const Clause = z.union([ConditionSchema, z.object({ anyOf: z.array(z.union([ConditionSchema, AllOf])).min(1).max(12) }).strict()]);
export type Clause = z.infer<typeof Clause>;

/** The metric families a condition reads (none for a channel: a log, an event, statements). */
export function conditionFamilies(c: Condition): string[] {
  switch (c.kind) {
    case 'atLimit':
      return [c.family, c.limit];
    case 'nearEmpty':
      return c.capacity ? [c.family, c.capacity] : [c.family];
    case 'outpaces':
    case 'tracks':
      return [c.family, c.other];
    case 'before':
      return [c.first, c.then];
    case 'event':
    case 'log':
    case 'statement':
    case 'quiet':
      return [];
    default:
      return [c.family];
  }
}

const ModeId = z.string().regex(/^[a-z][a-z0-9-]{1,47}$/, 'lower-case words joined by dashes');
const Text = z.string().min(1).max(600);

export const FailureModeSchema = z
  .object({
    id: ModeId,
    /** The name an engineer gives it ("connection exhaustion"). */
    name: z.string().min(1).max(80),
    engines: z.array(z.enum(['postgres', 'mysql', 'tidb'])).min(1).max(3),
    /** Scenarios that test this mode; a general-symptom scenario and the health check test every mode. */
    scenarios: z.array(z.string().min(1).max(64)).max(8),
    /** Families in which the mode shows as the customer's symptom (what it explains). */
    symptoms: z.array(Family).max(16),
    /** What the mode needs to be tested: families and channels. */
    evidence: z.object({ families: z.array(Family).min(1).max(12), channels: z.array(z.enum(['metrics', 'logs', 'statements', 'events'])).min(1).max(4) }).strict(),
    /** Every clause must hold for the mode to be confirmed; one that fails on measured data refutes it. */
    signature: z.array(Clause).min(1).max(6),
    /** Conditions that strengthen a confirmed mode. */
    supporting: z.array(ConditionSchema).max(8).default([]),
    /** Conditions (or conjunctions: writes rose, and before the lag) that, when they hold, rule the mode out whatever the signature says. */
    refutedBy: z.array(z.union([ConditionSchema, AllOf])).max(6).default([]),
    /** Modes it is easily confused with and what tells them apart. */
    lookAlikes: z.array(z.object({ mode: ModeId, tell: Text }).strict()).max(6).default([]),
    /**
     * Modes whose evidence this one causes: when both hold, they are its effects, not causes of their
     * own. `{ mode, when }` explains it only when this mode's deciding evidence reads one of `when`
     * (added writes explain lock waits; added reads take no row locks).
     */
    explains: z.array(z.union([ModeId, z.object({ mode: ModeId, when: z.array(Family).min(1).max(8) }).strict()])).max(8).default([]),
    /** Statements (evidence in words) that would confirm or refute it where the channel is missing. */
    confirmsWith: Text,
    vocabulary: z.array(Word).min(2).max(16),
    /** The finding in an engineer's words; the deciding evidence follows it. */
    headline: Text,
    mitigation: z.string().min(1).max(900),
    openQuestion: Text,
    /** The family a confirmed mode is reported under (the scorecards and the Judge read families). */
    family: Family,
    /**
     * Whose move the mitigation is: the customer's own workload, statements, pool or schedule
     * (the answer can go out as it is), or an operation on the managed service (storage, replica,
     * instance class, explaining a restart or failover) that needs a human.
     */
    nextStep: z.enum(['customer', 'operator']),
  })
  .strict();
export type FailureMode = z.infer<typeof FailureModeSchema>;

/** The mode an `explains` entry names. */
export function explainedMode(e: string | { mode: string }): string {
  return typeof e === 'string' ? e : e.mode;
}

/** Whether `cause`, decided by evidence about `families`, explains the mode `effect`. */
export function explainsMode(cause: Pick<FailureMode, 'explains'>, effect: string, families: readonly string[]): boolean {
  return cause.explains.some((e) => (typeof e === 'string' ? e === effect : e.mode === effect && e.when.some((f) => families.includes(f))));
}

export const FailureModesData = z
  .object({
    version: z.string().min(1).max(64),
    /** Weights of the ranking of confirmed modes; they need not sum to one. */
    ranking: z.object({ magnitude: Share, coverage: Share, timing: Share, support: Share, order: Share }).strict(),
    /** What each database-log pattern the providers report is, in an engineer's words (a pattern without an entry is quoted by name). */
    logPatterns: z.record(z.string().regex(/^[a-z_]{1,40}$/), z.string().min(1).max(120)).default({}),
    modes: z.array(FailureModeSchema).min(1).max(60),
  })
  .strict()
  .superRefine((data, ctx) => {
    const ids = new Set<string>();
    data.modes.forEach((m, i) => {
      if (ids.has(m.id)) ctx.addIssue({ code: 'custom', path: ['modes', i, 'id'], message: `duplicate mode id ${m.id}` });
      ids.add(m.id);
    });
    data.modes.forEach((m, i) => {
      for (const [key, refs] of [['lookAlikes', m.lookAlikes.map((l) => l.mode)], ['explains', m.explains.map(explainedMode)]] as const) {
        refs.forEach((r, j) => {
          if (!ids.has(r)) ctx.addIssue({ code: 'custom', path: ['modes', i, key, j], message: `unknown mode ${r}` });
        });
      }
    });
  });
export type FailureModesData = z.infer<typeof FailureModesData>;

const DATA = readVersionedData(FAILURE_MODES_PATH, FailureModesData);

export const FAILURE_MODES_VERSION = DATA.version;
export const FAILURE_MODES: readonly FailureMode[] = DATA.modes;
export const RANKING = DATA.ranking;

/** A log pattern in an engineer's words ("out-of-space errors"), else its name quoted. */
export function logPatternWords(pattern: string): string {
  return Object.hasOwn(DATA.logPatterns, pattern) ? DATA.logPatterns[pattern] : `"${pattern.replace(/_/g, ' ')}"`;
}

export function failureMode(id: string): FailureMode | undefined {
  return FAILURE_MODES.find((m) => m.id === id);
}
