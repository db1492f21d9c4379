import type { EntityManager } from 'typeorm';
import { refChanges, transitionFor, type FocusTransition, type RefSets, type TransitionOutcome } from '../focus/focus-machine';
import { mustMoveFocus, saveFocus, type FocusRow } from './focus-store';
import { setSignalState } from './signal-store';

/**
 * Applies one row of the Focus state machine inside the caller's transaction: the refs the row
 * names are set to their new state and the Focus moves (a move another run made first throws
 * `FocusMovedError`, so the transaction rolls back). A (status, outcome) pair the table does not
 * list throws `IllegalTransitionError` before anything is written.
 */
export async function transition(m: EntityManager, focus: Pick<FocusRow, 'focusId' | 'status'>, outcome: TransitionOutcome, refs: RefSets, at: Date): Promise<FocusTransition> {
  const row = transitionFor(focus.status, outcome);
  for (const change of refChanges(row, refs)) await setSignalState(m, change.refs, change.state, focus.focusId);
  // A transition that keeps the status still checks it (and stamps updated_at): a Focus another run moved is not written over.
  await mustMoveFocus(m, focus.focusId, focus.status, row.to, at);
  return row;
}

/** Creates the Focus row in the status the table's entry transition gives it (the same id again returns the stored row). */
export async function openFocus(m: EntityManager, f: Pick<FocusRow, 'focusId' | 'focusDigest' | 'signature' | 'candidate'>, at: Date): Promise<FocusRow> {
  return saveFocus(m, { ...f, status: transitionFor('none', 'focus_candidate_selected').to }, at);
}
