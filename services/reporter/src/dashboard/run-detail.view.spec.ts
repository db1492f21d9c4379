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

  it('lists the provider tool calls of the run with their audit fields', () => {
    const call = { scenarioId: 'cpu-saturation', provider: 'prometheus' as const, callId: 'c1', tool: 'prometheus_evidence_batch', operations: ['promql_range'], target: HOSTILE, window: { from: '2026-11-20T02:00:00.000Z', to: '2026-11-20T03:00:00.000Z' }, outcome: 'failure' as const, errorCode: 'PROVIDER.TIMEOUT', durationMs: 30000, outputBytes: 10, startedAt: '2026-11-20T03:00:01.000Z' };
    const page = renderRunDetail(runSummaryFixture({ toolCalls: [call] }));
    expect(page).toContain('prometheus · prometheus_evidence_batch');
    expect(page).toContain('failure <code>PROVIDER.TIMEOUT</code>');
    expect(page).toContain('30000 ms');
    expect(page).not.toMatch(/<script/i);
    expect(renderRunDetail(runSummaryFixture())).toContain('No provider tool call is recorded for this run.');
  });

  it('lists failure codes', () => {
    expect(renderRunDetail(runSummaryFixture({ evidenceStatus: 'failed', failureCodes: ['PROVIDER.HTTP_5XX', 'PROVIDER.TIMEOUT'] }))).toContain('<code>PROVIDER.HTTP_5XX</code> <code>PROVIDER.TIMEOUT</code>');
  });
});
