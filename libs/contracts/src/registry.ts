import { dlqTopicOf } from './envelope';
import type { Role } from './roles';
import { ROLES } from './roles';
import type { TopicDefinition } from './topic-definition';
import { diagnosisHandoffConsumedTopic } from './topics/diagnosis-handoff-consumed/diagnosis-handoff-consumed.schema';
import { evaluationJudgedTopic } from './topics/evaluation-judged/evaluation-judged.schema';
import { evidenceBatchMaterializedTopic } from './topics/evidence-batch-materialized/evidence-batch-materialized.schema';
import { evidenceCatalogListedTopic } from './topics/evidence-catalog-listed/evidence-catalog-listed.schema';
import { evidenceCatalogRequestedTopic } from './topics/evidence-catalog-requested/evidence-catalog-requested.schema';
import { evidenceBatchPlannedTopic } from './topics/evidence-batch-planned/evidence-batch-planned.schema';
import { evidenceRequestedTopic } from './topics/evidence-requested/evidence-requested.schema';
import { optimizerCandidateEnqueuedTopic } from './topics/optimizer-candidate-enqueued/optimizer-candidate-enqueued.schema';
import { providerInventoryListedTopic } from './topics/provider-inventory-listed/provider-inventory-listed.schema';
import { runExecutionRecordedTopic } from './topics/run-execution-recorded/run-execution-recorded.schema';
import { runPublishedTopic } from './topics/run-published/run-published.schema';
import { scenarioSelectedTopic } from './topics/scenario-selected/scenario-selected.schema';
import { ticketAnalysisRequestedTopic } from './topics/ticket-analysis-requested/ticket-analysis-requested.schema';
import { ticketTimelineUpdatedTopic } from './topics/ticket-timeline-updated/ticket-timeline-updated.schema';

/** Named handles so code refers to topics by constant, never by string. */
export const Topics = {
  ticketAnalysisRequested: ticketAnalysisRequestedTopic,
  scenarioSelected: scenarioSelectedTopic,
  evidenceRequested: evidenceRequestedTopic,
  evidenceCatalogRequested: evidenceCatalogRequestedTopic,
  evidenceCatalogListed: evidenceCatalogListedTopic,
  evidenceBatchPlanned: evidenceBatchPlannedTopic,
  evidenceBatchMaterialized: evidenceBatchMaterializedTopic,
  diagnosisHandoffConsumed: diagnosisHandoffConsumedTopic,
  runPublished: runPublishedTopic,
  runExecutionRecorded: runExecutionRecordedTopic,
  ticketTimelineUpdated: ticketTimelineUpdatedTopic,
  evaluationJudged: evaluationJudgedTopic,
  optimizerCandidateEnqueued: optimizerCandidateEnqueuedTopic,
  providerInventoryListed: providerInventoryListedTopic,
} as const;

export const TOPIC_REGISTRY: readonly TopicDefinition[] = Object.values(Topics);

const byName = new Map<string, TopicDefinition>(TOPIC_REGISTRY.map((t) => [t.name, t]));

export function findTopic(name: string): TopicDefinition | undefined {
  return byName.get(name);
}

/** Every version of a base name known to this build, e.g. for "unknown schema version" errors. */
export function knownVersionsOf(baseName: string): number[] {
  return TOPIC_REGISTRY.filter((t) => t.baseName === baseName).map((t) => t.version);
}

export interface RoleGrant {
  role: Role;
  publish: string[];
  subscribe: string[];
  /** Dead-letter topics the role writes to: the DLQ of each topic it consumes. */
  deadLetter: string[];
}

/** What one role may do on a set of topics: publish, subscribe, and write the DLQs of what it consumes. */
export function grantFor(topics: readonly TopicDefinition[], role: Role): RoleGrant {
  const subscribe = topics.filter((t) => t.consumers.includes(role)).map((t) => t.name);
  return {
    role,
    publish: topics.filter((t) => t.producers.includes(role)).map((t) => t.name),
    subscribe,
    deadLetter: subscribe.map(dlqTopicOf),
  };
}

/** The role/topic ACL matrix. The in-process bus and the broker ACLs are both derived from it. */
export function roleGrants(): RoleGrant[] {
  return ROLES.map((role) => grantFor(TOPIC_REGISTRY, role));
}

export function grantOf(role: Role): RoleGrant {
  const grant = roleGrants().find((g) => g.role === role);
  if (!grant) throw new Error(`unknown role ${role}`);
  return grant;
}
