import { samplePayloadRecord } from '../../../test/sample-payloads';
import { Topics } from '../../registry';
import { EvaluationJudgedV1, eligibilityOf } from './evaluation-judged.schema';

const sample = () => samplePayloadRecord(Topics.evaluationJudged.name);
const paths = (value: unknown) => {
  const r = EvaluationJudgedV1.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
};

describe('evaluation.judged eligibility and feedback contest', () => {
  it('a message without the new fields (written before them) still parses; its eligibility is derived from verdict and code', () => {
    const older = { ...sample(), eligibility: undefined, feedbackContest: undefined };
    const parsed = EvaluationJudgedV1.parse(older);
    expect(parsed.eligibility).toBeUndefined();
    expect(eligibilityOf(parsed)).toBe('compared');
    expect(eligibilityOf({ verdict: 'not_compared', abstentionCode: 'JUDGE.HUMAN_ANSWER_EMPTY' })).toBe('no_human_answer');
    expect(eligibilityOf({ verdict: 'not_compared', abstentionCode: 'JUDGE.NEEDS_MODEL', eligibility: undefined })).toBe('undecided');
  });

  it('eligibility is compared exactly when a verdict was given', () => {
    expect(paths({ ...sample(), eligibility: 'compared' })).toEqual([]);
    expect(paths({ ...sample(), eligibility: 'no_human_answer' })).toEqual(['eligibility']);
    expect(paths({ ...sample(), verdict: 'not_compared', qualityScore: null, abstentionCode: 'JUDGE.HUMAN_ANSWER_EMPTY', eligibility: 'compared' })).toEqual(['eligibility']);
    expect(paths({ ...sample(), verdict: 'not_compared', qualityScore: null, abstentionCode: 'JUDGE.HUMAN_ANSWER_EMPTY', eligibility: 'human_answer_before_cutoff' })).toEqual([]);
    expect(paths({ ...sample(), eligibility: 'maybe' })).toEqual(['eligibility']);
  });

  it('a feedback contest names the /ao comment, its action and at least one evidence comment', () => {
    const contest = { commentId: 'c-ao', action: 'wrong', scope: 'this_version', evidenceCommentIds: ['c-9'] };
    expect(paths({ ...sample(), feedbackContest: contest })).toEqual([]);
    expect(paths({ ...sample(), feedbackContest: null })).toEqual([]);
    expect(paths({ ...sample(), feedbackContest: { ...contest, evidenceCommentIds: [] } })).toEqual(['feedbackContest.evidenceCommentIds']);
  });

  it('a model cross-check is optional (older messages have none), bounded, and only on a decided verdict', () => {
    const older = { ...sample() };
    delete older['crossCheck'];
    expect(EvaluationJudgedV1.parse(older).crossCheck).toBeUndefined();
    const check = { engine: 'openai:judge-xl', verdict: 'human_better', agrees: false, reasonCode: 'covered' };
    expect(paths({ ...sample(), crossCheck: check })).toEqual([]);
    expect(paths({ ...sample(), crossCheck: null })).toEqual([]);
    expect(paths({ ...sample(), crossCheck: { ...check, verdict: 'equivalent', agrees: true } })).toEqual([]);
    expect(paths({ ...sample(), crossCheck: { ...check, verdict: 'not_compared', agrees: null, reasonCode: null } })).toEqual([]);
    // agrees must say what the two verdicts say; null only for a model abstention.
    expect(paths({ ...sample(), crossCheck: { ...check, agrees: true } })).toEqual(['crossCheck.agrees']);
    expect(paths({ ...sample(), crossCheck: { ...check, agrees: null } })).toEqual(['crossCheck.agrees']);
    expect(paths({ ...sample(), crossCheck: { ...check, engine: 'x'.repeat(65) } })).toEqual(['crossCheck.engine']);
    expect(paths({ ...sample(), crossCheck: { ...check, reasonCode: 'Free text from a ticket' } })).toEqual(['crossCheck.reasonCode']);
    expect(paths({ ...sample(), verdict: 'not_compared', qualityScore: null, abstentionCode: 'JUDGE.NEEDS_MODEL', crossCheck: check })).toEqual(['crossCheck']);
  });
});
