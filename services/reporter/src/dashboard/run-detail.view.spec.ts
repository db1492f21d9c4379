import { HOSTILE, runSummaryFixture } from './dashboard.fixtures';
import { renderRunDetail } from './run-detail.view';

describe('renderRunDetail', () => {
  it('shows both messages as markdown, the decision, evidence status and the verdict with reason and gaps', () => {
    const page = renderRunDetail(runSummaryFixture());
    expect(page).toContain('<h3 id="customer-reply">Customer reply</h3><p>Thanks for reporting.</p>');
    expect(page).toContain('<ul><li>p99 went from <strong>40ms</strong> to <code>90ms</code></li></ul>');
    expect(page).toContain('<p><strong>Evidence boundary:</strong> metrics via clinic (complete).<br><strong>Gap owner:</strong> none.</p>');
    expect(page).toContain('<span class="badge tone-warn">human_required</span>');
    expect(page).toContain('<span class="badge tone-good">complete</span>');
    expect(page).toContain('<span class="badge tone-info">different_but_valid</span>');
    expect(page).toContain('Both answers point at the report query.');
    expect(page).toContain('<li>did not name the missing index</li>');
    expect(page).toContain('<a href="/tickets/SUP-1042">SUP-1042</a>');
  });

  it('renders a <script> in an AI answer, reason or gap inert', () => {
    const page = renderRunDetail(runSummaryFixture({ customerReplyMarkdown: HOSTILE, internalHandoffMarkdown: `- ${HOSTILE}`, verdictReason: HOSTILE, aiGaps: [HOSTILE], failureCodes: [HOSTILE] }));
    expect(page).not.toMatch(/<script/i);
    expect(page.match(/&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;/g)).toHaveLength(5);
  });

  it('says what is not there yet: no evaluation, no execution record, no failure codes', () => {
    const page = renderRunDetail(runSummaryFixture({ verdict: null, verdictReason: null, aiGaps: [], evidenceStatus: null, failureCodes: [] }));
    expect(page).toContain('not judged yet');
    expect(page).toContain('The judge has not evaluated this answer yet.');
    expect(page).toContain('not recorded yet');
    expect(page).toContain('none recorded');
  });

  it('shows why the judge did not compare', () => {
    const page = renderRunDetail(runSummaryFixture({ verdict: 'not_compared', verdictReason: 'only progress replies', abstentionCode: 'JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE' }));
    expect(page).toContain('<code title="why the judge did not compare">JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE</code>');
    expect(renderRunDetail(runSummaryFixture())).not.toContain('why the judge did not compare');
  });

  it('lists failure codes', () => {
    expect(renderRunDetail(runSummaryFixture({ evidenceStatus: 'failed', failureCodes: ['PROVIDER.HTTP_5XX', 'PROVIDER.TIMEOUT'] }))).toContain('<code>PROVIDER.HTTP_5XX</code> <code>PROVIDER.TIMEOUT</code>');
  });
});
