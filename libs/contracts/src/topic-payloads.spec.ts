import { z } from 'zod';
import { samplePayloadRecord, sha256Hex } from '../test/sample-payloads';
import { Verdict } from './common';
import { Topics } from './registry';
import { LocalCausalBriefV1 } from './topics/diagnosis-handoff-consumed/diagnosis-handoff-consumed.schema';
import { EvaluationJudgedV1, expectedQualityScore } from './topics/evaluation-judged/evaluation-judged.schema';
import { EvidenceBatchPlannedV1, MAX_QUERIES_PER_BATCH } from './topics/evidence-batch-planned/evidence-batch-planned.schema';
import { EvidenceRequestedV1 } from './topics/evidence-requested/evidence-requested.schema';
import { RunExecutionRecordedV1 } from './topics/run-execution-recorded/run-execution-recorded.schema';
import { RunPublishedV1 } from './topics/run-published/run-published.schema';

type Issues = { path: string; code: string; message: string; keys?: string[] }[];

function issues(schema: z.ZodType, value: unknown): Issues {
  const r = schema.safeParse(value);
  if (r.success) return [];
  return r.error.issues.map((i) => ({
    path: i.path.join('.'),
    code: i.code,
    message: i.message,
    keys: 'keys' in i ? (i.keys as string[]) : undefined,
  }));
}

describe('evidence.requested v1: one neutral question, no reason, no hypothesis', () => {
  const sample = () => samplePayloadRecord(Topics.evidenceRequested.name);

  it('accepts the sample', () => {
    expect(issues(EvidenceRequestedV1, sample())).toEqual([]);
  });

  it.each(['reason', 'hypothesis', 'strongestAlternative', 'scenario'])('rejects a %s field (strict)', (field) => {
    const found = issues(EvidenceRequestedV1, { ...sample(), [field]: 'write stalls caused the regression' });
    expect(found).toHaveLength(1);
    expect(found[0]?.code).toBe('unrecognized_keys');
    expect(found[0]?.keys).toEqual([field]);
  });

  it('has no field that could carry a reason or a hypothesis', () => {
    const fields = Object.keys(EvidenceRequestedV1.shape);
    expect(fields.filter((f) => /reason|hypothes|alternative|mechanism|cause/i.test(f))).toEqual([]);
  });

  it('rejects a window whose from is not before to', () => {
    const found = issues(EvidenceRequestedV1, { ...sample(), window: { from: '2025-01-01T10:40:00Z', to: '2025-01-01T10:40:00Z' } });
    expect(found.map((i) => i.path)).toEqual(['window.from']);
  });
});

describe('run.published v1: both messages, decision, fingerprint, no execution state', () => {
  const sample = () => samplePayloadRecord(Topics.runPublished.name);
  const executionOnly = Object.keys(RunExecutionRecordedV1.shape).filter((k) => k !== 'runId' && k !== 'ticketKey');

  it('accepts the sample', () => {
    expect(issues(RunPublishedV1, sample())).toEqual([]);
  });

  it('declares none of the execution fields of run.execution-recorded', () => {
    expect(executionOnly).toEqual(expect.arrayContaining(['failureCodes', 'evidenceAcquisition', 'providerAttempts', 'providerQueryEvents', 'providerHttpAttempts', 'providerSystemEvents']));
    expect(Object.keys(RunPublishedV1.shape).filter((k) => executionOnly.includes(k))).toEqual([]);
  });

  it.each(['failureCodes', 'evidenceAcquisition', 'responseGeneration', 'providerAttempts', 'providerQueryEvents', 'providerHttpAttempts', 'providerSystemEvents'])(
    'rejects the execution field %s (strict)',
    (field) => {
      const execution = samplePayloadRecord(Topics.runExecutionRecorded.name);
      const found = issues(RunPublishedV1, { ...sample(), [field]: execution[field] });
      expect(found).toHaveLength(1);
      expect(found[0]?.code).toBe('unrecognized_keys');
      expect(found[0]?.keys).toEqual([field]);
    },
  );

  it.each(['customerReplyMarkdown', 'internalHandoffMarkdown', 'decision', 'answerFingerprint'])('requires %s', (field) => {
    const payload = sample();
    delete payload[field];
    expect(issues(RunPublishedV1, payload).map((i) => i.path)).toEqual([field]);
  });

  it.each(['customerReplyMarkdown', 'internalHandoffMarkdown'])('rejects an empty %s', (field) => {
    expect(issues(RunPublishedV1, { ...sample(), [field]: '' }).map((i) => i.path)).toEqual([field]);
  });

  it('accepts every decision and rejects unknown ones', () => {
    for (const decision of ['internal_only', 'human_required', 'clarification_needed']) {
      expect(issues(RunPublishedV1, { ...sample(), decision })).toEqual([]);
    }
    expect(issues(RunPublishedV1, { ...sample(), decision: 'publish' }).map((i) => i.path)).toEqual(['decision']);
  });

  it('requires answerFingerprint to be a lower-case sha256 hex digest', () => {
    expect(issues(RunPublishedV1, { ...sample(), answerFingerprint: sha256Hex('anything') })).toEqual([]);
    const good = sha256Hex('x');
    for (const bad of [good.toUpperCase(), good.slice(1), `${good}0`, `sha256:${good}`, 'g'.repeat(64), '', 'md5-like-0123']) {
      expect(issues(RunPublishedV1, { ...sample(), answerFingerprint: bad }).map((i) => i.path)).toEqual(['answerFingerprint']);
    }
  });
});

describe('evaluation.judged v1', () => {
  const VERDICTS = ['ai_better', 'equivalent', 'different_but_valid', 'human_better', 'not_compared'];
  const sample = () => samplePayloadRecord(Topics.evaluationJudged.name);

  it('has exactly the five verdicts', () => {
    expect([...Verdict.options].sort()).toEqual([...VERDICTS].sort());
    expect(EvaluationJudgedV1.shape.verdict.options.length).toBe(VERDICTS.length);
  });

  it.each(VERDICTS)('accepts verdict %s with its quality projection', (verdict) => {
    expect(issues(EvaluationJudgedV1, { ...sample(), verdict, qualityScore: expectedQualityScore(verdict as Verdict) })).toEqual([]);
  });

  it('rejects a quality score that does not follow the verdict', () => {
    expect(issues(EvaluationJudgedV1, { ...sample(), verdict: 'human_better', qualityScore: 1 })).toEqual([
      expect.objectContaining({ path: 'qualityScore' }),
    ]);
    expect(issues(EvaluationJudgedV1, { ...sample(), verdict: 'not_compared', qualityScore: 0 })).toEqual([
      expect.objectContaining({ path: 'qualityScore' }),
    ]);
  });

  it.each(['better', 'AI_BETTER', 'equal', '', null])('rejects verdict %p', (verdict) => {
    expect(issues(EvaluationJudgedV1, { ...sample(), verdict }).map((i) => i.path)).toEqual(['verdict']);
  });

  it('requires a sha256 answer fingerprint binding the verdict to one answer version', () => {
    expect(issues(EvaluationJudgedV1, { ...sample(), answerFingerprint: 'abc' }).map((i) => i.path)).toEqual(['answerFingerprint']);
  });
});

describe('evidence.batch-planned v1: bounded, validated-shape plan', () => {
  const sample = () => samplePayloadRecord(Topics.evidenceBatchPlanned.name);
  const query = (id: string) => ({ id, operation: 'promql_instant', expression: 'up', purpose: 'liveness' });
  const withQueries = (n: number) => ({ ...sample(), queries: Array.from({ length: n }, (_, i) => query(`q${i + 1}`)) });

  it('accepts the sample and exactly 12 queries', () => {
    expect(MAX_QUERIES_PER_BATCH).toBe(12);
    expect(issues(EvidenceBatchPlannedV1, sample())).toEqual([]);
    expect(issues(EvidenceBatchPlannedV1, withQueries(12))).toEqual([]);
  });

  it('rejects 13 queries', () => {
    const found = issues(EvidenceBatchPlannedV1, withQueries(13));
    expect(found.map((i) => i.path)).toEqual(['queries']);
    expect(found[0]?.code).toBe('too_big');
  });

  it('rejects duplicate query ids', () => {
    const found = issues(EvidenceBatchPlannedV1, { ...sample(), queries: [query('q1'), query('q2'), query('q1')] });
    expect(found.map((i) => i.path)).toEqual(['queries']);
    expect(found[0]?.message).toMatch(/unique/);
  });

  it.each(['../etc/passwd', 'Q1', 'a b', 'q1;drop', '', 'x'.repeat(65), '-q1', '_q1', 'q.1', 'qü', 'q1\n'])('rejects the unsafe query id %p', (id) => {
    const found = issues(EvidenceBatchPlannedV1, { ...sample(), queries: [query(id)] });
    expect(found.map((i) => i.path)).toEqual(['queries.0.id']);
  });

  it.each(['q1', 'p99-latency', 'write_stall_2', 'x'.repeat(64)])('accepts the safe query id %p', (id) => {
    expect(issues(EvidenceBatchPlannedV1, { ...sample(), queries: [query(id)] })).toEqual([]);
  });

  it('allows one structural rewrite only and rejects unknown fields', () => {
    expect(issues(EvidenceBatchPlannedV1, { ...sample(), planRevision: 1 })).toEqual([]);
    expect(issues(EvidenceBatchPlannedV1, { ...sample(), planRevision: 2 }).map((i) => i.path)).toEqual(['planRevision']);
    expect(issues(EvidenceBatchPlannedV1, { ...sample(), hypothesis: 'x' })[0]?.code).toBe('unrecognized_keys');
  });

  it('rejects an operation that is not a read-only provider operation', () => {
    const found = issues(EvidenceBatchPlannedV1, { ...sample(), queries: [{ ...query('q1'), operation: 'sql_write' }] });
    expect(found.map((i) => i.path)).toEqual(['queries.0.operation']);
  });
});

describe('diagnosis.handoff-consumed v1: local causal brief limits', () => {
  const brief = () => (samplePayloadRecord(Topics.diagnosisHandoffConsumed.name)['brief'] as Record<string, unknown>);

  it('allows at most 4 observations and 3 counter-observations', () => {
    expect(issues(LocalCausalBriefV1, { ...brief(), observations: ['a', 'b', 'c', 'd'], counterObservations: ['a', 'b', 'c'] })).toEqual([]);
    expect(issues(LocalCausalBriefV1, { ...brief(), observations: ['a', 'b', 'c', 'd', 'e'] }).map((i) => i.path)).toEqual(['observations']);
    expect(issues(LocalCausalBriefV1, { ...brief(), counterObservations: ['a', 'b', 'c', 'd'] }).map((i) => i.path)).toEqual([
      'counterObservations',
    ]);
  });
});
