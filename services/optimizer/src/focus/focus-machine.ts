/**
 * The Focus state machine: the one place that says which statuses a Focus has, which moves are
 * allowed, the outcome each move reports and what it does to the problem-signal refs it gathered.
 * The controller and the iteration move a Focus only through `transition` (persistence/focus-
 * transition.ts), which looks the move up here and refuses one that is not in the table; the state
 * diagram in docs/optimizer.md is generated from the same table (`stateDiagram`).
 */

/** Where a Focus is. `selected` waits for its creation baseline; `active` is iterated; the rest are final. */
export const FOCUS_STATUSES = ['selected', 'active', 'rejected', 'source_changed', 'auto_closed', 'retired', 'human_handoff'] as const;
export type FocusStatus = (typeof FOCUS_STATUSES)[number];

/** What each status means and whether it holds the one slot (a selected or active Focus blocks a new selection). */
export const STATUS_MEANING: Readonly<Record<FocusStatus, { holdsSlot: boolean; meaning: string }>> = {
  selected: { holdsSlot: true, meaning: 'a candidate grouping waits for its creation baseline' },
  active: { holdsSlot: true, meaning: 'the Focus: confirmed on a fresh baseline, iterated one attempt per run' },
  rejected: { holdsSlot: false, meaning: 'the creation baseline did not confirm the gap; the grouping is remembered' },
  source_changed: { holdsSlot: false, meaning: 'a target ticket or reference comment changed after it was frozen' },
  auto_closed: { holdsSlot: false, meaning: 'fewer than two targets still reproduce and a strict majority is met (one-way)' },
  retired: { holdsSlot: false, meaning: 'no confirmed improvement for long enough' },
  human_handoff: { holdsSlot: false, meaning: 'a protected path, a plan across stages or too few unblocked targets: a human takes over' },
};

/** Statuses that hold the slot, for the queries that look for a busy Focus. */
export const SLOT_STATUSES: readonly FocusStatus[] = FOCUS_STATUSES.filter((s) => STATUS_MEANING[s].holdsSlot);

/**
 * The sets of target refs a transition can name; the caller computes them from what it observed
 * (the source check, the fresh baseline) and `transition` applies the table's effect to them.
 */
export const REF_GROUPS = ['targets', 'changed', 'unchanged', 'unmet'] as const;
export type RefGroup = (typeof REF_GROUPS)[number];
export type RefSets = Partial<Record<RefGroup, readonly string[]>>;

/** The state a group of refs is put in: consumed by the Focus, released (open) or suppressed (its source changed). */
export type RefEffect = Partial<Record<'consumed' | 'open' | 'suppressed', RefGroup>>;

export interface FocusTransition {
  /** `none`: the transition creates the Focus row. */
  from: FocusStatus | 'none';
  outcome: TransitionOutcome;
  to: FocusStatus;
  refs: RefEffect;
  /** Written as a `focus_close` checkpoint before the move, so a crash between the two is completed by the next run. */
  closes: boolean;
  /** The run that produced it ends there (the next scheduled run starts the first attempt). */
  endsRun: boolean;
  meaning: string;
}

const T = (from: FocusTransition['from'], outcome: TransitionOutcome, to: FocusStatus, meaning: string, extra: Partial<Pick<FocusTransition, 'refs' | 'closes' | 'endsRun'>> = {}): FocusTransition => ({ from, outcome, to, refs: {}, closes: false, endsRun: false, meaning, ...extra });

/** Outcomes of a run about one Focus: each is one row (or two, when it leaves the Focus where it is) of the table. */
export const TRANSITION_OUTCOMES = [
  'focus_candidate_selected',
  'source_unverifiable',
  'focus_candidate_source_changed',
  'focus_candidate_rejected',
  'focus_created',
  'focus_source_changed',
  'focus_auto_closed',
  'focus_retired',
  'focus_human_handoff',
  'focus_case_blocked',
  'evaluation_inconclusive',
  'daily_attempt_limit_reached',
  'candidate_plan_rejected',
  'candidate_rejected',
  'candidate_enqueued',
] as const;
export type TransitionOutcome = (typeof TRANSITION_OUTCOMES)[number];

/** Outcomes that close an active Focus: each is stored as a `focus_close` checkpoint before its move. */
export const CLOSING_OUTCOMES = ['focus_source_changed', 'focus_auto_closed', 'focus_retired'] as const satisfies readonly TransitionOutcome[];

/** The allowed transitions. A pair (from, outcome) not listed here is refused. */
export const FOCUS_TRANSITIONS: readonly FocusTransition[] = [
  T('none', 'focus_candidate_selected', 'selected', 'a narrow problem was selected; its refs stay open until the baseline confirms it'),
  T('selected', 'source_unverifiable', 'selected', 'a target has no collected timeline to compare with: nothing is replayed or judged, the next run checks again'),
  T('selected', 'focus_candidate_source_changed', 'source_changed', 'a target changed after selection: its ref is suppressed, the unchanged ones were never consumed and stay open', { refs: { suppressed: 'changed' } }),
  T('selected', 'focus_candidate_rejected', 'rejected', 'the fresh baseline did not confirm the gap on two targets; nothing is consumed and the grouping is not proposed again within the rejection lookback (14 days)'),
  T('selected', 'focus_created', 'active', 'the fresh baseline confirmed the gap: the target refs are consumed; the first attempt starts in the next run', { refs: { consumed: 'targets' }, endsRun: true }),
  T('active', 'source_unverifiable', 'active', 'a target has no collected timeline to compare with: nothing is replayed, judged or closed'),
  T('active', 'focus_source_changed', 'source_changed', 'a frozen input changed: changed refs stay out of selection (suppressed), unchanged ones are released', { refs: { suppressed: 'changed', open: 'unchanged' }, closes: true }),
  T('active', 'focus_auto_closed', 'auto_closed', 'fewer than two targets reproduce and a strict majority is met: refs of targets not met (or not judged) are released, met ones stay consumed', { refs: { open: 'unmet' }, closes: true }),
  T('active', 'focus_retired', 'retired', 'no confirmed improvement for 7 days, 10 reviewed attempts and the last 6; the refs stay consumed', { closes: true }),
  T('active', 'focus_human_handoff', 'human_handoff', 'a protected path, a plan across stages or fewer than two unblocked targets; the refs stay consumed and the slot is freed'),
  T('active', 'focus_case_blocked', 'active', 'one target failed alone: excluded on this base, never counted as met'),
  T('active', 'evaluation_inconclusive', 'active', 'the targets could not be judged (or the gate could not decide); nothing is decided'),
  T('active', 'daily_attempt_limit_reached', 'active', 'three attempts already started today'),
  T('active', 'candidate_plan_rejected', 'active', 'no admissible proposal after one re-plan'),
  T('active', 'candidate_rejected', 'active', 'the candidate left the blocking criterion unmet on a target'),
  T('active', 'candidate_enqueued', 'active', 'an accepted candidate is on optimizer.candidate-enqueued with its optimisation record (or still waits there): later runs refresh the cases but propose nothing new on this base'),
];

/** Outcomes of a run that is about no Focus in particular: they move nothing. */
export const RUN_OUTCOMES = ['no_active_focus', 'no_focus_candidate', 'run_in_progress'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];
export const RUN_OUTCOME_MEANING: Readonly<Record<RunOutcome, string>> = {
  no_active_focus: 'no Focus is active',
  no_focus_candidate: 'nothing to select or baseline (fewer than two targets share one narrow problem, or the slot is taken)',
  run_in_progress: 'another optimizer run holds the lease or moved the Focus first; this one did nothing',
};

export type FocusOutcome = TransitionOutcome | RunOutcome;
export const FOCUS_OUTCOMES: readonly FocusOutcome[] = [...TRANSITION_OUTCOMES, ...RUN_OUTCOMES];

export class IllegalTransitionError extends Error {
  constructor(
    readonly from: FocusStatus | 'none',
    readonly outcome: TransitionOutcome,
  ) {
    super(`a Focus that is ${from} cannot end in ${outcome}: not a transition of the Focus state machine`);
  }
}

/** The table's row for (from, outcome); throws `IllegalTransitionError` when there is none. */
export function transitionFor(from: FocusStatus | 'none', outcome: TransitionOutcome): FocusTransition {
  const row = FOCUS_TRANSITIONS.find((t) => t.from === from && t.outcome === outcome);
  if (!row) throw new IllegalTransitionError(from, outcome);
  return row;
}

/** Whether a run that reported `outcome` stops there (the table's `endsRun`). */
export const endsRun = (outcome: FocusOutcome): boolean => FOCUS_TRANSITIONS.some((t) => t.outcome === outcome && t.endsRun);

/** The refs each state is set to, from the groups the caller observed; a group the row needs but the caller did not give is a bug. */
export function refChanges(row: FocusTransition, sets: RefSets): { state: keyof RefEffect; refs: readonly string[] }[] {
  return (['open', 'consumed', 'suppressed'] as const).flatMap((state) => {
    const group = row.refs[state];
    if (group === undefined) return [];
    const refs = sets[group];
    if (refs === undefined) throw new Error(`${row.from} -> ${row.to} (${row.outcome}) needs the ${group} refs`);
    return [{ state, refs }];
  });
}

const effectText = (r: RefEffect) => Object.entries(r).map(([state, group]) => `${group} ${state === 'open' ? 'released' : state}`);

/** The table as markdown rows (docs/optimizer.md shows it under the diagram; a spec keeps them equal). */
export function transitionTable(): string {
  const rows = FOCUS_TRANSITIONS.map((t) => `| ${t.from} | \`${t.outcome}\` | ${t.to} | ${effectText(t.refs).join(', ') || '—'} | ${[t.closes ? 'close checkpoint first' : '', t.endsRun ? 'ends the run' : ''].filter(Boolean).join(', ') || '—'} | ${t.meaning} |`);
  return ['| From | Outcome | To | Refs | Also | Meaning |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

/** A mermaid state diagram of the table (what docs/optimizer.md shows; a spec keeps them equal). */
export function stateDiagram(): string {
  const name = (s: FocusStatus | 'none') => (s === 'none' ? '[*]' : s);
  const lines = FOCUS_TRANSITIONS.map((t) => `  ${name(t.from)} --> ${name(t.to)}: ${[t.outcome, ...effectText(t.refs)].join(' / ')}`);
  const finals = FOCUS_STATUSES.filter((s) => !STATUS_MEANING[s].holdsSlot).map((s) => `  ${s} --> [*]`);
  return ['stateDiagram-v2', ...lines, ...finals].join('\n');
}
