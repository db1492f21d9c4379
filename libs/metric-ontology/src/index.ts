export { METRIC_FAMILY_IDS, METRIC_UNITS, METRIC_KINDS, METRIC_SOURCES, parseOntology } from './ontology-schema';
export type { BadDirection, MetricFamilyId, MetricKind, MetricSource, MetricUnit, OntologyData } from './ontology-schema';
export { ONTOLOGY_VERSION, METRIC_FAMILIES, metricFamily, familyLabel, isMetricFamilyId, familyWords } from './ontology';
export type { MetricFamily } from './ontology';
export { classifyMetric, labelSplits } from './classify';
export type { LabelSplit, MetricAggregation, MetricClassification } from './classify';
export { sanitizeMetricName } from './sanitize';
export { familiesInText, firstFamilyInText } from './families-in-text';
export type { FamilyMention } from './families-in-text';
