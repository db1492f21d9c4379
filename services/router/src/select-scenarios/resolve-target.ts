import type { ProviderName } from '@aoc/contracts';
import { extractTargetIds, resolveTarget as resolveByPatterns, type ResolvedTarget } from './target-patterns';
import { extractTargetMentions, type TargetMention } from './target-mentions';

/** What the router knows a provider can serve (the last inventory it received). */
export interface ProviderInventory {
  provider: ProviderName;
  targets: readonly { target: string; aliases: readonly string[] }[];
}

export interface InventoryResolution extends ResolvedTarget {
  /** Targets the ticket's mentions matched (several: the clarification lists them). */
  candidates: string[];
  /** Names taken from the ticket and looked up (none matched: the reply says which). */
  tried: string[];
}

/** Providers preferred when one name is in several inventories: the one that reads the most evidence first. */
const PROVIDER_ORDER: readonly ProviderName[] = ['clinic', 'wetech', 'manus', 'prometheus'];
const MAX_LISTED = 5;

interface Entry {
  provider: ProviderName;
  target: string;
}

/**
 * Lower-cased name → inventory entries. A scoped target (Clinic's `<org>/<cluster>`, Wetech's
 * `<region>/<cluster>`) is also found by its last part, so a ticket naming only the cluster still
 * matches where the inventory carries no aliases (replayed evidence); the scope then disambiguates.
 */
function indexOf(inventories: readonly ProviderInventory[]): Map<string, Entry[]> {
  const index = new Map<string, Entry[]>();
  const put = (name: string, entry: Entry) => {
    const key = name.toLowerCase();
    const list = index.get(key) ?? [];
    if (!list.some((e) => e.provider === entry.provider && e.target === entry.target)) list.push(entry);
    index.set(key, list);
  };
  for (const inv of inventories) {
    for (const t of inv.targets) {
      const entry = { provider: inv.provider, target: t.target };
      put(t.target, entry);
      for (const alias of t.aliases) put(alias, entry);
      const slash = t.target.lastIndexOf('/');
      if (slash > 0 && slash < t.target.length - 1) put(t.target.slice(slash + 1), entry);
    }
  }
  return index;
}

/** Clinic pairs written apart ("org 137…, cluster 102…", a console link with `orgId=`) as one candidate. */
function clinicPairs(text: string): TargetMention[] {
  const orgs = extractTargetIds(text, 'org');
  const clusters = extractTargetIds(text, 'cluster');
  return orgs.flatMap((o) => clusters.map((c) => ({ text: `${o}/${c}`, form: 'link' as const })));
}

/** Names worth reporting as tried: identifier-like, or given in a label, link or quotes (never "very" from "database very slow"). */
const looksLikeName = (m: TargetMention) => /[-_.\d]/.test(m.text) || m.form === 'label' || m.form === 'link' || m.form === 'quoted';

const list = (items: readonly string[]) => {
  const shown = items.slice(0, MAX_LISTED).join(', ');
  return items.length > MAX_LISTED ? `${shown} and ${items.length - MAX_LISTED} more` : shown;
};

/**
 * Resolves every explicit target mention against the inventories: exactly one target is the
 * target; several ask the customer which one (listing them); none says which names were tried.
 * Bare tokens count only when no stronger mention (a keyword, label, link or host form) matched.
 * Without any inventory the deterministic name patterns decide, as before inventories existed.
 */
export function resolveAgainstInventory(text: string, inventories: readonly ProviderInventory[]): InventoryResolution {
  if (inventories.every((i) => i.targets.length === 0)) return { ...resolveByPatterns(text), candidates: [], tried: [] };
  const index = indexOf(inventories);
  const mentions = [...clinicPairs(text), ...extractTargetMentions(text)];
  const hits = (strong: boolean) => {
    const out: Entry[] = [];
    for (const m of mentions.filter((x) => (x.form === 'token') !== strong)) {
      for (const e of index.get(m.text.toLowerCase()) ?? []) if (!out.some((o) => o.target === e.target && o.provider === e.provider)) out.push(e);
    }
    return out;
  };
  const strong = hits(true);
  const matched = strong.length > 0 ? strong : hits(false);
  const none: InventoryResolution = { provider: 'none', target: null, cluster: null, problem: null, candidates: [], tried: mentions.filter(looksLikeName).map((m) => m.text).slice(0, 10) };
  const targets = [...new Set(matched.map((e) => e.target))];
  if (targets.length === 0) {
    return {
      ...none,
      problem: none.tried.length > 0 ? `none of the names in the ticket (${list(none.tried)}) is a target our providers serve` : 'the ticket names no cluster',
    };
  }
  // Region-scoped inventories (Wetech: `<region>/<cluster>`): a region the ticket names picks among
  // same-named clusters, and a named region that contradicts the only match asks instead of guessing.
  const regions = namedRegions(text, inventories);
  if (targets.length > 1 && regions.length === 1) {
    const inRegion = targets.filter((t) => regionOf(t) === regions[0]);
    if (inRegion.length === 1) return resolved(matched.filter((e) => e.target === inRegion[0]), none.tried);
  }
  if (targets.length > 1) {
    return { ...none, candidates: targets, problem: `the ticket names several targets (${list(targets)}) and does not say which one is affected` };
  }
  const region = regionOf(targets[0]);
  if (region !== null && regions.length > 0 && !regions.includes(region)) {
    return { ...none, candidates: targets, problem: `the ticket names region ${list(regions)}, but the cluster it names is served in ${region} (${targets[0]})` };
  }
  return resolved(matched, none.tried);
}

/** The region of a `<region>/<cluster>` target of a region-scoped provider (not Clinic's org/cluster). */
function regionOf(target: string): string | null {
  const slash = target.indexOf('/');
  const head = slash > 0 ? target.slice(0, slash) : '';
  // Cloud-style region names (`ap-southeast-1`, `ap-saas01`); Clinic's numeric org ids are not regions.
  return /^[a-z]{2}-[a-z]+(?:-?\d+)$/.test(head) ? head : null;
}

/** Regions of the inventories that the ticket names as whole words. */
function namedRegions(text: string, inventories: readonly ProviderInventory[]): string[] {
  const known = new Set(inventories.flatMap((i) => i.targets.map((t) => regionOf(t.target)).filter((r): r is string => r !== null)));
  const lower = text.toLowerCase();
  return [...known].filter((r) => new RegExp(`(?<![a-z0-9-])${r}(?![a-z0-9-])`).test(lower));
}

function resolved(matched: readonly Entry[], tried: string[]): InventoryResolution {
  const entry = [...matched].sort((a, b) => PROVIDER_ORDER.indexOf(a.provider) - PROVIDER_ORDER.indexOf(b.provider))[0];
  const cluster = entry.provider === 'clinic' && entry.target.includes('/') ? entry.target.split('/')[1] : entry.target;
  return { provider: entry.provider, target: entry.target, cluster, problem: null, candidates: [entry.target], tried };
}
