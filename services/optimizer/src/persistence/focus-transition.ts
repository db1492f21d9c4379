import type { EntityManager } from 'typeorm';
import { refChanges, STATUS_MEANING, transitionFor, type FocusTransition, type RefSets, type TransitionOutcome } from '../focus/focus-machine';
import { focusTerminalNotification } from '../notifications/notification-payload';
import { appendFocusEntry, appendFocusHistory } from './focus-history';
import { focusById, mustMoveFocus, saveFocus, type FocusRow } from './focus-store';
import { enqueueNotification } from './notification-store';
import { setSignalState } from './signal-store';

/**
 * Applies one row of the Focus state machine inside the caller's transaction: the refs the row
 * names are set to their new state and the Focus moves (a move another run made first throws
 * `FocusMovedError`, so the transaction rolls back). A (status, outcome) pair the table does not
 * list throws `IllegalTransitionError` before anything is written. The move is added to the
 * Focus's history (the path it took), and a move into a final status writes the Focus's
 * `focus.terminal` notification in the same transaction (once: its id is the Focus's).
 */
export async function transition(m: EntityManager, focus: Pick<FocusRow, 'focusId' | 'status'>, outcome: TransitionOutcome, refs: RefSets, at: Date, reason: string | null = null): Promise<FocusTransition> {
  const row = transitionFor(focus.status, outcome);
  for (const change of refChanges(row, refs)) await setSignalState(m, change.refs, change.state, focus.focusId);
  // A transition that keeps the status still checks it (and stamps updated_at): a Focus another run moved is not written over.
  await mustMoveFocus(m, focus.focusId, focus.status, row.to, at);
  await appendFocusHistory(m, focus.focusId, { from: row.from, outcome, to: row.to, reason }, at);
  if (!STATUS_MEANING[row.to].holdsSlot) {
    const stored = await focusById(m, focus.focusId);
    if (stored) await enqueueNotification(m, focusTerminalNotification(stored, row.to, outcome, reason ?? row.meaning, at), at);
  }
  return row;
}

/** Creates the Focus row in the status the table's entry transition gives it (the same id again returns the stored row). */
export async function openFocus(m: EntityManager, f: Pick<FocusRow, 'focusId' | 'focusDigest' | 'signature' | 'candidate'>, at: Date): Promise<FocusRow> {
  const entry = transitionFor('none', 'focus_candidate_selected');
  const focus = await saveFocus(m, { ...f, status: entry.to }, at);
  await appendFocusEntry(m, focus.focusId, { outcome: entry.outcome, to: entry.to, reason: f.candidate.problemStatement }, at);
  return focus;
}
