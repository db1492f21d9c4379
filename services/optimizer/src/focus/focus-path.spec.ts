import { renderFocusDiagram } from '../dashboard/focus-diagram.view';
import type { Checkpoint } from '../persistence/checkpoint-store';
import type { FocusHistoryEntry } from '../persistence/focus-history';
import { FOCUS_STATUSES, FOCUS_TRANSITIONS } from './focus-machine';
import { focusDiagram, focusPath, focusState } from './focus-path';

const cp = (kind: string, attempt: number, payload: unknown, createdAt = '2026-12-01T04:00:00.000Z') => ({ focusId: 'focus-0', seq: 0, focusDigest: 'd', baseVersion: 'b', attempt, candidateDigest: null, createdAt, kind, payload }) as unknown as Checkpoint;
const entry = (from: FocusHistoryEntry['from'], outcome: FocusHistoryEntry['outcome'], to: FocusHistoryEntry['to'], at: string): FocusHistoryEntry => ({ from, outcome, to, reason: `${outcome} because`, at });

/** The Focus state machine as a diagram and the path one Focus took through it. */
describe('Focus state diagram and path', () => {
  it('draws every status and every move of focus-machine.ts, self-loops folded into their status', () => {
    const d = focusDiagram();
    expect(d.nodes.map((n) => n.id).sort()).toEqual(['none', ...FOCUS_STATUSES].sort());
    const drawn = [...d.edges.flatMap((e) => e.outcomes.map((o) => `${e.from}>${o}>${e.to}`)), ...d.nodes.flatMap((n) => n.selfLoops.map((o) => `${n.id}>${o}>${n.id}`))];
    expect(drawn.sort()).toEqual(FOCUS_TRANSITIONS.map((t) => `${t.from}>${t.outcome}>${t.to}`).sort());
    // The entry, then selected, then active beside rejected, then the statuses only an active Focus reaches.
    const column = Object.fromEntries(d.nodes.map((n) => [n.id, n.column]));
    expect(column).toMatchObject({ none: 0, selected: 1, active: 2, rejected: 2, source_changed: 3, auto_closed: 3, retired: 3, human_handoff: 3 });
    expect(d.nodes.filter((n) => n.final).map((n) => n.id).sort()).toEqual(['auto_closed', 'human_handoff', 'rejected', 'retired', 'source_changed']);
    expect(d.nodes.find((n) => n.id === 'active')?.selfLoops).toContain('candidate_enqueued');
  });

  it('is the recorded transitions of a Focus, counted per move', () => {
    const history = [
      entry('none', 'focus_candidate_selected', 'selected', '2026-12-01T01:00:00.000Z'),
      entry('selected', 'focus_created', 'active', '2026-12-01T02:00:00.000Z'),
      entry('active', 'candidate_rejected', 'active', '2026-12-01T03:00:00.000Z'),
      entry('active', 'candidate_rejected', 'active', '2026-12-01T04:00:00.000Z'),
      entry('active', 'focus_human_handoff', 'human_handoff', '2026-12-01T05:00:00.000Z'),
    ];
    const path = focusPath('human_handoff', history, []);
    expect(path.map((s) => [s.outcome, s.inferred])).toEqual(history.map((h) => [h.outcome, false]));
    const state = focusState('focus-0', 'human_handoff', path);
    expect(state).toMatchObject({ focusId: 'focus-0', status: 'human_handoff', final: true });
    expect(state.transitions.filter((t) => t.taken > 0)).toEqual([
      { from: 'none', outcome: 'focus_candidate_selected', to: 'selected', taken: 1 },
      { from: 'selected', outcome: 'focus_created', to: 'active', taken: 1 },
      { from: 'active', outcome: 'focus_human_handoff', to: 'human_handoff', taken: 1 },
      { from: 'active', outcome: 'candidate_rejected', to: 'active', taken: 2 },
    ]);
    expect(state.transitions).toHaveLength(FOCUS_TRANSITIONS.length);
  });

  it('infers the way of a Focus moved before the history existed from its checkpoints, marked inferred', () => {
    const selection = cp('selection', 0, {}, '2026-11-01T00:00:00.000Z');
    const rejected = focusPath('rejected', [], [selection, cp('baseline', 0, { decision: { outcome: 'focus_candidate_rejected' } })]);
    expect(rejected.map((s) => `${s.from}>${s.to}`)).toEqual(['none>selected', 'selected>rejected']);
    expect(rejected.every((s) => s.inferred)).toBe(true);
    expect(rejected[0].at).toBe('2026-11-01T00:00:00.000Z');
    // source_changed is reachable from selected and active: an attempted Focus came through active.
    const changed = focusPath('source_changed', [], [selection, cp('baseline', 0, { decision: { outcome: 'focus_created' } }), cp('focus_close', 1, { outcome: 'focus_source_changed' })]);
    expect(changed.map((s) => s.outcome)).toEqual(['focus_candidate_selected', 'focus_created', 'focus_source_changed']);
    expect(focusPath('source_changed', [], [selection]).map((s) => s.outcome)).toEqual(['focus_candidate_selected', 'focus_candidate_source_changed']);
    expect(focusPath('retired', [], []).map((s) => s.to)).toEqual(['selected', 'active', 'retired']);
    // Recorded history that starts later is preceded by the inferred way to where it starts.
    const later = focusPath('auto_closed', [entry('active', 'focus_auto_closed', 'auto_closed', '2026-12-01T00:00:00.000Z')], [selection]);
    expect(later.map((s) => [s.to, s.inferred])).toEqual([['selected', true], ['active', true], ['auto_closed', false]]);
  });

  it('renders as an inline SVG highlighting the current status and the moves taken, every text escaped', () => {
    const path = focusPath('active', [entry('none', 'focus_candidate_selected', 'selected', 'x'), entry('selected', 'focus_created', 'active', 'y'), entry('active', 'candidate_enqueued', 'active', 'z')], []);
    const svg = renderFocusDiagram('active', path).value;
    expect(svg).toMatch(/^<svg class="fsm" xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).not.toContain('<script');
    for (const s of FOCUS_STATUSES) expect(svg).toContain(`data-status="${s}"`);
    expect(svg).toContain('<g class="node current visited" data-status="active">');
    expect(svg).toContain('<g class="node visited" data-status="selected">');
    expect(svg).toContain('<g class="node" data-status="retired">');
    expect(svg.match(/class="edge taken"/g)).toHaveLength(2);
    expect(svg).toContain('taken 1×');
    expect(svg).toContain('aria-label="Focus state machine; current status active"');
  });
});
