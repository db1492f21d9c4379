import { isMetricFamilyId } from '@aoc/metric-ontology';
import { readVersionedData } from '@aoc/versioned-data';
import { z } from 'zod';

/**
 * The scenario catalogue: versioned data, not code paths; the optimizer changes and replays it.
 * Each scenario names what it suspects, its strongest alternative, and the neutral question the
 * diagnostic agent asks (the question never contains the suspicion).
 */
export interface ScenarioPlaybook {
  scenario: string;
  /** Lower-case words or phrases (a trailing `*` is a prefix); a ticket affirming any of them selects the scenario. */
  signals: string[];
  /** Metric-ontology families the scenario needs: when none of them returned data, the brief says so instead of concluding. */
  families: string[];
  /**
   * The families are a general symptom (slowness, an alarm): without them a cause may still be
   * named from the other measured families. Otherwise (lag, storage, connections) their absence
   * leaves the scenario undetermined.
   */
  generalSymptom?: boolean;
  hypothesis: string;
  strongestAlternative: string;
  question: string;
  stopCondition: string;
}

/** Where the catalogue lives: versioned data (declared in the manifest), so a candidate can change its signals. */
export const SCENARIO_CATALOG_PATH = 'services/router/data/scenario-catalog.json';

const Text = z.string().min(1).max(400);
/** Lower-case, trimmed, one line: what `matchSignals` compares with the ticket. */
const Signal = z
  .string()
  .min(1)
  .max(60)
  .refine((w) => w === w.toLowerCase() && w === w.trim() && !/[\r\n\t]/.test(w), 'must be a trimmed lower-case word or phrase');
const Playbook = z
  .object({
    signals: z.array(Signal).max(100),
    families: z.array(z.string().refine(isMetricFamilyId, 'must be a metric family of the ontology')).max(20),
    generalSymptom: z.boolean().optional(),
    hypothesis: Text,
    strongestAlternative: Text,
    question: Text,
    stopCondition: Text,
  })
  .strict();

export const ScenarioCatalogData = z
  .object({
    version: z.string().min(1).max(64),
    /** Scenario id -> playbook, in the order the router considers them. */
    scenarios: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/), Playbook).refine((m) => Object.keys(m).length > 0, 'must hold at least one scenario'),
    /** Used when nothing specific matches: a general health check rather than a guess. */
    generalHealth: Playbook,
  })
  .strict();
export type ScenarioCatalogData = z.infer<typeof ScenarioCatalogData>;

const DATA = readVersionedData(SCENARIO_CATALOG_PATH, ScenarioCatalogData);

export const SCENARIO_CATALOG_VERSION = DATA.version;

export const SCENARIO_CATALOG: readonly ScenarioPlaybook[] = Object.entries(DATA.scenarios).map(([scenario, p]) => ({ scenario, ...p }));

export const GENERAL_HEALTH: ScenarioPlaybook = { scenario: 'general-health', ...DATA.generalHealth };

export const MAX_SCENARIOS_PER_RUN = 3;
