import { dailyReportFixture, emptyDailyReport, HOSTILE, weeklyReportFixture } from './dashboard.fixtures';
import { renderDailyReport, renderWeeklyReport } from './quality-report.view';

describe('renderDailyReport', () => {
  it('shows counts, quality, the verdict chart, top gaps, runtime signals, funnel and provider health', () => {
    const page = renderDailyReport(dailyReportFixture());
    expect(page).toContain('<h1>Daily report · 2026-11-20</h1>');
    expect(page).toContain('<div class="value">3</div><div class="label">runs counted</div>');
    expect(page).toContain('<div class="value">1<small> (33.3%)</small></div><div class="label">good</div>');
    // Every verdict has a bar, in a fixed order, zero included.
    expect(page).toContain('<title>ai_better: 0</title>');
    expect(page).toContain('<title>human_better: 1</title>');
    expect(page).toContain('<title>unjudged: 1</title>');
    expect(page.indexOf('ai_better: 0')).toBeLessThan(page.indexOf('human_better: 1'));
    expect(page).toContain('<tr><td>did not name the missing index</td><td class="num">2</td></tr>');
    expect(page).toContain('<code>PROVIDER.HTTP_5XX</code>');
    expect(page).toContain('<title>with human reply: 2</title>');
    expect(page).toContain('accept 0 · revise 1 · wrong 0 · human 0');
    expect(page).toContain('<td class="num">50.0%</td>');
    expect(page).toContain('href="/reports/daily?day=2026-11-19"');
    expect(page).toContain('href="/reports/daily?day=2026-11-21"');
    expect(page).toContain('href="/providers?from=2026-11-20&amp;to=2026-11-20"');
    expect(page).toContain('<a href="/reports/daily" aria-current="page">Daily report</a>');
  });

  it('says whose runs it counts and keeps a chosen tenant across the period links', () => {
    expect(renderDailyReport(dailyReportFixture())).toContain('Every tenant.');
    const page = renderDailyReport(dailyReportFixture({ tenant: 'acme' }));
    expect(page).toContain('Tenant acme.');
    expect(page).toContain('href="/reports/daily?day=2026-11-19&amp;tenant=acme"');
    expect(page).toContain('<input type="hidden" name="tenant" value="acme">');
  });

  it('has empty states for a day without data', () => {
    const page = renderDailyReport(emptyDailyReport('2026-11-22'));
    expect(page).toContain('No data for verdict distribution.');
    expect(page).toContain('No data for funnel.');
    expect(page).toContain('No gaps recorded in this period.');
    expect(page).toContain('No run with degraded or failed evidence acquisition in this period.');
    expect(page).toContain('No provider queries in this period.');
    expect(page).toContain('<div class="value">0<small></small></div><div class="label">good</div>');
  });

  it('shows anchors, Judge review requests and the weighted all-providers line when the reader provides them', () => {
    const page = renderDailyReport(
      dailyReportFixture({
        anchors: { publicReply: 2, internalComment: 1 },
        judgeReviewRequested: 1,
        providerOverall: [{ day: '2026-11-20', queries: 6, succeeded: 5, failed: 1, successRate: 5 / 6 }],
        providerHealth: dailyReportFixture().providerHealth.map((h) => ({ ...h, supplemental: { queries: 1, succeeded: 1, failed: 0 } })),
      }),
    );
    expect(page).toContain('public reply 2 · internal comment 1');
    expect(page).toContain('<div class="value">1</div><div class="label">Judge reviews asked (/ao human)</div>');
    expect(page).toContain('<g class="series" data-series="all providers">');
    expect(page).toContain('stroke-dasharray="6 4"');
    expect(page).toContain('<title>all providers 11-20: 83%</title>');
    expect(page).toContain('<th class="num">Supplemental ok / failed</th>');
    expect(page).toContain('<td class="num">1 / 0</td>');
  });

  it("lists the model judge's disagreements with the built-in verdicts (codes only), with counts and empty states", () => {
    const disagreement = {
      runId: 'run-7',
      ticketKey: 'SUP-1049',
      evaluationId: 'eval-7',
      judgedAt: '2026-11-20T04:00:00.000Z',
      builtinVerdict: 'human_better' as const,
      modelVerdict: 'equivalent' as const,
      modelEngine: 'openai:judge-xl',
      reasonCode: 'ticket_value_ignored',
    };
    const page = renderDailyReport(dailyReportFixture({ judgeCrossCheck: { crossChecked: 4, disagreed: 1, disagreements: [disagreement] } }));
    expect(page).toContain('<h2 id="judge-cross-check">Judge cross-check</h2>');
    expect(page).toContain('<div class="value">4</div><div class="label">decided verdicts cross-checked by a model</div>');
    expect(page).toContain('<div class="value">1<small> (25.0%)</small></div><div class="label">model disagreed</div>');
    expect(page).toContain('<th>Built-in verdict</th><th>Model verdict</th><th>Model</th><th>Reason code</th>');
    expect(page).toContain('<a class="mono" href="/runs/run-7">run-7</a>');
    expect(page).toContain('<a href="/tickets/SUP-1049">SUP-1049</a>');
    expect(page).toContain('<td class="mono">openai:judge-xl</td><td><code>ticket_value_ignored</code></td>');
    expect(page.indexOf('human_better', page.indexOf('judge-disagreements'))).toBeLessThan(page.indexOf('equivalent', page.indexOf('judge-disagreements')));
    expect(renderDailyReport(dailyReportFixture({ judgeCrossCheck: { crossChecked: 4, disagreed: 3, disagreements: [disagreement] } }))).toContain('The first 1 of 3 are listed.');
    expect(renderDailyReport(dailyReportFixture({ judgeCrossCheck: { crossChecked: 2, disagreed: 0, disagreements: [] } }))).toContain('The model judge did not disagree with any cross-checked verdict in this period.');
    expect(renderDailyReport(dailyReportFixture({ judgeCrossCheck: { crossChecked: 0, disagreed: 0, disagreements: [] } }))).toContain('No decided verdict was cross-checked by a model judge in this period.');
    // A reader without the figures shows no section.
    expect(renderDailyReport(dailyReportFixture())).not.toContain('judge-cross-check');
    expect(renderWeeklyReport(weeklyReportFixture({ judgeCrossCheck: { crossChecked: 4, disagreed: 1, disagreements: [disagreement] } }))).toContain('<a class="mono" href="/runs/run-7">run-7</a>');
    const hostile = renderDailyReport(dailyReportFixture({ judgeCrossCheck: { crossChecked: 1, disagreed: 1, disagreements: [{ ...disagreement, modelEngine: HOSTILE, reasonCode: HOSTILE }] } }));
    expect(hostile).not.toMatch(/<script/i);
  });

  it('escapes gap text', () => {
    expect(renderDailyReport(dailyReportFixture({ topGaps: [{ gap: HOSTILE, count: 1 }] }))).not.toMatch(/<script/i);
  });
});

describe('renderWeeklyReport', () => {
  it('adds the provider 5xx table and week navigation', () => {
    const page = renderWeeklyReport(weeklyReportFixture());
    expect(page).toContain('<h1>Weekly report · 2026-11-16 – 2026-11-22</h1>');
    expect(page).toContain('<td class="mono">p99-latency</td><td class="num">2</td><td class="num">1</td><td class="num">1</td><td class="num">3</td>');
    expect(page).toContain('<a href="/tickets/SUP-1042">SUP-1042</a>, <a href="/tickets/SUP-1043">SUP-1043</a>');
    expect(page).toContain('<div>502 Bad Gateway</div>');
    expect(page).toContain('href="/reports/weekly?weekStart=2026-11-09"');
    expect(page).toContain('href="/reports/weekly?weekStart=2026-11-23"');
  });

  it('says when no 5xx happened', () => {
    expect(renderWeeklyReport(weeklyReportFixture({ provider5xx: [] }))).toContain('No provider 5xx responses this week.');
  });
});
