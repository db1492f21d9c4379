import { Criterion } from '../judge-criteria/criterion-judge';
import type { ProblemEvent } from '../focus/problem-status-machine';
import { checkpointsOf, ofKind } from '../persistence/checkpoint-store';
import { releaseLease, takeLease } from '../persistence/focus-store';
import { moveProblems, recordsAwaitingVerification, settleRecords, type StoredRecord } from '../persistence/record-store';
import { deployedData } from '../records/data-version';
import type { OptimizationRecord, VerificationEvidence } from '../records/optimization-record';
import type { ControllerDeps } from './focus-controller';
import type { ReplayRequest } from './ports';
import { judgeReplays, type JudgedReplay } from './replay-judging';

/**
 * Verification of deployed optimisation records. A record is deployed once answers carrying its
 * data version were seen (its problems are `optimized_unverified`); the verification then replays
 * the record's target cases at their cutoffs on that deployed data and checks the blocking
 * criterion: met -> `optimized_verified`, still a gap -> `ineffective` (the ref is selectable
 * again). Anything else is missing evidence: the problem stays `optimized_unverified` with the
 * reason, never verified by default. The replays run outside any transaction; the decisions of one
 * record are written in one, each a conditional move, so a crash or a second run decides nothing twice.
 */

export type VerificationDeps = Pick<ControllerDeps, 'transact' | 'replay' | 'data' | 'now' | 'freeTextJudge'>;

export interface ProblemDecision {
  ref: string;
  ticketKey: string;
  event: ProblemEvent;
  reason: string;
  /** Whether this run moved it (false: another run decided it first). */
  moved: boolean;
}

export interface RecordVerificationResult {
  recordId: string;
  dataVersion: string;
  problems: ProblemDecision[];
}

export interface VerificationReport {
  outcome: 'records_verified' | 'nothing_to_verify' | 'run_in_progress';
  reason: string;
  records: RecordVerificationResult[];
}

const LEASE = 'optimizer-verify';
const LEASE_TTL_MS = 30 * 60_000;

/** The cases of a record, as a verification replays them: each target at its own cutoff, on the answer version it was recorded on. */
export function verificationRequests(record: OptimizationRecord): ReplayRequest[] {
  return record.problems.map((p) => ({ caseId: p.ticketKey, role: 'target' as const, ticketKey: p.ticketKey, cutoff: p.cutoff, runId: p.runId }));
}

/** One problem's decision from its judged case (or its absence). */
export function decideProblem(record: OptimizationRecord, ticketKey: string, cases: readonly JudgedReplay[] | null, missing: string | null): { event: ProblemEvent; reason: string; evidence: Omit<VerificationEvidence, 'at' | 'source'> } {
  const blockingId = record.criteria.blockingCriterionId;
  const base = { dataVersion: record.data.dataVersion, caseId: ticketKey, executed: false, blocking: null, leadingFamily: null };
  const evidenceMissing = (detail: string) => ({ event: 'verification_evidence_missing' as const, reason: `evidence missing: ${detail}`, evidence: { ...base, detail: detail.slice(0, 600) } });
  if (missing !== null || cases === null) return evidenceMissing(missing ?? 'no replay');
  const c = cases.find((x) => x.caseId === ticketKey);
  if (!c) return evidenceMissing(`${ticketKey} was not replayed`);
  if (!c.executed) return evidenceMissing(`the replay of ${ticketKey} did not execute (${c.error ?? 'no answer'})`);
  const result = c.judgement.results.find((r) => r.criterionId === blockingId);
  const observed = { ...base, executed: true, blocking: result?.status ?? null, leadingFamily: c.leadingFamily };
  const detail = `${blockingId} is ${result?.status ?? 'not judged'} on ${ticketKey} with ${record.data.dataVersion}${result ? `: ${result.reason}` : ''}`;
  if (result?.status === 'met') return { event: 'verification_passed', reason: `verified: ${detail}`.slice(0, 1000), evidence: { ...observed, detail: detail.slice(0, 600) } };
  if (result?.status === 'gap') return { event: 'verification_failed', reason: `ineffective: ${detail}`.slice(0, 1000), evidence: { ...observed, detail: detail.slice(0, 600) } };
  return { event: 'verification_evidence_missing', reason: `evidence missing: ${detail}`.slice(0, 1000), evidence: { ...observed, detail: detail.slice(0, 600) } };
}

export class RecordVerifier {
  constructor(private readonly deps: VerificationDeps) {}

  /** Settles lagging records, then verifies every deployed one, under the verification lease. */
  async verify(owner = `pid-${process.pid}-${Math.random().toString(36).slice(2, 8)}`): Promise<VerificationReport> {
    const taken = await this.deps.transact(({ manager: m }) => takeLease(m, LEASE, owner, LEASE_TTL_MS, this.deps.now()));
    if (!taken) return { outcome: 'run_in_progress', reason: 'another verification holds the lease', records: [] };
    try {
      const pending = await this.deps.transact(async ({ manager: m }) => {
        await settleRecords(m, this.deps.now());
        return recordsAwaitingVerification(m);
      });
      if (pending.length === 0) return { outcome: 'nothing_to_verify', reason: 'no record is deployed and unverified', records: [] };
      const records: RecordVerificationResult[] = [];
      for (const stored of pending) records.push(await this.verifyOne(stored));
      const all = records.flatMap((r) => r.problems);
      const count = (e: ProblemEvent) => all.filter((p) => p.event === e).length;
      return { outcome: 'records_verified', reason: `${records.length} record(s): ${count('verification_passed')} verified, ${count('verification_failed')} ineffective, ${count('verification_evidence_missing')} with evidence missing`, records };
    } finally {
      await this.deps.transact(({ manager: m }) => releaseLease(m, LEASE, owner));
    }
  }

  private async verifyOne(stored: StoredRecord): Promise<RecordVerificationResult> {
    const record = stored.record;
    const waiting = record.problems.filter((p) => stored.statuses.some((s) => s.ref === p.ref && s.status === 'optimized_unverified'));
    const evidence = await this.evidence(record);
    const at = this.deps.now();
    const decisions = waiting.map((p) => ({ problem: p, ...decideProblem(record, p.ticketKey, 'cases' in evidence ? evidence.cases : null, 'missing' in evidence ? evidence.missing : null) }));
    const problems = await this.deps.transact(async ({ manager: m }) => {
      const out: ProblemDecision[] = [];
      for (const d of decisions) {
        const full: VerificationEvidence = { at: at.toISOString(), source: 'cases' in evidence ? evidence.source : 'none', ...d.evidence };
        const moved = await moveProblems(m, record, [d.problem.ref], 'optimized_unverified', d.event, d.reason, at, new Map([[d.problem.ref, full]]));
        out.push({ ref: d.problem.ref, ticketKey: d.problem.ticketKey, event: d.event, reason: d.reason, moved: moved.length > 0 });
      }
      return out;
    });
    return { recordId: record.recordId, dataVersion: record.data.dataVersion, problems };
  }

  /**
   * The record's target cases judged on its deployed data: a case refresh of its Focus already run
   * on that very data is reused; otherwise the cases are replayed (with the record's edits on top
   * when this process still reads the base they were built on). Missing when neither can be done.
   */
  private async evidence(record: OptimizationRecord): Promise<{ cases: JudgedReplay[]; source: 'replay' | 'case_refresh' } | { missing: string }> {
    const tickets = record.problems.map((p) => p.ticketKey);
    const refreshed = ofKind(await this.deps.transact(({ manager: m }) => checkpointsOf(m, record.focus.focusId)), 'case_refresh')
      .filter((c) => c.baseVersion === record.data.dataVersion && tickets.every((t) => c.payload.cases.some((x) => x.caseId === t && x.role === 'target')))
      .at(-1);
    if (refreshed) return { cases: refreshed.payload.cases, source: 'case_refresh' };
    const data = deployedData({ baseVersion: record.data.baseVersion, dataVersion: record.data.dataVersion, edits: record.data.changes.map((c) => ({ path: c.path, pointer: c.pointer, value: c.after, because: c.because })) }, this.deps.data);
    if (data.kind === 'missing') return { missing: data.reason };
    const criteria: Criterion[] = [];
    for (const raw of record.criteria.list) {
      const parsed = Criterion.safeParse(raw);
      if (!parsed.success) return { missing: `criterion ${raw.id} no longer parses (${parsed.error.issues[0]?.message ?? 'invalid'})` };
      criteria.push(parsed.data);
    }
    const requests = verificationRequests(record);
    try {
      const results = await this.deps.replay.replay(requests, data.kind === 'overlay' ? data.files : null);
      return { cases: await judgeReplays(requests, results, criteria, this.deps.freeTextJudge), source: 'replay' };
    } catch (error) {
      return { missing: `the replay failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500) };
    }
  }
}
