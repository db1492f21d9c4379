import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePayload } from '../persistence/checkpoint-payloads';
import { CLOSING_OUTCOMES, endsRun, FOCUS_STATUSES, FOCUS_TRANSITIONS, IllegalTransitionError, refChanges, SLOT_STATUSES, stateDiagram, TRANSITION_OUTCOMES, transitionFor, transitionTable, type FocusStatus } from './focus-machine';

describe('the Focus state machine', () => {
  it('gives every transition outcome a row, and each (status, outcome) pair one row at most', () => {
    expect(new Set(FOCUS_TRANSITIONS.map((t) => t.outcome))).toEqual(new Set(TRANSITION_OUTCOMES));
    const pairs = FOCUS_TRANSITIONS.map((t) => `${t.from}/${t.outcome}`);
    expect(new Set(pairs).size).toBe(pairs.length);
  });

  it('reaches every status from selection, and leaves only the slot-holding ones', () => {
    const reached = new Set<FocusStatus | 'none'>(['none']);
    for (let grew = true; grew; ) {
      const before = reached.size;
      for (const t of FOCUS_TRANSITIONS) if (reached.has(t.from)) reached.add(t.to);
      grew = reached.size > before;
    }
    expect([...reached].filter((s) => s !== 'none').sort()).toEqual([...FOCUS_STATUSES].sort());
    expect(new Set(FOCUS_TRANSITIONS.map((t) => t.from))).toEqual(new Set(['none', ...SLOT_STATUSES]));
    expect(SLOT_STATUSES).toEqual(['selected', 'active']);
  });

  it('refuses a transition the table does not list', () => {
    expect(() => transitionFor('rejected', 'focus_created')).toThrow(IllegalTransitionError);
    expect(() => transitionFor('selected', 'candidate_enqueued')).toThrow(/selected cannot end in candidate_enqueued/);
    expect(() => transitionFor('auto_closed', 'focus_auto_closed')).toThrow(IllegalTransitionError);
    expect(transitionFor('active', 'focus_human_handoff').to).toBe('human_handoff');
  });

  it('says which refs each transition consumes, releases or suppresses, and needs the groups it names', () => {
    expect(refChanges(transitionFor('selected', 'focus_created'), { targets: ['a', 'b'] })).toEqual([{ state: 'consumed', refs: ['a', 'b'] }]);
    // The seed: targets not met (or not judged) are released on auto-close; met ones stay consumed.
    expect(refChanges(transitionFor('active', 'focus_auto_closed'), { unmet: ['c'] })).toEqual([{ state: 'open', refs: ['c'] }]);
    expect(refChanges(transitionFor('active', 'focus_source_changed'), { changed: ['a'], unchanged: ['b'] })).toEqual([
      { state: 'open', refs: ['b'] },
      { state: 'suppressed', refs: ['a'] },
    ]);
    expect(refChanges(transitionFor('active', 'focus_retired'), {})).toEqual([]);
    expect(() => refChanges(transitionFor('active', 'focus_auto_closed'), { targets: ['a'] })).toThrow(/needs the unmet refs/);
  });

  it('writes a close checkpoint exactly for the closing outcomes, and ends the run that created a Focus', () => {
    expect(FOCUS_TRANSITIONS.filter((t) => t.closes).map((t) => t.outcome)).toEqual([...CLOSING_OUTCOMES]);
    expect(FOCUS_TRANSITIONS.filter((t) => t.endsRun).map((t) => t.outcome)).toEqual(['focus_created']);
    expect([endsRun('focus_created'), endsRun('focus_candidate_rejected'), endsRun('no_focus_candidate')]).toEqual([true, false, false]);
  });

  it('is the state diagram and the transition table docs/optimizer.md shows', () => {
    const doc = readFileSync(join(__dirname, '../../../../docs/optimizer.md'), 'utf8');
    const block = /<!-- focus-state-diagram -->\s*```mermaid\n([\s\S]*?)\n```/.exec(doc);
    expect(block?.[1]).toBe(stateDiagram());
    expect(/<!-- focus-transition-table -->\n([\s\S]*?)\n\n/.exec(doc)?.[1]).toBe(transitionTable());
    // Every transition is one edge of the diagram, and the glossary names every status.
    for (const t of FOCUS_TRANSITIONS) expect(block?.[1]).toContain(`: ${t.outcome}`);
    for (const s of FOCUS_STATUSES) expect(doc).toContain(`\`${s}\``);
  });
});

describe('checkpoint payloads', () => {
  it('parses each kind by its schema and names the kind and field of a bad one', () => {
    expect(parsePayload('case_blocked', { caseIds: ['A'], reason: 'r' })).toEqual({ caseIds: ['A'], reason: 'r' });
    expect(() => parsePayload('case_blocked', { caseIds: 'A' })).toThrow(/checkpoint case_blocked: caseIds: .*; reason: /);
    expect(() => parsePayload('focus_close', { outcome: 'focus_created', reason: 'r', refs: {} })).toThrow(/checkpoint focus_close/);
  });

  it('reads a close checkpoint written before the machine as the groups the table names', () => {
    expect(parsePayload('focus_close', { outcome: 'focus_source_changed', reason: 'r', released: ['b'], suppressed: ['a'] })).toEqual({ outcome: 'focus_source_changed', reason: 'r', refs: { changed: ['a'], unchanged: ['b'] } });
    expect(parsePayload('focus_close', { outcome: 'focus_auto_closed', reason: 'r', released: ['met'], suppressed: [] })).toEqual({ outcome: 'focus_auto_closed', reason: 'r', refs: { unmet: [] } });
  });
});
