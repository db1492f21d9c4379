import type { OptimizerCandidateEnqueuedV2 } from '@aoc/contracts';
import { MAX_GATE_ROWS } from '@aoc/contracts';
import type { CandidateDiff } from '@aoc/versioned-data';
import type { GateResult } from '../focus/candidate-gate';
import type { FocusRow } from '../persistence/focus-store';
import type { FocusCandidate } from '../select-focus/focus-selector';

/** Line diff of two texts (longest common subsequence), as unified hunks with 2 lines of context. */
function lineDiff(before: string, after: string): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) for (let j = b.length - 1; j >= 0; j -= 1) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const ops: { op: ' ' | '-' | '+'; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ op: ' ', line: a[i] });
      i += 1;
      j += 1;
    } else if (j < b.length && (i >= a.length || lcs[i][j + 1] >= lcs[i + 1][j])) ops.push({ op: '+', line: b[j++] });
    else ops.push({ op: '-', line: a[i++] });
  }
  const keep = new Set<number>();
  ops.forEach((o, k) => {
    if (o.op !== ' ') for (let d = -2; d <= 2; d += 1) keep.add(k + d);
  });
  const out: string[] = [];
  let last = -2;
  ops.forEach((o, k) => {
    if (!keep.has(k)) return;
    if (k !== last + 1) out.push('@@');
    out.push(`${o.op}${o.line}`);
    last = k;
  });
  return out;
}

export function unifiedDiff(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string {
  return [...after]
    .map(([path, text]) => [`--- a/${path}`, `+++ b/${path}`, ...lineDiff(before.get(path) ?? '', text)].join('\n'))
    .join('\n')
    .slice(0, 20000);
}

export function candidateMessage(candidate: FocusCandidate, diff: CandidateDiff, gate: GateResult): string {
  return [
    `optimizer: ${diff.edits[0].because}`.slice(0, 100),
    '',
    candidate.problemStatement,
    '',
    ...diff.edits.map((e) => `- ${e.path} ${e.pointer}: ${e.because}`),
    '',
    `Gate: ${gate.reason}. Regressions ${gate.regressions.length}, control regressions ${gate.controlRegressions.length}, follow-up gaps ${gate.followUpGaps.length}.`,
    `Targets: ${candidate.targets.map((t) => `${t.ticketKey} (${t.ref})`).join(', ')}`,
    'Not merged or deployed automatically.',
  ].join('\n');
}

export function enqueuedPayload(p: { focus: FocusRow; attempt: number; base: string; digest: string; diff: CandidateDiff; gate: GateResult; proposer: string; unified: string; commit: { branch: string; sha: string } | null; at: Date }): OptimizerCandidateEnqueuedV2 {
  const c = p.focus.candidate;
  return {
    candidateId: p.digest,
    focusId: p.focus.focusId,
    attempt: p.attempt,
    enqueuedAt: p.at.toISOString(),
    baseVersion: p.base,
    proposer: p.proposer,
    problemStatement: c.problemStatement,
    blockingCriterionId: c.blockingCriterionId,
    edits: p.diff.edits.map((e) => ({ path: e.path, pointer: e.pointer, valueJson: JSON.stringify(e.value).slice(0, 8000), because: e.because })),
    diff: p.unified,
    gate: {
      status: 'accepted',
      reason: p.gate.reason,
      rows: p.gate.table.slice(0, MAX_GATE_ROWS),
      replayedCases: new Set(p.gate.table.map((r) => r.caseId)).size,
      regressions: p.gate.regressions.length,
      controlRegressions: p.gate.controlRegressions.length,
      followUpGaps: p.gate.followUpGaps.length,
    },
    evidenceRefs: c.targets.map((t) => t.ref).slice(0, 5),
    commit: p.commit,
  };
}
