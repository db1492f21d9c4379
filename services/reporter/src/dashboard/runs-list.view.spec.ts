import { HOSTILE, runListFixture } from './dashboard.fixtures';
import { renderRunsList } from './runs-list.view';

describe('renderRunsList', () => {
  it('lists runs newest first with links, trigger, decision, evidence status and verdict', () => {
    const page = renderRunsList(runListFixture(), { limit: 25, before: undefined, defaultLimit: 25 });
    expect(page).toMatch(/^<!doctype html>/);
    expect(page.indexOf('data-run-id="run-2"')).toBeLessThan(page.indexOf('data-run-id="run-1"'));
    expect(page).toContain('<a class="mono" href="/runs/run-1">run-1</a>');
    expect(page).toContain('<a href="/tickets/SUP-1042">SUP-1042</a>');
    expect(page).toContain('<span class="badge tone-bad">human_better</span>');
    expect(page).toContain('not judged yet');
    expect(page).toContain('<span class="badge tone-warn">degraded</span>');
    expect(page).toContain('<time datetime="2026-11-20T11:05:00.000Z">2026-11-20 19:05</time>');
    expect(page).toContain('<a rel="next" href="/?before=run-1">Older →</a>');
    expect(page).not.toContain('← Newest');
    expect(page).toContain('<a href="/" aria-current="page">Runs</a>');
  });

  it('keeps a non-default page size in the paging links and links back to the newest page', () => {
    const page = renderRunsList(runListFixture(), { limit: 2, before: 'run-9', defaultLimit: 25 });
    expect(page).toContain('href="/?limit=2&amp;before=run-1"');
    expect(page).toContain('<a href="/?limit=2">← Newest</a>');
  });

  it('shows empty states for no runs and for the end of the list', () => {
    expect(renderRunsList({ rows: [], nextBefore: null }, { limit: 25, before: undefined, defaultLimit: 25 })).toContain('No runs have been published yet.');
    const end = renderRunsList({ rows: [], nextBefore: null }, { limit: 25, before: 'run-1', defaultLimit: 25 });
    expect(end).toContain('No older runs.');
    expect(end).not.toContain('<table');
  });

  it('escapes stored values', () => {
    const fixture = runListFixture();
    fixture.rows[0].trigger = HOSTILE;
    expect(renderRunsList(fixture, { limit: 25, before: undefined, defaultLimit: 25 })).not.toContain('<script>');
  });
});
