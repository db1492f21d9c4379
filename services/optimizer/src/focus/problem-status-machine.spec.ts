import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IllegalProblemTransitionError, PROBLEM_EVENTS, PROBLEM_STATUS_MEANING, PROBLEM_STATUSES, PROBLEM_TRANSITIONS, problemStateDiagram, problemTransitionFor, problemTransitionTable, selectable, type ProblemStatus } from './problem-status-machine';

describe('the problem-status machine', () => {
  it('gives every event a row, and each (status, event) pair one row at most', () => {
    expect(new Set(PROBLEM_TRANSITIONS.map((t) => t.event))).toEqual(new Set(PROBLEM_EVENTS));
    const pairs = PROBLEM_TRANSITIONS.map((t) => `${t.from}/${t.event}`);
    expect(new Set(pairs).size).toBe(pairs.length);
  });

  it('reaches every status from a written record, and leaves none of the final ones', () => {
    const reached = new Set<ProblemStatus | 'none'>(['none']);
    for (let grew = true; grew; ) {
      const before = reached.size;
      for (const t of PROBLEM_TRANSITIONS) if (reached.has(t.from)) reached.add(t.to);
      grew = reached.size > before;
    }
    expect([...reached].filter((s) => s !== 'none').sort()).toEqual([...PROBLEM_STATUSES].sort());
    for (const s of PROBLEM_STATUSES.filter((x) => PROBLEM_STATUS_MEANING[x].final)) expect(PROBLEM_TRANSITIONS.some((t) => t.from === s)).toBe(false);
  });

  it('moves a problem only through record, deployment and verification, in that order', () => {
    expect(problemTransitionFor('none', 'record_written').to).toBe('candidate');
    expect(problemTransitionFor('candidate', 'deployed_version_seen').to).toBe('optimized_unverified');
    expect(problemTransitionFor('optimized_unverified', 'verification_passed').to).toBe('optimized_verified');
    expect(problemTransitionFor('optimized_unverified', 'verification_failed').to).toBe('ineffective');
    // Missing evidence decides nothing: the problem stays unverified (never verified by default).
    expect(problemTransitionFor('optimized_unverified', 'verification_evidence_missing').to).toBe('optimized_unverified');
    // Not deployed yet: nothing to verify; a written record is not written again; a decided problem stays decided.
    expect(() => problemTransitionFor('candidate', 'verification_passed')).toThrow(IllegalProblemTransitionError);
    expect(() => problemTransitionFor('candidate', 'record_written')).toThrow(/candidate cannot take record_written/);
    expect(() => problemTransitionFor('ineffective', 'verification_passed')).toThrow(IllegalProblemTransitionError);
    expect(() => problemTransitionFor('optimized_verified', 'deployed_version_seen')).toThrow(IllegalProblemTransitionError);
  });

  it('lets selection pick a problem again only once it is ineffective, and releases its ref then', () => {
    expect(PROBLEM_STATUSES.filter(selectable)).toEqual(['ineffective']);
    expect(PROBLEM_TRANSITIONS.filter((t) => t.releasesRef).map((t) => t.event)).toEqual(['verification_failed']);
    expect(PROBLEM_TRANSITIONS.filter((t) => t.stamps === 'decided_at').map((t) => t.to)).toEqual(['optimized_verified', 'ineffective']);
  });

  it('is the state diagram and the transition table docs/optimizer.md shows', () => {
    const doc = readFileSync(join(__dirname, '../../../../docs/optimizer.md'), 'utf8');
    const block = /<!-- problem-status-diagram -->\s*```mermaid\n([\s\S]*?)\n```/.exec(doc);
    expect(block?.[1]).toBe(problemStateDiagram());
    expect(/<!-- problem-status-table -->\n([\s\S]*?)\n\n/.exec(doc)?.[1]).toBe(problemTransitionTable());
    for (const s of PROBLEM_STATUSES) expect(doc).toContain(`\`${s}\``);
  });
});
