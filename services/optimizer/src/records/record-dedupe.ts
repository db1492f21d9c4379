import { selectable, type ProblemStatus } from '../focus/problem-status-machine';

/**
 * Selection and dedupe read the records. A ref is kept out of selection when its latest record's
 * status is `candidate`, `optimized_unverified` or `optimized_verified`; `ineffective` makes it
 * selectable again. The same narrow problem seen on the same ticket under another ref (another
 * answer version, another wording) is the record's problem too: it stays out while the record is
 * pending (`candidate`, `optimized_unverified`) unless that answer already carries the record's data
 * version (evidence on the deployed data), and after `optimized_verified` only when its answer was
 * published no later than the verification (a later one is a regression and is selectable).
 */

/** A problem status with the record fields dedupe needs. */
export interface RecordedProblem {
  recordId: string;
  ref: string;
  ticketKey: string;
  signature: string;
  status: ProblemStatus;
  recordedAt: string;
  decidedAt: string | null;
  /** The data version the record produces. */
  dataVersion: string;
}

/** A signal with the answer version it was seen on (null when that version is unknown). */
export interface SignalAnswer {
  ref: string;
  ticketKey: string;
  signature: string;
  answer: { dataVersion: string | null; publishedAt: string } | null;
}

/** Ref -> why a record keeps it out of selection. */
export function blockedByRecords(signals: readonly SignalAnswer[], problems: readonly RecordedProblem[]): Map<string, string> {
  const latest = new Map<string, RecordedProblem>();
  for (const p of [...problems].sort((a, b) => a.recordedAt.localeCompare(b.recordedAt) || a.recordId.localeCompare(b.recordId))) latest.set(p.ref, p);
  const out = new Map<string, string>();
  for (const s of signals) {
    const own = latest.get(s.ref);
    if (own && !selectable(own.status)) {
      out.set(s.ref, `${own.recordId} is ${own.status}`);
      continue;
    }
    const same = problems.find((p) => p.ref !== s.ref && p.ticketKey === s.ticketKey && p.signature === s.signature && covers(p, s));
    if (same) out.set(s.ref, `the same problem of ${s.ticketKey} is ${same.status} in ${same.recordId}`);
  }
  return out;
}

/** Whether a record's problem covers another signal of the same ticket and signature. */
function covers(p: RecordedProblem, s: SignalAnswer): boolean {
  if (selectable(p.status)) return false;
  // Seen on the deployed data: new evidence about the change, never hidden by it.
  if (s.answer?.dataVersion === p.dataVersion) return false;
  if (p.status !== 'optimized_verified') return true;
  // Verified: only answers published up to the verification are the solved problem.
  return s.answer === null || p.decidedAt === null || Date.parse(s.answer.publishedAt) <= Date.parse(p.decidedAt);
}
