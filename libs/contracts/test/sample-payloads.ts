/**
 * One valid sample payload per topic, keyed by versioned topic name, for tests of the contracts and
 * of anything that consumes or produces them. Every sample parses with the zod schema of its topic
 * and validates against the generated JSON Schema (libs/contracts/src/json-schema.spec.ts checks both).
 *
 *   samplePayload(Topics.runPublished.name)       a fresh deep copy, safe to mutate
 *   sampleEnvelope(Topics.runPublished.name)      envelope metadata + that payload, as on the wire
 */
import { createHash } from 'node:crypto';
import {
  type DeadLetterV1,
  type DiagnosisHandoffConsumedV1,
  type EnvelopeMeta,
  type EvaluationJudgedV1,
  type EvidenceBatchMaterializedV1,
  type EvidenceBatchPlannedV1,
  type EvidenceCatalogListedV1,
  type EvidenceCatalogRequestedV1,
  type ProviderInventoryListedV1,
  type EvidenceRequestedV1,
  type OptimizerCandidateEnqueuedV2,
  type RunExecutionRecordedV1,
  type RunPublishedV1,
  type ScenarioSelectedV1,
  type TicketAnalysisRequestedV1,
  type TicketTimelineUpdatedV1,
  Topics,
  findTopic,
} from '../src';

export const SAMPLE_RUN_ID = 'run-2025-01-01-sup-1042-01';
export const SAMPLE_TICKET_KEY = 'SUP-1042';
export const SAMPLE_SCENARIO_ID = 'latency-regression-1';
export const SAMPLE_MESSAGE_ID = '5b1c9a5e-7c1f-4f7e-9c59-2f7d0c1e8a41';

const WINDOW = { from: '2025-01-01T09:40:00Z', to: '2025-01-01T10:40:00Z' };
const CUSTOMER_REPLY = 'p99 latency on cluster prod-eu-1 doubled at 10:40 UTC when TiKV write stalls started; we are tracking it.';
const INTERNAL_HANDOFF = 'Evidence: write stall count rose from 0 to 41 at 10:40. Gap owner: storage on-call. Escalate if stalls persist 30 min.';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export const SAMPLE_ANSWER_FINGERPRINT = sha256Hex(`${CUSTOMER_REPLY}\u0000${INTERNAL_HANDOFF}`);

const ticketAnalysisRequested: TicketAnalysisRequestedV1 = {
  runId: SAMPLE_RUN_ID,
  ticketKey: SAMPLE_TICKET_KEY,
  mode: 'read',
  trigger: 'initial',
  requestedAt: '2025-01-01T10:45:00Z',
  cutoff: null,
  ticket: {
    key: SAMPLE_TICKET_KEY,
    title: 'p99 latency doubled on cluster prod-eu-1 since 10:40',
    description: 'Our p99 read latency went from 20ms to 40ms at around 10:40 UTC.',
    reporterRole: 'customer',
    createdAt: '2025-01-01T10:44:00Z',
    labels: ['latency'],
    comments: [
      {
        id: 'c-1',
        authorRole: 'customer',
        visibility: 'public',
        createdAt: '2025-01-01T10:44:30Z',
        body: 'It started right after our batch job.',
      },
    ],
  },
};

const scenarioSelected: ScenarioSelectedV1 = {
  runId: SAMPLE_RUN_ID,
  ticketKey: SAMPLE_TICKET_KEY,
  scenarioId: SAMPLE_SCENARIO_ID,
  scenario: 'latency-regression',
  catalogVersion: '2025.01.1',
  entity: { kind: 'cluster', id: 'prod-eu-1' },
  window: WINDOW,
  provider: 'clinic',
  target: 'prod-eu-1',
  reason: 'The customer reports a latency step at 10:40 right after a batch job; write stalls are a likely cause.',
};

const evidenceRequested: EvidenceRequestedV1 = {
  runId: SAMPLE_RUN_ID,
  ticketKey: SAMPLE_TICKET_KEY,
  scenarioId: SAMPLE_SCENARIO_ID,
  requestId: 'req-1',
  question: 'How did p99 read latency and TiKV write stall counts change between 10:20 and 10:40?',
  stopCondition: 'Both series are available for the window, or the provider reports them missing.',
  provider: 'clinic',
  target: 'prod-eu-1',
  window: WINDOW,
  refinement: false,
};

const evidenceCatalogRequested: EvidenceCatalogRequestedV1 = { runId: SAMPLE_RUN_ID, request: { ...evidenceRequested, provider: 'prometheus' } };

const evidenceCatalogListed: EvidenceCatalogListedV1 = {
  runId: SAMPLE_RUN_ID,
  request: { ...evidenceRequested, provider: 'prometheus' },
  status: 'listed',
  targetLabel: 'cluster',
  metrics: [
    { name: 'aws_rds_database_connections_average', labelKeys: ['cluster', 'dbinstance_identifier'], series: 1 },
    { name: 'aws_rds_free_storage_space_minimum', labelKeys: ['cluster', 'dbinstance_identifier'], series: 1 },
  ],
  truncated: false,
  failureCode: null,
  operations: ['promql_range', 'promql_instant', 'sql', 'logs'],
  logsLabel: 'cluster',
};

const providerInventoryListed: ProviderInventoryListedV1 = {
  provider: 'prometheus',
  listedAt: '2025-01-01T10:00:00Z',
  status: 'listed',
  targets: [{ target: 'payments-prod', aliases: [] }, { target: 'prod-eu-1', aliases: [] }],
  truncated: false,
  failureCode: null,
};

const evidenceBatchPlanned: EvidenceBatchPlannedV1 = {
  runId: SAMPLE_RUN_ID,
  ticketKey: SAMPLE_TICKET_KEY,
  scenarioId: SAMPLE_SCENARIO_ID,
  requestId: 'req-1',
  batchId: 'batch-1',
  planRevision: 0,
  provider: 'clinic',
  target: 'prod-eu-1',
  window: WINDOW,
  queries: [
    {
      id: 'q1-p99-latency',
      operation: 'promql_range',
      expression: 'histogram_quantile(0.99, sum(rate(tidb_server_handle_query_duration_seconds_bucket[1m])) by (le))',
      purpose: 'p99 query latency over the window',
      stepSeconds: 60,
    },
    {
      id: 'q2-write-stall',
      operation: 'promql_range',
      expression: 'sum(rate(tikv_engine_write_stall[1m]))',
      purpose: 'TiKV write stall rate',
      window: { from: '2025-01-01T10:20:00Z', to: '2025-01-01T10:40:00Z' },
    },
  ],
  plannerNotes: '',
};

const evidenceBatchMaterialized: EvidenceBatchMaterializedV1 = {
  runId: SAMPLE_RUN_ID,
  scenarioId: SAMPLE_SCENARIO_ID,
  requestId: 'req-1',
  batchId: 'batch-1',
  provider: 'clinic',
  window: WINDOW,
  status: 'partial',
  queries: [
    { queryId: 'q1-p99-latency', outcome: 'complete', attempts: 1 },
    { queryId: 'q2-write-stall', outcome: 'failed', attempts: 2 },
  ],
  facts: [
    {
      queryId: 'q1-p99-latency',
      kind: 'metric_summary',
      subject: 'p99 query latency',
      value: 0.041,
      unit: 's',
      attributes: { baseline: 0.02, changedAt: '2025-01-01T10:40:00Z' },
    },
  ],
  handoff: {
    observations: ['p99 query latency rose from 20ms to 41ms at 10:40.'],
    gaps: ['Write stall rate could not be read.'],
  },
  failures: [{ queryId: 'q2-write-stall', code: 'PROVIDER.HTTP_5XX', detail: 'metrics endpoint returned 503', supplemental: false }],
  execution: {
    queryEvents: [{ queryId: 'q2-write-stall', outcome: 'failed', supplemental: false, at: '2025-01-01T10:46:00Z' }],
    httpAttempts: [{ queryId: 'q2-write-stall', statusClass: '500', at: '2025-01-01T10:46:00Z' }],
    systemEvents: [{ queryId: 'q2-write-stall', statusSequence: [503, 503, 503], result: 'failed', upstreamError: 'service unavailable', requestId: null, at: '2025-01-01T10:46:02Z' }],
    toolCalls: [{ callId: 'call-1', tool: 'clinic_evidence_batch', operations: ['metrics'], target: 'org-1/cluster-1', window: { from: '2025-01-01T10:00:00Z', to: '2025-01-01T11:00:00Z' }, outcome: 'failure', errorCode: 'PROVIDER.HTTP_5XX', durationMs: 1200, outputBytes: 180, startedAt: '2025-01-01T10:46:00Z' }],
  },
};

const diagnosisHandoffConsumed: DiagnosisHandoffConsumedV1 = {
  outcome: 'brief',
  runId: SAMPLE_RUN_ID,
  ticketKey: SAMPLE_TICKET_KEY,
  scenarioId: SAMPLE_SCENARIO_ID,
  batchId: 'batch-1',
  brief: {
    observations: ['p99 query latency rose from 20ms to 41ms at 10:40.'],
    counterObservations: ['QPS stayed flat.'],
    hypotheses: [], leadingMechanism: { mode: null,
      statement: 'A batch job saturated TiKV writes and stalled foreground reads.',
      strength: 'moderate',
      openLink: 'Write stall counts were not readable.',
      family: null,
    },
    strongestAlternative: 'A hot region from a skewed key range.',
    workloadAttribution: null,
    mitigationOrHandoff: 'Throttle the batch job; storage on-call to confirm write stalls.',
    severity: 'medium',
    undetermined: ['Whether write stalls occurred.'],
  },
};

const runPublished: RunPublishedV1 = {
  runId: SAMPLE_RUN_ID,
  ticketKey: SAMPLE_TICKET_KEY,
  tenant: 'default',
  mode: 'read',
  trigger: 'initial',
  publishedAt: '2025-01-01T11:02:00Z',
  cutoff: null,
  customerReplyMarkdown: CUSTOMER_REPLY,
  internalHandoffMarkdown: INTERNAL_HANDOFF,
  decision: 'internal_only',
  answerFingerprint: SAMPLE_ANSWER_FINGERPRINT,
  clarificationSimulation: { required: false, requestedContext: [] },
};

const runExecutionRecorded: RunExecutionRecordedV1 = {
  runId: SAMPLE_RUN_ID,
  ticketKey: SAMPLE_TICKET_KEY,
  recordedAt: '2025-01-01T11:02:01Z',
  responseGeneration: { status: 'succeeded', engine: 'builtin' },
  evidenceAcquisition: { status: 'degraded', capability: 'full', providers: ['clinic'] },
  failureCodes: ['PROVIDER.HTTP_5XX'],
  providerAttempts: [
    { scenarioId: SAMPLE_SCENARIO_ID, queryId: 'q2-write-stall', attempt: 1, outcome: 'failed', errorCode: 'PROVIDER.HTTP_5XX' },
  ],
  providerQueryEvents: [
    { scenarioId: SAMPLE_SCENARIO_ID, queryId: 'q2-write-stall', provider: 'clinic', outcome: 'failed', supplemental: false, at: '2025-01-01T10:46:00Z' },
  ],
  providerHttpAttempts: [
    { scenarioId: SAMPLE_SCENARIO_ID, queryId: 'q2-write-stall', provider: 'clinic', statusClass: '502', at: '2025-01-01T10:46:00Z' },
    { scenarioId: SAMPLE_SCENARIO_ID, queryId: 'q2-write-stall', provider: 'clinic', statusClass: '500', at: '2025-01-01T10:46:01Z' },
  ],
  providerSystemEvents: [
    {
      scenarioId: SAMPLE_SCENARIO_ID,
      queryId: 'q2-write-stall',
      provider: 'clinic',
      statusSequence: [502, 500, 500],
      result: 'failed',
      upstreamError: 'upstream timeout',
      requestId: 'req-123',
      at: '2025-01-01T10:46:02Z',
    },
  ],
  providerToolCalls: [{ scenarioId: SAMPLE_SCENARIO_ID, provider: 'clinic', callId: 'call-1', tool: 'clinic_evidence_batch', operations: ['metrics'], target: 'org-1/cluster-1', window: { from: '2025-01-01T10:00:00Z', to: '2025-01-01T11:00:00Z' }, outcome: 'failure', errorCode: 'PROVIDER.HTTP_5XX', durationMs: 1200, outputBytes: 180, startedAt: '2025-01-01T10:46:00Z' }],
};

const ticketTimelineUpdated: TicketTimelineUpdatedV1 = {
  ticketKey: SAMPLE_TICKET_KEY,
  observedAt: '2025-01-01T12:00:00Z',
  revision: 3,
  comments: [
    {
      id: 'c-2',
      authorRole: 'support',
      visibility: 'public',
      createdAt: '2025-01-01T11:30:00Z',
      updatedAt: '2025-01-01T11:30:00Z',
      body: 'The batch job caused write stalls; we throttled it.',
      visibleToAi: true,
      feedback: null,
    },
    {
      id: 'c-3',
      authorRole: 'support',
      visibility: 'internal',
      createdAt: '2025-01-01T11:35:00Z',
      updatedAt: '2025-01-01T11:36:00Z',
      body: '/ao accept matches what we found',
      visibleToAi: false,
      feedback: { action: 'accept', reason: 'matches what we found' },
    },
  ],
};

const evaluationJudged: EvaluationJudgedV1 = {
  evaluationId: 'eval-1',
  revision: 1,
  supersedesEvaluationId: null,
  runId: SAMPLE_RUN_ID,
  ticketKey: SAMPLE_TICKET_KEY,
  answerFingerprint: SAMPLE_ANSWER_FINGERPRINT,
  judgedAt: '2025-01-01T12:05:00Z',
  judgeEngine: 'builtin-rubric',
  verdict: 'equivalent',
  abstentionCode: null,
  verdictReason: 'Both answers attribute the regression to the batch job.',
  qualityScore: 1,
  aiGaps: [],
  keyDifferences: ['The human answer confirms the throttle was applied.'],
  aiStrengths: ['Names the exact time of the step.'],
  internalHandoffGaps: [],
  targetHumanCommentIds: ['c-2'],
  referenceComments: [{ id: 'c-2', createdAt: '2025-01-01T11:30:00Z', bodyDigest: sha256Hex('The batch job caused write stalls; we throttled it.') }],
  humanAnswerMarkdown: 'The batch job caused write stalls; we throttled it.',
  // eligibility left out: the shared sample stays an older message (tests derive other verdicts from it); see eligibilityOf.
  feedbackContest: null,
};

const optimizerCandidateEnqueued: OptimizerCandidateEnqueuedV2 = {
  candidateId: 'cand:0123456789abcdef0123456789abcdef',
  focusId: 'focus-0123456789ab',
  attempt: 1,
  enqueuedAt: '2025-01-02T08:00:00Z',
  baseVersion: 'data:0123456789abcdef0123456789abcdef',
  proposer: 'builtin-tunable-search-v1',
  problemStatement: 'On 2 tickets the human answer attributes the incident to lock waits and the published answer leads with something else.',
  blockingCriterionId: 'lead-lock-waits',
  edits: [{ path: 'services/router/data/family-rules.json', pointer: '/drives/lock_waits', valueJson: '["active_sessions","cpu"]', because: 'lock_waits usually drives cpu' }],
  diff: '--- a/services/router/data/family-rules.json\n+++ b/services/router/data/family-rules.json\n',
  gate: {
    status: 'accepted',
    reason: 'the blocking criterion is met on all 2 targets (2 fixed)',
    rows: [{ caseId: 'SUP-1042', role: 'target', criterionId: 'lead-lock-waits', blocking: true, baseline: 'gap', challenger: 'met', transition: 'fixed' }],
    replayedCases: 2,
    regressions: 0,
    controlRegressions: 0,
    followUpGaps: 0,
  },
  evidenceRefs: ['sig_0123456789abcdef0123456789abcdef'],
  commit: { branch: 'aoc/focus-0123456789ab/attempt-1', sha: '0123456789abcdef0123456789abcdef01234567' },
};

/** One valid sample payload per topic, keyed by versioned topic name. Treat as read-only; use samplePayload(). */
export const SAMPLE_PAYLOADS: Readonly<Record<string, unknown>> = Object.freeze({
  [Topics.ticketAnalysisRequested.name]: ticketAnalysisRequested,
  [Topics.scenarioSelected.name]: scenarioSelected,
  [Topics.evidenceRequested.name]: evidenceRequested,
  [Topics.evidenceBatchPlanned.name]: evidenceBatchPlanned,
  [Topics.evidenceBatchMaterialized.name]: evidenceBatchMaterialized,
  [Topics.diagnosisHandoffConsumed.name]: diagnosisHandoffConsumed,
  [Topics.runPublished.name]: runPublished,
  [Topics.runExecutionRecorded.name]: runExecutionRecorded,
  [Topics.ticketTimelineUpdated.name]: ticketTimelineUpdated,
  [Topics.evaluationJudged.name]: evaluationJudged,
  [Topics.optimizerCandidateEnqueued.name]: optimizerCandidateEnqueued,
  [Topics.evidenceCatalogRequested.name]: evidenceCatalogRequested,
  [Topics.evidenceCatalogListed.name]: evidenceCatalogListed,
  [Topics.providerInventoryListed.name]: providerInventoryListed,
});

/** A fresh deep copy of the sample payload of `topicName`; throws for a topic without a sample. */
export function samplePayload(topicName: string): unknown {
  const sample = SAMPLE_PAYLOADS[topicName];
  if (sample === undefined) {
    throw new Error(`no sample payload for topic "${topicName}"; known: ${Object.keys(SAMPLE_PAYLOADS).join(', ')}`);
  }
  return structuredClone(sample);
}

/** Sample payload as a mutable record, for tests that add or delete fields. */
export function samplePayloadRecord(topicName: string): Record<string, unknown> {
  return samplePayload(topicName) as Record<string, unknown>;
}

/** Valid envelope metadata for `topicName` (producer: the topic's first producer). */
export function sampleEnvelopeMeta(topicName: string, overrides: Partial<EnvelopeMeta> = {}): EnvelopeMeta {
  const topic = findTopic(topicName);
  if (!topic) throw new Error(`unknown topic "${topicName}"`);
  const payload = samplePayloadRecord(topicName);
  const producer = topic.producers[0];
  if (!producer) throw new Error(`topic "${topicName}" has no producer`);
  const meta: EnvelopeMeta = {
    messageId: SAMPLE_MESSAGE_ID,
    idempotencyKey: `${topicName}:${String(payload[topic.keyField])}`,
    schema: { topic: topic.name, version: topic.version },
    producedAt: '2025-01-01T12:00:00.000Z',
    producer,
  };
  if (typeof payload['runId'] === 'string') meta.runId = payload['runId'];
  if (typeof payload['ticketKey'] === 'string') meta.ticketKey = payload['ticketKey'];
  return { ...meta, ...overrides };
}

/** A whole wire message (envelope metadata + payload) for `topicName`. */
export function sampleEnvelope(topicName: string, overrides: Partial<EnvelopeMeta> = {}): EnvelopeMeta & { payload: unknown } {
  return { ...sampleEnvelopeMeta(topicName, overrides), payload: samplePayload(topicName) };
}

/** A valid dead letter for the sample message of `topicName`. */
export function sampleDeadLetter(topicName: string): DeadLetterV1 {
  const topic = findTopic(topicName);
  if (!topic) throw new Error(`unknown topic "${topicName}"`);
  const envelope = sampleEnvelope(topicName);
  return {
    originalTopic: topic.name,
    originalKey: String((envelope.payload as Record<string, unknown>)[topic.keyField]),
    originalValue: JSON.stringify(envelope),
    originalValueTruncated: false,
    originalHeaders: { 'aoc-schema': topic.name },
    messageId: envelope.messageId,
    consumerGroup: `aoc.${topic.consumers[0] ?? 'external'}.main`,
    errorCode: 'BUS.SCHEMA_INVALID',
    reason: 'payload.question: Required',
    attempts: 1,
    deadLetteredAt: '2025-01-01T12:00:01Z',
    runId: envelope.runId ?? null,
  };
}
