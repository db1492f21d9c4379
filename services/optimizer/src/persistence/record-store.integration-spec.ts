import { createServiceDataSource } from '@aoc/persistence';
import { migrateRole } from '@aoc/service-host';
import { checkCandidate } from '@aoc/versioned-data';
import type { DataSource, EntityManager } from 'typeorm';
import { candidateGate } from '../focus/candidate-gate';
import { optimizerDefinition } from '../optimizer.definition';
import { buildRecord, parseRecord, type OptimizationRecord } from '../records/optimization-record';
import { localDataAccess } from '../run-focus/data-access';
import type { JudgedReplay } from '../run-focus/replay-judging';
import { criteriaFor } from '../select-focus/focus-selector';
import { moveProblems, recordById, saveRecord, settleRecord } from './record-store';

/**
 * Problem statuses moved by two transactions at the same time on real Postgres (two replicas, or a
 * redelivered run.published beside a verification): each move is a conditional write, so the
 * second waits for the first and then finds nothing to move; nothing is lost or done twice.
 */
describe('problem statuses on real Postgres, concurrently', () => {
  let ds: DataSource;
  const unique = (Date.now() * 1000 + Math.floor(Math.random() * 1000)).toString(16).padStart(12, '0').slice(-12);
  const data = localDataAccess();
  const { blockingCriterionId, criteria } = criteriaFor('lock_waits');
  const tickets = ['SUP-1', 'SUP-2', 'SUP-3'].map((t) => `${t}${unique.slice(-4)}`);
  const judged = (caseId: string, status: 'met' | 'gap'): JudgedReplay => ({ caseId, role: 'target', executed: true, judgement: { caseId, results: criteria.map((c) => ({ criterionId: c.id, status, reason: 'r' })) }, leadingFamily: null, error: null });
  let record: OptimizationRecord;

  /** Runs `work` in a transaction that commits only once `commit` resolves. */
  function held(work: (m: EntityManager) => Promise<string[]>, commit: Promise<void>, started: () => void): Promise<string[]> {
    return ds.transaction(async (m) => {
      const moved = await work(m);
      started();
      await commit;
      return moved;
    });
  }

  beforeAll(async () => {
    const url = process.env['DATABASE_URL'];
    if (!url) throw new Error('DATABASE_URL is required');
    await migrateRole(optimizerDefinition, url);
    ds = createServiceDataSource({ url, schema: 'optimizer', poolSize: 3 });
    await ds.initialize();
    const diff = { edits: [{ path: 'services/router/data/family-rules.json', pointer: '/deviationThreshold', value: 3, because: 'one step down' }] };
    const built = buildRecord({
      focus: { focusId: `focus-${unique}`, focusDigest: 'focus:it', candidate: { groupingDigest: unique, signature: 'quality:lock_waits', problemStatement: 'p', blockingCriterionId, criteria, targets: tickets.map((ticketKey) => ({ ticketKey, ref: `sig_${unique}_${ticketKey}`, source: { runId: `run-${ticketKey}`, answerFingerprint: 'f'.repeat(64), cutoff: null, ticketDigest: 'd', referenceComments: [] }, statement: 's' })), controls: [] } },
      attempt: 1,
      proposer: 'test',
      baseVersion: data.baseVersion(),
      candidateDigest: `cand:${unique}${'0'.repeat(20)}`,
      diff,
      before: new Map([[diff.edits[0].path, data.read(diff.edits[0].path)]]),
      after: checkCandidate(diff, data.manifest, data.read).files ?? new Map(),
      manifest: data.manifest,
      read: data.read,
      unifiedDiff: '',
      gate: candidateGate(tickets.map((t) => judged(t, 'gap')), tickets.map((t) => judged(t, 'met')), blockingCriterionId),
      commit: null,
      kinds: new Map(),
      at: new Date(),
    });
    // A data version of this run alone: the shared database keeps answers of earlier runs.
    record = parseRecord({ ...built, data: { ...built.data, dataVersion: `data:${unique}${'0'.repeat(20)}` } });
    await ds.transaction(async (m) => settleRecord(m, await saveRecord(m, record, ['default'], new Date()), new Date()));
  }, 60000);
  afterAll(async () => {
    await ds?.destroy();
  });

  it('moves each problem once when two transactions deploy, then decide it, at the same time', async () => {
    const refs = record.problems.map((p) => p.ref);
    const race = async (first: (m: EntityManager) => Promise<string[]>, second: (m: EntityManager) => Promise<string[]>) => {
      let release: () => void = () => undefined;
      let started: () => void = () => undefined;
      const commit = new Promise<void>((r) => (release = r));
      const firstStarted = new Promise<void>((r) => (started = r));
      const a = held(first, commit, started);
      await firstStarted;
      // The second blocks on the first's row locks, then re-reads the statuses it commits.
      const b = ds.transaction((m) => second(m));
      await new Promise((r) => setTimeout(r, 200));
      release();
      return Promise.all([a, b]);
    };
    const deploy = (m: EntityManager) => moveProblems(m, record, refs, 'candidate', 'deployed_version_seen', 'deployed', new Date());
    expect(await race(deploy, deploy)).toEqual([refs, []]);
    const [passed, failed] = await race(
      (m) => moveProblems(m, record, refs, 'optimized_unverified', 'verification_passed', 'verified', new Date()),
      (m) => moveProblems(m, record, refs, 'optimized_unverified', 'verification_failed', 'ineffective', new Date()),
    );
    expect([passed, failed]).toEqual([refs, []]);
    const stored = await recordById(ds.manager, record.recordId);
    expect(stored?.statuses.map((s) => s.status)).toEqual(['optimized_verified', 'optimized_verified', 'optimized_verified']);
    // Written again (a resumed output): one record, its statuses as they are.
    await ds.transaction(async (m) => settleRecord(m, await saveRecord(m, record, ['default'], new Date()), new Date()));
    expect((await recordById(ds.manager, record.recordId))?.statuses).toEqual(stored?.statuses);
  }, 60000);
});
