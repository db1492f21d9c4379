import { FocusHarness, ScriptedReplay, TICKETS, timeline } from '../../test/focus-harness';
import { IllegalTransitionError } from '../focus/focus-machine';
import { checkpointsOf, ofKind } from '../persistence/checkpoint-store';
import { focusesWith } from '../persistence/focus-store';
import { transition } from '../persistence/focus-transition';
import { saveTimeline, signals, timelineOf } from '../persistence/signal-store';
import { FocusController } from './focus-controller';
import { FocusIteration, type IterationDeps } from './focus-iteration';

/**
 * The lifecycle as the state machine and the seed (sections 5, 6 and 8) state it, on the embedded
 * Postgres: each case here failed before the machine owned the transitions.
 */
describe('Focus transitions (embedded Postgres, scripted replay)', () => {
  const h = new FocusHarness();
  const states = async () => Object.fromEntries((await signals(h.ds.manager)).map((s) => [s.ticketKey, s.state]));
  const statusOf = async (focusId: string | null) => (await h.ds.query(`SELECT "status" FROM "optimizer"."focuses" WHERE "focus_id" = $1`, [focusId]))[0]?.status;

  /** A selected candidate and its controller; `created` also runs the creation baseline. */
  async function selected(replay: ScriptedReplay, created = true) {
    const controller = new FocusController(h.deps(replay));
    const { focusId } = await controller.select();
    if (created) expect(await controller.baseline()).toMatchObject({ outcome: 'focus_created' });
    return { controller, focusId, iteration: new FocusIteration(h.deps(replay)) };
  }

  /** Removes a ticket's collected timeline; the returned function puts it back. */
  async function dropTimeline(ticketKey: string): Promise<() => Promise<void>> {
    const saved = await timelineOf(h.ds.manager, ticketKey);
    await h.ds.query(`DELETE FROM "optimizer"."ticket_timelines" WHERE "ticket_key" = $1`, [ticketKey]);
    return async () => void (saved && (await saveTimeline(h.ds.manager, saved, new Date())));
  }

  beforeAll(() => h.start(), 120000);
  afterAll(() => h.stop());
  beforeEach(() => h.seed());

  it('auto-closes releasing the refs of the targets not met and keeping the met ones consumed', async () => {
    const replay = new ScriptedReplay();
    const { focusId, iteration } = await selected(replay);
    replay.solved = new Set(TICKETS.slice(0, 2));
    expect(await iteration.iterate()).toMatchObject({ outcome: 'focus_auto_closed', reason: expect.stringContaining('2 of 3') });
    expect(await states()).toEqual({ [TICKETS[0]]: 'consumed', [TICKETS[1]]: 'consumed', [TICKETS[2]]: 'open' });
    expect(await statusOf(focusId)).toBe('auto_closed');
    const [close] = ofKind(await checkpointsOf(h.ds.manager, focusId ?? ''), 'focus_close');
    expect(close.payload.refs.unmet).toHaveLength(1);
  }, 60000);

  it('answers source_unverifiable for a target without a collected timeline, at creation and on the active Focus: nothing replayed, judged or moved', async () => {
    const replay = new ScriptedReplay();
    const { controller, focusId, iteration } = await selected(replay, false);
    let restore = await dropTimeline(TICKETS[0]);
    expect(await controller.baseline()).toMatchObject({ outcome: 'source_unverifiable', reason: expect.stringContaining(TICKETS[0]) });
    expect(replay.calls).toHaveLength(0);
    expect(await statusOf(focusId)).toBe('selected');
    expect(Object.values(await states())).toEqual(['open', 'open', 'open']);
    await restore();
    expect(await controller.baseline()).toMatchObject({ outcome: 'focus_created' });

    restore = await dropTimeline(TICKETS[1]);
    expect(await iteration.iterate()).toMatchObject({ outcome: 'source_unverifiable', reason: expect.stringContaining(TICKETS[1]) });
    expect(replay.calls).toHaveLength(1);
    expect(await statusOf(focusId)).toBe('active');
    expect(Object.values(await states())).toEqual(['consumed', 'consumed', 'consumed']);
    await restore();
    expect((await iteration.iterate()).outcome).toBe('candidate_enqueued');
  }, 60000);

  it('completes a close whose checkpoint was stored but whose move was lost, without replaying the old Focus', async () => {
    const replay = new ScriptedReplay();
    const { focusId } = await selected(replay);
    replay.solved = new Set(TICKETS.slice(0, 2));
    let crash = true;
    const dying: IterationDeps['transact'] = async (work) => {
      const kinds = ((await h.ds.query(`SELECT "kind" FROM "optimizer"."checkpoints"`)) as { kind: string }[]).map((r) => r.kind);
      if (crash && kinds.includes('focus_close')) {
        crash = false;
        throw new Error('killed between the close checkpoint and the move');
      }
      return h.transact(work);
    };
    await expect(new FocusIteration({ ...h.deps(replay), transact: dying }).iterate('replica-a')).rejects.toThrow('killed');
    expect(await statusOf(focusId)).toBe('active');
    const replays = replay.calls.length;
    // A replay now would keep the Focus active: the completed close must not look again.
    replay.solved = new Set();
    await h.ds.query(`DELETE FROM "optimizer"."leases"`);
    expect(await new FocusIteration(h.deps(replay)).iterate('replica-b')).toMatchObject({ outcome: 'focus_auto_closed' });
    expect(replay.calls).toHaveLength(replays);
    expect(await statusOf(focusId)).toBe('auto_closed');
    expect(await states()).toEqual({ [TICKETS[0]]: 'consumed', [TICKETS[1]]: 'consumed', [TICKETS[2]]: 'open' });
    expect(ofKind(await checkpointsOf(h.ds.manager, focusId ?? ''), 'focus_close')).toHaveLength(1);
  }, 60000);

  it('re-checks the sources after a candidate was enqueued: a changed target still closes the Focus', async () => {
    const replay = new ScriptedReplay();
    const { focusId, iteration } = await selected(replay);
    expect((await iteration.iterate()).outcome).toBe('candidate_enqueued');
    const edited = timeline(TICKETS[0], 2);
    edited.comments[1] = { ...edited.comments[1], body: 'row lock waits behind a long transaction, edited' };
    await saveTimeline(h.ds.manager, { ...edited, bindings: [], questionDigest: edited.questionDigest ?? null }, new Date());
    expect(await iteration.iterate()).toMatchObject({ outcome: 'focus_source_changed' });
    expect(await statusOf(focusId)).toBe('source_changed');
    expect(await states()).toEqual({ [TICKETS[0]]: 'suppressed', [TICKETS[1]]: 'open', [TICKETS[2]]: 'open' });
    expect(h.published).toHaveLength(1);
  }, 60000);

  it('refuses a move the table does not list, before writing anything', async () => {
    const { focusId } = await selected(new ScriptedReplay(), false);
    await expect(h.transact(({ manager: m }) => transition(m, { focusId: focusId ?? '', status: 'selected' }, 'candidate_enqueued', {}, new Date()))).rejects.toThrow(IllegalTransitionError);
    await expect(h.transact(({ manager: m }) => transition(m, { focusId: focusId ?? '', status: 'selected' }, 'focus_auto_closed', {}, new Date()))).rejects.toThrow(IllegalTransitionError);
    expect(await statusOf(focusId)).toBe('selected');
    expect(await focusesWith(h.ds.manager, 'active')).toEqual([]);
  }, 60000);
});
