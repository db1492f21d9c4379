import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { checkCandidate, dataVersion, VERSIONED_DATA_DIR_ENV, type CandidateDiff } from '@aoc/versioned-data';
import { candidateGate } from '../focus/candidate-gate';
import type { JudgedReplay } from '../run-focus/replay-judging';
import { localDataAccess } from '../run-focus/data-access';
import { criteriaFor, type FocusCandidate } from '../select-focus/focus-selector';
import { dataVersionWith, deployedData } from './data-version';
import { buildRecord, InvalidRecordError, parseRecord, parseRecordJson, parseRecordMarkdown, recordFileName, recordIdOf, recordMarkdown, type OptimizationRecord, type RecordDocument } from './optimization-record';

const RULES = 'services/router/data/family-rules.json';
const data = localDataAccess();
const { blockingCriterionId, criteria } = criteriaFor('lock_waits');
const source = (runId: string) => ({ runId, answerFingerprint: 'f'.repeat(64), cutoff: '2026-11-30T10:00:00.000Z', ticketDigest: 'd', questionDigest: null, referenceComments: [] });
const candidate: FocusCandidate = {
  groupingDigest: 'g'.repeat(64),
  signature: 'quality:lock_waits',
  problemStatement: 'On 2 tickets the human answer attributes the incident to lock waits and the published answer leads with something else.',
  blockingCriterionId,
  criteria,
  targets: ['SUP-1', 'SUP-2'].map((ticketKey) => ({ ticketKey, ref: `sig_${ticketKey === 'SUP-1' ? 'a' : 'b'}${'0'.repeat(31)}`, source: source(`run-${ticketKey}`), statement: 'named "CPU utilisation"; the customer confirmed "lock waits"' })),
  controls: [],
};
const judged = (caseId: string, status: 'met' | 'gap'): JudgedReplay => ({ caseId, role: 'target', executed: true, judgement: { caseId, results: criteria.map((c) => ({ criterionId: c.id, status, reason: 'r' })) }, leadingFamily: status === 'met' ? 'lock_waits' : 'cpu', error: null });
const diff: CandidateDiff = { edits: [{ path: RULES, pointer: '/deviationThreshold', value: 3, because: 'one step down' }] };
const files = checkCandidate(diff, data.manifest, data.read).files ?? new Map<string, string>();

function record(): OptimizationRecord {
  return buildRecord({
    focus: { focusId: 'focus-0123456789ab', focusDigest: 'focus:abc', candidate },
    attempt: 1,
    proposer: 'builtin-search-v1',
    baseVersion: data.baseVersion(),
    candidateDigest: `cand:${'c'.repeat(32)}`,
    diff,
    before: new Map([[RULES, data.read(RULES)]]),
    after: files,
    manifest: data.manifest,
    read: data.read,
    unifiedDiff: '--- a/x\n+++ b/x\n-  "deviationThreshold": 3.5,\n+  "deviationThreshold": 3,',
    gate: candidateGate([judged('SUP-1', 'gap'), judged('SUP-2', 'gap')], [judged('SUP-1', 'met'), judged('SUP-2', 'met')], blockingCriterionId),
    commit: { branch: 'aoc/focus-0123456789ab/attempt-1', sha: 'a'.repeat(40) },
    kinds: new Map([[candidate.targets[0].ref, 'explicit_feedback']]),
    at: new Date('2026-12-01T04:00:00Z'),
  });
}

const doc = (r: OptimizationRecord): RecordDocument => ({ ...r, statuses: r.problems.map((p) => ({ ref: p.ref, status: 'candidate', reason: 'recorded', recordedAt: r.createdAt, deployedAt: null, decidedAt: null, verification: null })) });
/** A copy with one field changed (or removed, with `undefined`). */
function withField(value: unknown, path: (string | number)[], next: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (next === undefined) delete node[last];
  else node[last] = next;
  return copy;
}

describe('optimisation records', () => {
  it('records the problems, the applicability, the tunable diff, the gate table and the data version the candidate produces', () => {
    const r = record();
    expect(r).toMatchObject({ format: 'auto-oncall-optimization-record-v1', schemaVersion: 1, recordId: recordIdOf('focus-0123456789ab', 1, data.baseVersion(), `cand:${'c'.repeat(32)}`) });
    expect(r.problems.map((p) => [p.ticketKey, p.kind, p.cutoff])).toEqual([
      ['SUP-1', 'explicit_feedback', '2026-11-30T10:00:00.000Z'],
      ['SUP-2', 'ai_gap', '2026-11-30T10:00:00.000Z'],
    ]);
    expect(r.applicability).toMatchObject({ signature: 'quality:lock_waits', tickets: ['SUP-1', 'SUP-2'], stages: [data.manifest.files.find((f) => f.path === RULES)?.owner] });
    expect(r.data.changes).toEqual([{ path: RULES, pointer: '/deviationThreshold', surface: 'number /deviationThreshold', before: 3.5, after: 3, because: 'one step down' }]);
    expect(r.data.files[0].beforeDigest).not.toBe(r.data.files[0].afterDigest);
    expect(r.gate.rows.filter((x) => x.blocking).map((x) => x.transition)).toEqual(['fixed', 'fixed']);
    expect(r.data.dataVersion).not.toBe(r.data.baseVersion);
    // The same id for the same Focus, attempt, base and candidate: writing it again is a no-op.
    expect(record().recordId).toBe(r.recordId);
  });

  it('gives the candidate the data version a process reading its files would have', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aoc-record-data-'));
    try {
      for (const [path, text] of files) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      expect(record().data.dataVersion).toBe(dataVersion(data.manifest, { ...process.env, [VERSIONED_DATA_DIR_ENV]: dir }));
      expect(dataVersionWith(data.manifest, data.read)).toBe(data.baseVersion());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a malformed record naming the field', () => {
    const r = record();
    const bad = (path: (string | number)[], value: unknown) => () => parseRecord(withField(r, path, value));
    expect(bad(['data', 'dataVersion'], undefined)).toThrow(/^optimization record: data\.dataVersion: /);
    expect(bad(['data', 'dataVersion'], 'v2')).toThrow(/data\.dataVersion: must be data:<32 hex>/);
    expect(bad(['data', 'dataVersion'], r.data.baseVersion)).toThrow(/data\.dataVersion: must differ from baseVersion/);
    expect(bad(['problems', 1, 'cutoff'], 'yesterday')).toThrow(/problems\.1\.cutoff/);
    expect(bad(['schemaVersion'], 2)).toThrow(/schemaVersion/);
    expect(bad(['recordId'], 'opt-0000000000000000')).toThrow(/recordId: must be the digest of focus, attempt, base version and candidate/);
    expect(bad(['criteria', 'blockingCriterionId'], 'lead-cpu')).toThrow(/criteria\.blockingCriterionId: must be one of criteria\.list/);
    expect(bad(['gate', 'rows'], r.gate.rows.map((x) => ({ ...x, challenger: 'gap' })))).toThrow(/gate\.rows: the blocking criterion must be met on SUP-1/);
    expect(bad(['data', 'changes', 0, 'surface'], undefined)).toThrow(/data\.changes\.0\.surface/);
    expect(bad(['data', 'sneaky'], 1)).toThrow(/data: Unrecognized key: "sneaky"/);
    expect(() => parseRecordJson('{"format": ', 'docs/opts/x.md')).toThrow(/^docs\/opts\/x\.md: \(record\): not JSON/);
    try {
      parseRecord(withField(r, ['focus', 'attempt'], 0));
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidRecordError);
      expect((error as InvalidRecordError).fields).toContain('focus.attempt');
    }
    expect(parseRecordJson(JSON.stringify(r))).toEqual(r);
  });

  it('exports a record as a docs/opts file with one metadata block, and reads it back', () => {
    const d = doc(record());
    const text = recordMarkdown(d);
    expect(recordFileName(d)).toBe(`2026-12-01-${d.recordId}.md`);
    expect(text).toContain(`# Optimisation record ${d.recordId}`);
    expect(text).toContain('| SUP-1 | target | lead-lock-waits (blocking) | gap | met | fixed |');
    expect(parseRecordMarkdown(text)).toEqual(d);
    expect(() => parseRecordMarkdown(`${text}\n${text}`, 'two.md')).toThrow(/^two\.md: \(file\): must hold exactly one/);
    expect(() => parseRecordMarkdown(text.replace('"status": "candidate"', '"status": "deployed"'), 'bad.md')).toThrow(/^bad\.md: statuses\.0\.status/);
    expect(() => parseRecordMarkdown(text.replace(`"ref": "${d.statuses[1].ref}"`, '"ref": "sig_other"'), 'bad.md')).toThrow(/statuses\.1\.ref: must be one of problems\[\]\.ref/);
  });

  it('rebuilds the deployed data from the record when this process reads its base, and says why when it cannot', () => {
    const r = record();
    const edits = r.data.changes.map((c) => ({ path: c.path, pointer: c.pointer, value: c.after, because: c.because }));
    const rebuilt = deployedData({ baseVersion: r.data.baseVersion, dataVersion: r.data.dataVersion, edits }, data);
    expect(rebuilt.kind === 'overlay' && rebuilt.files.get(RULES)).toBe(files.get(RULES));
    expect(deployedData({ baseVersion: 'data:0', dataVersion: data.baseVersion(), edits }, data)).toEqual({ kind: 'current' });
    expect(deployedData({ baseVersion: `data:${'1'.repeat(32)}`, dataVersion: r.data.dataVersion, edits }, data)).toMatchObject({ kind: 'missing', reason: expect.stringContaining('cannot be rebuilt here') });
    expect(deployedData({ baseVersion: r.data.baseVersion, dataVersion: `data:${'2'.repeat(32)}`, edits }, data)).toMatchObject({ kind: 'missing', reason: expect.stringContaining('not the recorded') });
  });
});
