import { classifyMetric } from '@aoc/metric-ontology';

/**
 * Which metric names a bounded catalogue keeps when a target has more than it carries (a
 * mysqld_exporter target lists about a thousand names, most of them settings and per-command
 * counters, and cutting them alphabetically dropped every node_exporter name). Kept first: each
 * family's primary metrics, then names an exporter-specific pattern places in a family, then names
 * only the generic word patterns place, then one name of each settings prefix (the changed-settings
 * query needs only to know the prefix is there), then the rest; the listing's order within each.
 */
const SETTINGS = /^(pg_settings_|mysql_global_variables_)/;
/** Names events read besides families (Prometheus' own alert series). */
const EVENT_NAMES = new Set(['ALERTS']);

function rank(name: string, settingsSeen: Set<string>): number {
  const c = classifyMetric(name);
  if (c.primary) return 0;
  if (EVENT_NAMES.has(name)) return 1;
  const settings = SETTINGS.exec(name)?.[1];
  if (settings && c.family === 'unknown') {
    if (settingsSeen.has(settings)) return 5;
    settingsSeen.add(settings);
    return 1;
  }
  if (c.family === 'unknown') return 4;
  return c.source === 'generic' ? 3 : 2;
}

export function rankForCatalog<T extends { name: string }>(metrics: readonly T[], limit: number): T[] {
  if (metrics.length <= limit) return [...metrics];
  const seen = new Set<string>();
  const ranked = metrics.map((m, i) => ({ m, i, r: rank(m.name, seen) }));
  return ranked
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .slice(0, limit)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.m);
}
