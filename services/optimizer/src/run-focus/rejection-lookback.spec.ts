import { FocusHarness, ScriptedReplay, TICKETS } from '../../test/focus-harness';
import { signals } from '../persistence/signal-store';
import { FocusController } from './focus-controller';

/**
 * Seed §5: a rejected grouping is kept from selection only within a lookback window; after it,
 * the same refs are offered again (as a new Focus), and a new rejection starts a new window.
 */
describe('rejection lookback (embedded Postgres, scripted replay)', () => {
  const h = new FocusHarness();
  const DAY = 86_400_000;
  const start = new Date('2026-12-01T04:00:00Z');
  const controllerAt = (replay: ScriptedReplay, days: number, lookback?: number) =>
    new FocusController({ ...h.deps(replay), now: () => new Date(start.getTime() + days * DAY), ...(lookback === undefined ? {} : { rejectionLookbackDays: lookback }) });
  const statusOf = async (focusId: string | null) => (await h.ds.query(`SELECT "status" FROM "optimizer"."focuses" WHERE "focus_id" = $1`, [focusId]))[0]?.status;

  /** The current data already answers every target right, so each creation baseline rejects the grouping. */
  async function rejectAt(replay: ScriptedReplay, days: number, lookback?: number): Promise<string | null> {
    const controller = controllerAt(replay, days, lookback);
    const selected = await controller.select();
    expect(selected.outcome).toBe('focus_candidate_selected');
    expect(await controller.baseline()).toMatchObject({ outcome: 'focus_candidate_rejected' });
    return selected.focusId;
  }

  beforeAll(() => h.start(), 120000);
  afterAll(() => h.stop());
  beforeEach(() => h.seed());

  it('keeps a rejected grouping out for 14 days, then offers it again as a new Focus whose rejection starts a new window', async () => {
    const replay = new ScriptedReplay();
    for (const t of TICKETS) replay.solved.add(t);
    const first = await rejectAt(replay, 0);
    // A rejection consumes nothing: the refs stay open, only the grouping is remembered.
    expect((await signals(h.ds.manager)).map((s) => s.state)).toEqual(['open', 'open', 'open']);
    expect(await controllerAt(replay, 1).select()).toMatchObject({ outcome: 'no_focus_candidate' });
    expect(await controllerAt(replay, 13.9).select()).toMatchObject({ outcome: 'no_focus_candidate' });
    const second = await rejectAt(replay, 14.1);
    // The old Focus keeps its id and history; the new offer is a Focus of its own.
    expect(second).not.toBe(first);
    expect(second).toBe(`${first}-2`);
    expect(await statusOf(first)).toBe('rejected');
    expect(await controllerAt(replay, 20).select()).toMatchObject({ outcome: 'no_focus_candidate' });
    expect(await rejectAt(replay, 28.2)).toBe(`${first}-3`);
  }, 60000);

  it('follows the configured lookback', async () => {
    const replay = new ScriptedReplay();
    for (const t of TICKETS) replay.solved.add(t);
    await rejectAt(replay, 0, 3);
    expect(await controllerAt(replay, 2, 3).select()).toMatchObject({ outcome: 'no_focus_candidate' });
    replay.solved.clear();
    // Offered again after 3 days, and this time the baseline confirms the problem.
    const controller = controllerAt(replay, 3.5, 3);
    expect(await controller.select()).toMatchObject({ outcome: 'focus_candidate_selected' });
    expect(await controller.baseline()).toMatchObject({ outcome: 'focus_created' });
  }, 60000);
});
