import { readVersionedData } from '@aoc/versioned-data';
import { z } from 'zod';
import { METRIC_FAMILY_IDS, parseOntology } from './ontology-schema';
import type { BadDirection, MetricFamilyId, MetricUnit, OntologyData } from './ontology-schema';

export interface MetricFamily {
  id: MetricFamilyId;
  /** Plain customer words ("free storage", "replica lag"). */
  label: string;
  /** The family's usual unit; a pattern may say otherwise for one name. */
  unit: MetricUnit;
  /** Which way is trouble: `down` for free storage, cache hit ratio, uptime. */
  badDirection: BadDirection;
  /** The family that bounds this one (connections → connection_limit), or null. */
  limitFamily: MetricFamilyId | null;
  /** Lower-case words and phrases tickets and answers use for this family. */
  words: readonly string[];
}

/** Versioned data (declared in the manifest): a replay may read a candidate's copy instead. */
export const ONTOLOGY_PATH = 'libs/metric-ontology/data/ontology.json';

/** The rule set, parsed once at load: a bad data file fails here, before anything classifies. */
export const ONTOLOGY: OntologyData = parseOntology(readVersionedData(ONTOLOGY_PATH, z.unknown()));

export const ONTOLOGY_VERSION: string = ONTOLOGY.version;

/** In the order of METRIC_FAMILY_IDS, so listings are stable whatever order the data uses. */
export const METRIC_FAMILIES: readonly MetricFamily[] = Object.freeze(
  METRIC_FAMILY_IDS.map((id) => {
    const f = ONTOLOGY.families.find((family) => family.id === id);
    // parseOntology has checked every id is defined; this only satisfies the type checker.
    if (!f) throw new Error(`metric ontology: family "${id}" is not defined`);
    return Object.freeze({
      id: f.id,
      label: f.label,
      unit: f.unit,
      badDirection: f.badDirection,
      limitFamily: f.limitFamily ?? null,
      words: Object.freeze([...f.words]),
    });
  }),
);

const BY_ID: ReadonlyMap<string, MetricFamily> = new Map(METRIC_FAMILIES.map((f) => [f.id, f]));

export function isMetricFamilyId(s: string): s is MetricFamilyId {
  return BY_ID.has(s);
}

/** The plain label of a family id, or the text itself for a name that is no family id. */
export function familyLabel(family: string): string {
  return isMetricFamilyId(family) ? metricFamily(family).label : family;
}

/** Throws on an id outside the union (only reachable from untyped callers). */
export function metricFamily(id: MetricFamilyId): MetricFamily {
  const f = BY_ID.get(id);
  if (!f) throw new Error(`unknown metric family "${String(id)}"`);
  return f;
}

export function familyWords(id: MetricFamilyId): readonly string[] {
  return metricFamily(id).words;
}
