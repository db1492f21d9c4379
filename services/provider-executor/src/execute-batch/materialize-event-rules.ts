import { z } from 'zod';

/**
 * Rules `metric-events-v1`: which metric series become which event, as data (the deriving code is
 * `materialize-events.ts`). A rule matches a series by its metric's ontology classification
 * (family, pattern id, kind) and optionally by name; the first matching rule wins. `when` says what
 * in the series summary makes the event:
 * - `drop`: the value fell between two points (`drops`, `lastDrop`) by at least `minRelativeChange`
 *   of the value before: an uptime counter starting over.
 * - `rise`: the value ended higher than it began and changed inside the window (`lastChange`): a
 *   start-time gauge moving to a later start. With `atFromValue` the new value is the epoch second
 *   of the event (a start time), used as `at` when it lies in or just before the window.
 * - `flip`: the value changed between two points (`changes`, `lastChange`): a role indicator.
 * - `presence`: the series is present at one end of the window and absent at the other (leading or
 *   trailing empty buckets of `shape`): replica status rows appearing or vanishing.
 * - `differs`: the window's first and last values differ: a setting that was changed.
 * - `present`: the series has a point in the window at all: a firing alert (`ALERTS{alertstate="firing"}`).
 * - `positive`: the series reached a value above 0: a rate of a restart counter.
 */
export const METRIC_EVENT_RULES_VERSION = 'metric-events-v1';

export const METRIC_EVENTS = ['restart', 'role_change', 'config_change', 'alert_firing'] as const;
export type MetricEvent = (typeof METRIC_EVENTS)[number];

const Regex = z.string().refine((s) => {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}, 'not a valid regex');

export const MetricEventRule = z
  .object({
    id: z.string().regex(/^[a-z0-9_]+$/),
    event: z.enum(METRIC_EVENTS),
    /** Ontology families the metric must be in (any of them). */
    families: z.array(z.string()).optional(),
    /** Ontology pattern ids the metric must have matched (any of them). */
    patternIds: z.array(z.string()).optional(),
    kind: z.enum(['counter', 'gauge', 'histogram', 'summary']).optional(),
    /** Whole-name regex (case-sensitive) the metric name must match. */
    name: Regex.optional(),
    when: z.enum(['drop', 'rise', 'flip', 'presence', 'differs', 'present', 'positive']),
    minRelativeChange: z.number().min(0).max(1).optional(),
    atFromValue: z.boolean().optional(),
    /** What the event means, for the fact's subject. */
    says: z.string().min(1).max(60),
  })
  .strict();
export type MetricEventRule = z.infer<typeof MetricEventRule>;

const RULES: unknown[] = [
  { id: 'alerts_firing', event: 'alert_firing', name: 'ALERTS', when: 'present', says: 'alert firing' },
  { id: 'uptime_starts_over', event: 'restart', families: ['uptime'], when: 'drop', minRelativeChange: 0.5, says: 'uptime started over' },
  // pg_postmaster_start_time_seconds, node_boot_time_seconds, process_start_time_seconds.
  { id: 'start_time_later', event: 'restart', families: ['restarts'], kind: 'gauge', name: '.*(start_time|boot_time).*', when: 'rise', atFromValue: true, says: 'start time moved later' },
  { id: 'restart_counter', event: 'restart', families: ['restarts'], kind: 'counter', when: 'positive', says: 'restarts counted' },
  // mysqld_exporter's replica status rows exist only on a replica.
  { id: 'replica_status_rows', event: 'role_change', name: 'mysql_(slave|replica)_status_.*', when: 'presence', says: 'replica status appeared or vanished' },
  // pg_replication_is_replica, pg_is_in_recovery, pg_settings_in_hot_standby, mysql read_only / super_read_only, generic is_primary / is_replica.
  { id: 'role_indicator_flip', event: 'role_change', families: ['failover'], kind: 'gauge', when: 'flip', says: 'role indicator changed' },
  { id: 'failover_counter', event: 'role_change', families: ['failover'], kind: 'counter', when: 'positive', says: 'failovers counted' },
  // Read-only defaults exported as settings (PostgreSQL 14+ `in_hot_standby` is a failover gauge of the ontology).
  { id: 'pg_read_only_setting_flip', event: 'role_change', name: 'pg_settings_(default_transaction_read_only|transaction_read_only)', when: 'flip', says: 'read-only setting changed' },
  { id: 'setting_changed', event: 'config_change', patternIds: ['pg_settings_config_unknown', 'pg_connection_limit_settings', 'mysql_variables_config_unknown', 'mysql_connection_limit'], when: 'differs', says: 'setting changed' },
];

/** The rules, checked once at load (a bad edit fails naming the rule). */
export const METRIC_EVENT_RULES: readonly MetricEventRule[] = RULES.map((r, i) => {
  const parsed = MetricEventRule.safeParse(r);
  if (!parsed.success) throw new Error(`metric event rule ${i} is invalid: ${parsed.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`);
  return parsed.data;
});
