import type { EvidenceFactV1 } from '@aoc/contracts';
import { classifyMetric, isMetricFamilyId, metricFamily } from '@aoc/metric-ontology';
import { deviatesBadly, emptyFamilies, familySignals, time, type FamilySignal } from '../family-rules';
import { signalState, type SignalState } from './signal-state';

/**
 * Everything a condition may read, gathered once per thread from the materialised facts: the
 * state of each measured family, events (reported by a provider or derived from metrics), log
 * patterns, statement and session statistics, settings, and which channels were read or are
 * not configured for the target.
 */
export interface EventSeen {
  kind: string;
  source: 'metrics' | 'logs' | 'provider';
  at: number | null;
  count: number;
  text: string;
}

export interface EvidenceContext {
  /** Every series of a family, the most extreme in its bad direction first. */
  byFamily: Map<string, SignalState[]>;
  events: EventSeen[];
  /** Log patterns seen, with their line counts and first and last times. */
  logPatterns: Map<string, { count: number; at: number | null; last: number | null }>;
  /** Families a query asked for and the provider held no series of: measured, and absent. */
  emptyFamilies: Set<string>;
  /** Whether each channel was read (a result, even empty) and which are not configured. */
  read: { logs: boolean; statements: boolean; events: boolean };
  /**
   * Event kinds the database's own metrics would have shown (a restart by its uptime or start
   * time, a role change by its role gauges): the host's boot time says nothing of a database restart.
   */
  eventCoverage: Set<string>;
  notConfigured: Set<string>;
  /** The lead statement of statement statistics: share of time (%) and its reference. */
  leadStatement: { share: number | null; ref: string; attrs: Record<string, string | number | boolean> } | null;
  /**
   * Session and statement statistics by family. `cumulative`: a total since the server started or
   * the statistics were reset, which says that something happened, not when.
   */
  counts: Map<string, { value: number; cumulative: boolean }>;
  /** Settings by family (max_connections → connection_limit). */
  settings: Map<string, number>;
  window: { from: number; to: number } | null;
  onset: number | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.test(v) ? Number(v) : null);

function worstFirst(states: SignalState[]): SignalState[] {
  return [...states].sort((a, b) => {
    const down = a.signal.badDirection === 'down';
    const va = down ? -(a.signal.min ?? Infinity) : (a.signal.max ?? -Infinity);
    const vb = down ? -(b.signal.min ?? Infinity) : (b.signal.max ?? -Infinity);
    return vb - va;
  });
}

/** Restarts and role changes the metrics themselves show: an uptime that starts again, a start time or failover count that moves. */
function derivedEvents(signals: readonly FamilySignal[]): EventSeen[] {
  const out: EventSeen[] = [];
  for (const s of signals) {
    if (s.family === 'uptime' && s.first !== null && s.min !== null && s.first > 0 && s.min < 0.5 * s.first) {
      out.push({ kind: 'restart', source: 'metrics', at: s.shiftAt, count: 1, text: `${s.metric} started again from ${Math.round(s.min)} s` });
    }
    if (s.family === 'restarts' && s.first !== null && s.max !== null && s.max > s.first) {
      out.push({ kind: 'restart', source: 'metrics', at: s.maxAt ?? s.shiftAt, count: 1, text: `${s.metric} moved from ${s.first} to ${s.max}` });
    }
    if (s.family === 'failover' && s.first !== null && s.max !== null && s.min !== null && s.max !== s.min) {
      out.push({ kind: 'role_change', source: 'metrics', at: s.shiftAt ?? s.maxAt, count: 1, text: `${s.metric} changed from ${s.first} to ${s.last ?? s.max}` });
    }
  }
  return out;
}

export function buildContext(facts: readonly EvidenceFactV1[], window: { from: string; to: string } | null, onset: number | null): EvidenceContext {
  const signals = familySignals(facts);
  const byFamily = new Map<string, SignalState[]>();
  for (const s of signals) byFamily.set(s.family, [...(byFamily.get(s.family) ?? []), signalState(s)]);
  for (const [f, states] of byFamily) byFamily.set(f, worstFirst(states));
  const derived = derivedEvents(signals);
  const events: EventSeen[] = [...derived];
  const logPatterns = new Map<string, { count: number; at: number | null; last: number | null }>();
  const eventCoverage = new Set<string>();
  for (const sig of signals) {
    if (classifyMetric(sig.metric).source === 'node_exporter') continue;
    if (sig.family === 'uptime' || sig.family === 'restarts') eventCoverage.add('restart');
    if (sig.family === 'failover') eventCoverage.add('role_change');
  }
  const counts: EvidenceContext['counts'] = new Map();
  const settings = new Map<string, number>();
  const notConfigured = new Set<string>();
  const read = { logs: false, statements: false, events: events.length > 0 || signals.some((s) => ['uptime', 'restarts', 'failover'].includes(s.family)) };
  let leadStatement: EvidenceContext['leadStatement'] = null;
  for (const f of facts) {
    const a = f.attributes;
    const family = typeof a['family'] === 'string' ? a['family'] : typeof a['reads'] === 'string' ? a['reads'] : null;
    if (a['source'] === 'logs') read.logs = true;
    if (f.kind === 'note' && (f.value === 'not_configured' || a['status'] === 'not_configured') && typeof a['channel'] === 'string') notConfigured.add(a['channel']);
    if (f.kind === 'event') {
      const at = time(a['at']) ?? time(a['firstAt']);
      const count = num(f.value) ?? 1;
      if (typeof a['pattern'] === 'string') {
        const prev = logPatterns.get(a['pattern']);
        const lasts = [prev?.last, time(a['lastAt']) ?? at].filter((t): t is number => typeof t === 'number');
        logPatterns.set(a['pattern'], { count: (prev?.count ?? 0) + count, at: prev?.at ?? at, last: lasts.length > 0 ? Math.max(...lasts) : null });
      } else if (typeof a['event'] === 'string') {
        read.events = true;
        events.push({ kind: a['event'], source: a['source'] === 'metrics' ? 'metrics' : 'provider', at, count, text: f.subject });
      }
    }
    if (f.kind === 'top_item') {
      read.statements = true;
      const share = num(a['share']);
      if (!leadStatement || (share !== null && (leadStatement.share ?? -1) < share)) leadStatement = { share, ref: String(a['digest'] ?? f.subject).slice(0, 80), attrs: a };
    }
    if (f.kind === 'count' && family && a['source'] !== 'logs' && typeof a['source'] === 'string') {
      read.statements = true;
      const v = num(f.value);
      const cumulative = typeof a['basis'] === 'string' && a['basis'] !== 'now';
      const prev = counts.get(family);
      // A reading of the present outranks a total since start; among equals the larger.
      if (v !== null && (!prev || (prev.cumulative && !cumulative) || (prev.cumulative === cumulative && v > prev.value))) counts.set(family, { value: v, cumulative });
    }
    if (f.kind === 'config_value' && family) {
      const v = num(f.value);
      if (v !== null) settings.set(family, v);
    }
  }
  // The executor reports the same restarts and role changes when it derived them itself: keep its own.
  const reported = new Set(events.filter((e) => e.source !== 'metrics' || !derived.includes(e)).map((e) => e.kind));
  const kept = events.filter((e) => !derived.includes(e) || !reported.has(e.kind));
  events.length = 0;
  events.push(...kept);
  const w = window ? { from: Date.parse(window.from), to: Date.parse(window.to) } : null;
  return { byFamily, emptyFamilies: new Set(emptyFamilies(facts)), events, logPatterns, read, eventCoverage, notConfigured, leadStatement, counts, settings, window: w && Number.isFinite(w.from) && Number.isFinite(w.to) ? w : null, onset };
}

/** The worst series of a family in the family's own unit (CPU in percent, not load average), or null. */
export function worstInUnit(ctx: EvidenceContext, family: string, unit: string | null = isMetricFamilyId(family) ? metricFamily(family).unit : null): SignalState | null {
  return ctx.byFamily.get(family)?.find((st) => st.signal.unit === unit) ?? null;
}

/** The bound a limit family sets: its largest series (max_connections, not the reserved slots). */
export function largest(ctx: EvidenceContext, family: string, unit?: string): SignalState | null {
  const states = (ctx.byFamily.get(family) ?? []).filter((st) => unit === undefined || st.signal.unit === unit);
  return [...states].sort((a, b) => (b.signal.last ?? b.signal.max ?? -Infinity) - (a.signal.last ?? a.signal.max ?? -Infinity))[0] ?? null;
}

/** The worst series of a family, or null when the family was not measured. */
export function worst(ctx: EvidenceContext, family: string): SignalState | null {
  return ctx.byFamily.get(family)?.[0] ?? null;
}

/** The family was asked for: it has series, or its query found none. */
export function queried(ctx: EvidenceContext, family: string): boolean {
  return ctx.byFamily.has(family) || ctx.emptyFamilies.has(family);
}

/** Families with a series that left its usual level in its bad direction. */
export function deviatingFamilies(ctx: EvidenceContext): string[] {
  return [...ctx.byFamily.entries()].filter(([, states]) => states.some((st) => deviatesBadly(st.signal))).map(([f]) => f);
}
