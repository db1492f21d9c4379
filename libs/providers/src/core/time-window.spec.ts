import { checkWindow, clampWindow, DAY_MS } from './time-window';

describe('clampWindow', () => {
  it('keeps the end (the cutoff) and cuts a longer window to its last part', () => {
    const long = { from: '2026-09-01T00:00:00Z', to: '2026-11-20T11:00:00Z' };
    expect(clampWindow(long, 30 * DAY_MS)).toEqual({ window: { from: '2026-10-21T11:00:00.000Z', to: long.to }, clamped: true });
    const exact = { from: '2026-10-21T11:00:00Z', to: '2026-11-20T11:00:00Z' };
    expect(clampWindow(exact, 30 * DAY_MS)).toEqual({ window: exact, clamped: false });
    // What it passes on still meets the check it was cut for.
    expect(() => checkWindow(clampWindow(long, 30 * DAY_MS).window, 30 * DAY_MS, new Date('2026-12-01T00:00:00Z'))).not.toThrow();
  });

  it('leaves windows it cannot read to checkWindow', () => {
    const relative = { from: 'now-30d', to: 'now' };
    expect(clampWindow(relative, DAY_MS)).toEqual({ window: relative, clamped: false });
    const reversed = { from: '2026-11-20T00:00:00Z', to: '2026-09-01T00:00:00Z' };
    expect(clampWindow(reversed, DAY_MS).clamped).toBe(false);
    expect(() => checkWindow(clampWindow(reversed, DAY_MS).window, DAY_MS)).toThrow(/before/);
  });
});
