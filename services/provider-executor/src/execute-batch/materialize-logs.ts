import type { EvidenceFactV1 } from '@aoc/contracts';
import { GenericChannelResult, GenericLogsResult } from '@aoc/providers';

/**
 * Compact facts from the generic package's `logs` summaries: one line count, one error-line count,
 * one `event` per named pattern with the family it speaks to, and one observation. Counts,
 * times and at most one short sample per pattern (already redacted by the package) are all that
 * is kept; no other log text reaches the facts.
 */

export interface LogsMaterialized {
  facts: EvidenceFactV1[];
  observations: string[];
  gaps: string[];
}

/**
 * The family a log pattern speaks to; the rest are errors. The first five are as they always were
 * (diagnosis rules read them); the later ones came with the checkpoint, temp-file, autovacuum,
 * recovery-conflict and redo-log patterns.
 */
export const PATTERN_FAMILY: Readonly<Record<string, string>> = {
  restart: 'restarts',
  failover: 'failover',
  deadlock: 'deadlocks',
  lock_timeout: 'lock_waits',
  connection_limit: 'connections',
  checkpoint: 'checkpoints',
  temp_file: 'io_throughput',
  autovacuum: 'maintenance',
  recovery_conflict: 'replication_lag',
  redo_log: 'wal',
};
const SAMPLE_CHARS = 120;

const hhmm = (iso: string | null) => (iso ? `${iso.slice(11, 16)}Z` : 'n/a');
const words = (pattern: string) => pattern.replace(/_/g, ' ');

/** What each channel could confirm or rule out, for the gap and the note's `confirms`. */
const CHANNEL_CONFIRMS: Readonly<Record<GenericChannelResult['channel'], { families: string; words: string }>> = {
  logs: { families: 'errors restarts failover deadlocks connection_limit storage_free replication_lag checkpoints wal', words: 'the database log is not configured for this target' },
  statements: { families: 'statement_latency lock_waits locks connections connection_limit replication_lag checkpoints deadlocks', words: 'statement statistics are not configured for this target' },
};

/**
 * A channel the target's endpoint does not have (`operation: 'channel'`): one `note` fact and one
 * gap, so the diagnosis can say "the database log is not configured for this target" instead of
 * reading the silence as health. Null for any other result shape.
 */
export function materializeChannelNote(queryId: string, purpose: string, raw: unknown): LogsMaterialized | null {
  const parsed = GenericChannelResult.safeParse(raw);
  if (!parsed.success) return null;
  const { channel, setting } = parsed.data;
  const confirms = CHANNEL_CONFIRMS[channel];
  return {
    facts: [{ queryId, kind: 'note', subject: `channel ${channel} not configured`, value: 'not_configured', unit: null, attributes: { source: 'channel', channel, setting, confirms: confirms.families } }],
    observations: [],
    gaps: [`${purpose} (${queryId}): ${confirms.words} (its endpoint has no ${setting} settings); nothing about ${confirms.families.split(' ').slice(0, 5).join(', ')} can be confirmed or ruled out from it`.slice(0, 500)],
  };
}

/** Facts, one observation and gaps of a `logs` summary (complete or empty); null for any other shape. */
export function materializeLogs(queryId: string, purpose: string, raw: unknown): LogsMaterialized | null {
  const parsed = GenericLogsResult.safeParse(raw);
  if (!parsed.success) return null;
  const r = parsed.data;
  const level = (name: string) => r.byLevel.find((l) => l.level === name)?.count ?? 0;
  const severe = level('fatal') + level('error');
  const facts: EvidenceFactV1[] = [
    { queryId, kind: 'count', subject: `${queryId}: log lines`, value: r.lines, unit: 'lines', attributes: { source: 'logs', hitLimit: r.hitLimit, fatal: level('fatal'), error: level('error'), warn: level('warn') } },
    { queryId, kind: 'count', subject: `${queryId}: error log lines`, value: severe, unit: 'lines', attributes: { source: 'logs', ...(severe > 0 ? { family: 'errors' } : { reads: 'errors' }) } },
  ];
  const named = r.byPattern.filter((p) => p.pattern !== 'other');
  for (const p of named) {
    const sample = r.samples.find((s) => s.pattern === p.pattern);
    facts.push({
      queryId,
      kind: 'event',
      subject: `log pattern ${p.pattern}`,
      value: p.count,
      unit: 'lines',
      attributes: {
        source: 'logs',
        family: PATTERN_FAMILY[p.pattern] ?? 'errors',
        pattern: p.pattern,
        errorLines: p.errors,
        firstAt: p.firstAt,
        lastAt: p.lastAt,
        ...(sample ? { sample: sample.text.slice(0, SAMPLE_CHARS) } : {}),
      },
    });
  }
  const gaps = r.hitLimit ? [`${purpose} (${queryId}) hit the package's line limit; log counts are lower bounds`] : [];
  if (r.lines === 0) return { facts, observations: [`${purpose}: no matching log line in the window.`], gaps };
  const levels = (['fatal', 'error', 'warn'] as const).filter((l) => level(l) > 0).map((l) => `${level(l)} ${l}`);
  const patterns = named.slice(0, 4).map((p) => `${words(p.pattern)} ${p.count} (first ${hhmm(p.firstAt)})`);
  const text =
    `${purpose}: ${r.lines} log line${r.lines === 1 ? '' : 's'}${levels.length > 0 ? ` (${levels.join(', ')})` : ''} between ${hhmm(r.firstAt)} and ${hhmm(r.lastAt)}` +
    (patterns.length > 0 ? `; ${patterns.join(', ')}` : '; no line matches a known pattern') +
    (r.busiestMinute ? `; busiest minute ${hhmm(r.busiestMinute.at)} with ${r.busiestMinute.lines}` : '') +
    (r.hitLimit ? '; the line limit was hit, so these are lower bounds' : '') +
    '.';
  return { facts, observations: [text.slice(0, 500)], gaps };
}
