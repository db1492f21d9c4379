import type { ProviderName } from '@aoc/contracts';

/** What a ticket can name on the way to a provider target. */
export type TargetPart = 'org' | 'cluster';

export interface TargetPattern {
  part: TargetPart;
  /** Global regex; capture group 1 is the id. */
  pattern: RegExp;
  /** Free-text forms only count ids with a digit, so "org is" or "cluster seems" never become ids. */
  needsDigit?: boolean;
}

const ID = '([A-Za-z0-9][A-Za-z0-9_-]{2,63})';

/**
 * Target conventions v1 (data). A cluster is named as "cluster <id>" (an id with a digit, so
 * "cluster configuration" is no id), "tidb-<name>" or a console URL path `/clusters/<id>`; a Clinic org as a URL path `/orgs/<org>/`, a URL parameter
 * `orgId=<org>`, or "org <id>" / "organization id: <id>" with a digit in the id.
 */
export const TARGET_PATTERNS: readonly TargetPattern[] = [
  { part: 'cluster', pattern: /\bcluster[\s_-]*(?:id)?\s*[:=#]?\s*([A-Za-z0-9][A-Za-z0-9_-]{3,63})\b/gi, needsDigit: true },
  { part: 'cluster', pattern: /\b(tidb-[a-z0-9-]{3,60})\b/gi },
  { part: 'cluster', pattern: new RegExp(`/clusters/${ID}(?![A-Za-z0-9_-])`, 'g') },
  { part: 'org', pattern: new RegExp(`/orgs/${ID}/`, 'g') },
  { part: 'org', pattern: new RegExp(`[?&]org_?id=${ID}(?![A-Za-z0-9_-])`, 'gi') },
  { part: 'org', pattern: new RegExp(`\\borg(?:ani[sz]ation)?(?:[\\s_-]*id)?\\s*[:=#]?\\s*${ID}\\b`, 'gi'), needsDigit: true },
];

/**
 * Which provider a target goes to (data, first match wins): a ticket that names exactly one
 * Clinic org and one cluster is read through Clinic as `<org>/<cluster>`; a cluster alone goes
 * to the generic Prometheus package. Naming two of a part is ambiguous and selects no target.
 */
export const TARGET_RULES: readonly { provider: ProviderName; needs: readonly TargetPart[]; target: string }[] = [
  { provider: 'clinic', needs: ['org', 'cluster'], target: '{org}/{cluster}' },
  { provider: 'prometheus', needs: ['cluster'], target: '{cluster}' },
];

const STOP_WORDS = new Set(['is', 'was', 'has', 'the', 'and', 'for', 'with', 'since', 'that', 'this', 'keeps', 'seems']);

/** Distinct ids of one part in the customer-visible text, in pattern order then order of appearance. */
export function extractTargetIds(text: string, part: TargetPart): string[] {
  const found: string[] = [];
  for (const { pattern, needsDigit } of TARGET_PATTERNS.filter((p) => p.part === part)) {
    for (const m of text.matchAll(pattern)) {
      const id = m[1];
      if (STOP_WORDS.has(id.toLowerCase()) || (needsDigit && !/\d/.test(id)) || found.includes(id)) continue;
      found.push(id);
    }
  }
  return found;
}

/** Distinct cluster references in the customer-visible text, in order of appearance. */
export function extractClusterIds(text: string): string[] {
  return extractTargetIds(text, 'cluster');
}

export interface ResolvedTarget {
  provider: ProviderName;
  target: string | null;
  cluster: string | null;
  problem: string | null;
}

/** Applies the target rules to what the text names; several ids of one part are never guessed between. */
export function resolveTarget(text: string): ResolvedTarget {
  const named: Record<TargetPart, string[]> = { org: extractTargetIds(text, 'org'), cluster: extractTargetIds(text, 'cluster') };
  const none: ResolvedTarget = { provider: 'none', target: null, cluster: null, problem: null };
  if (named.cluster.length === 0) return { ...none, problem: 'the ticket names no cluster' };
  for (const part of ['cluster', 'org'] as const) {
    if (named[part].length > 1) return { ...none, problem: `the ticket names several ${part}s (${named[part].join(', ')}) and does not say which one is affected` };
  }
  const rule = TARGET_RULES.find((r) => r.needs.every((part) => named[part].length === 1));
  if (!rule) return { ...none, problem: 'the ticket names no cluster' };
  const target = rule.target.replace(/\{(org|cluster)\}/g, (_m, part: TargetPart) => named[part][0]);
  return { provider: rule.provider, target, cluster: named.cluster[0], problem: null };
}
