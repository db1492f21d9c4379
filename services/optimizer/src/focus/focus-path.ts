import { ofKind, type Checkpoint } from '../persistence/checkpoint-store';
import type { FocusHistoryEntry } from '../persistence/focus-history';
import { FOCUS_STATUSES, FOCUS_TRANSITIONS, STATUS_MEANING, type FocusStatus, type TransitionOutcome } from './focus-machine';

/**
 * The state diagram of the Focus machine as a layout (columns by the longest way from the entry,
 * self-loops folded into their status) and the path one Focus took through it: its recorded
 * transitions, or, for a Focus moved before they were recorded, the way its checkpoints imply
 * (marked inferred). Both come from `FOCUS_TRANSITIONS`, so a new status or move shows up here.
 */

export type Node = FocusStatus | 'none';

export interface DiagramNode {
  id: Node;
  /** Column (0: the entry) and row within it (centred on 0). */
  column: number;
  row: number;
  final: boolean;
  /** Outcomes that leave the Focus where it is. */
  selfLoops: TransitionOutcome[];
}

export interface DiagramEdge {
  from: Node;
  to: FocusStatus;
  outcomes: TransitionOutcome[];
}

export interface FocusDiagram {
  nodes: DiagramNode[];
  edges: DiagramEdge[];
  columns: number;
  /** The largest number of nodes in one column. */
  rows: number;
}

/** The machine's diagram: every status, every move between two statuses, self-loops per status. */
export function focusDiagram(): FocusDiagram {
  const moves = FOCUS_TRANSITIONS.filter((t) => t.from !== t.to);
  const column = new Map<Node, number>([['none', 0]]);
  // Longest way from the entry over the moves (no cycle once self-loops are left out).
  for (let pass = 0; pass < FOCUS_STATUSES.length + 1; pass += 1) {
    for (const t of moves) {
      const from = column.get(t.from);
      if (from !== undefined && (column.get(t.to) ?? -1) < from + 1) column.set(t.to, from + 1);
    }
  }
  const ids: Node[] = ['none', ...FOCUS_STATUSES];
  const byColumn = new Map<number, Node[]>();
  for (const id of ids) byColumn.set(column.get(id) ?? 0, [...(byColumn.get(column.get(id) ?? 0) ?? []), id]);
  const nodes = ids.map((id): DiagramNode => {
    const c = column.get(id) ?? 0;
    const peers = byColumn.get(c) ?? [id];
    return {
      id,
      column: c,
      row: peers.indexOf(id) - (peers.length - 1) / 2,
      final: id !== 'none' && !STATUS_MEANING[id].holdsSlot,
      selfLoops: FOCUS_TRANSITIONS.filter((t) => t.from === id && t.to === id).map((t) => t.outcome),
    };
  });
  const edges: DiagramEdge[] = [];
  for (const t of moves) {
    const edge = edges.find((e) => e.from === t.from && e.to === t.to);
    if (edge) edge.outcomes.push(t.outcome);
    else edges.push({ from: t.from, to: t.to, outcomes: [t.outcome] });
  }
  return { nodes, edges, columns: Math.max(...nodes.map((n) => n.column)) + 1, rows: Math.max(...[...byColumn.values()].map((v) => v.length)) };
}

export interface PathStep {
  from: Node;
  outcome: TransitionOutcome;
  to: FocusStatus;
  at: string | null;
  reason: string | null;
  /** Not recorded: implied by the Focus's checkpoints and status (a Focus moved before the history existed). */
  inferred: boolean;
}

const step = (from: Node, outcome: TransitionOutcome, to: FocusStatus, at: string | null): PathStep => ({ from, outcome, to, at, reason: null, inferred: true });

/** The way a Focus without recorded transitions (or before its first recorded one) must have come to `target`. */
function inferred(target: Node, checkpoints: readonly Checkpoint[]): PathStep[] {
  if (target === 'none') return [];
  const selection = ofKind(checkpoints, 'selection')[0];
  const steps = [step('none', 'focus_candidate_selected', 'selected', selection?.createdAt ?? null)];
  if (target === 'selected') return steps;
  const created = ofKind(checkpoints, 'baseline').find((c) => c.payload.decision.outcome === 'focus_created');
  const reachable = (from: FocusStatus) => FOCUS_TRANSITIONS.some((t) => t.from === from && t.to === target);
  // Through `active` when the Focus was created, attempted, or can only have come that way.
  const wasActive = target === 'active' || created !== undefined || checkpoints.some((c) => c.attempt > 0) || !reachable('selected');
  if (wasActive) steps.push(step('selected', 'focus_created', 'active', created?.createdAt ?? null));
  const at: FocusStatus = wasActive ? 'active' : 'selected';
  if (target === at) return steps;
  const close = ofKind(checkpoints, 'focus_close').at(-1);
  const row = FOCUS_TRANSITIONS.find((t) => t.from === at && t.to === target && t.outcome === close?.payload.outcome) ?? FOCUS_TRANSITIONS.find((t) => t.from === at && t.to === target);
  if (row) steps.push(step(at, row.outcome, target, close?.createdAt ?? null));
  return steps;
}

/** The path a Focus took: its recorded transitions, preceded by the inferred way to the first one when they start later. */
export function focusPath(status: FocusStatus, history: readonly FocusHistoryEntry[], checkpoints: readonly Checkpoint[]): PathStep[] {
  const recorded = history.map((h): PathStep => ({ from: h.from, outcome: h.outcome, to: h.to, at: h.at, reason: h.reason, inferred: false }));
  if (recorded.length === 0) return inferred(status, checkpoints);
  return [...inferred(recorded[0].from, checkpoints), ...recorded];
}

/** How often each move of the machine was taken on a path (`from>outcome>to`). */
export function takenCounts(path: readonly PathStep[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of path) counts.set(moveKey(s.from, s.outcome, s.to), (counts.get(moveKey(s.from, s.outcome, s.to)) ?? 0) + 1);
  return counts;
}

export const moveKey = (from: Node, outcome: TransitionOutcome, to: FocusStatus): string => `${from}>${outcome}>${to}`;

/** The state of one Focus as the API serves it: where it is, the way it came and every move of the machine with how often it took it. */
export function focusState(focusId: string, status: FocusStatus, path: readonly PathStep[]) {
  const counts = takenCounts(path);
  return {
    focusId,
    status,
    final: !STATUS_MEANING[status].holdsSlot,
    meaning: STATUS_MEANING[status].meaning,
    path,
    transitions: FOCUS_TRANSITIONS.map((t) => ({ from: t.from, outcome: t.outcome, to: t.to, taken: counts.get(moveKey(t.from, t.outcome, t.to)) ?? 0 })),
  };
}
