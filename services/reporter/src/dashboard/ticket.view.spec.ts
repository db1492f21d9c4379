import { answerVersionFixture, HOSTILE } from './dashboard.fixtures';
import { renderTicket } from './ticket.view';

describe('renderTicket', () => {
  const v1 = answerVersionFixture({ feedback: [{ commentId: 'c-9', action: 'wrong', reason: 'missed the index', inherited: false }] });
  const v2 = answerVersionFixture({
    runId: 'run-2',
    answerFingerprint: 'c'.repeat(64),
    publishedAt: '2026-11-21T01:00:00.000Z',
    trigger: 'continuation',
    verdict: null,
    verdictReason: null,
    feedback: [{ commentId: 'c-9', action: 'wrong', reason: 'missed the index', inherited: true }],
  });

  it('numbers versions in publication order, shows the newest first with fingerprints and verdicts', () => {
    const page = renderTicket('SUP-1042', [v1, v2]);
    expect(page).toContain('2 answer versions');
    expect(page.indexOf('Answer version 2')).toBeLessThan(page.indexOf('Answer version 1'));
    expect(page).toContain(`<dd class="mono">${'b'.repeat(64)}</dd>`);
    expect(page).toContain(`data-fingerprint="${'c'.repeat(64)}"`);
    expect(page).toContain('Answer version 1 <span class="badge tone-bad">human_better</span>');
    expect(page).toContain('Answer version 2 <span class="badge tone-muted">not judged yet</span>');
    expect(page).toContain('<a class="mono" href="/runs/run-2">run-2</a> · continuation');
  });

  it('shows the abstention code of a not_compared version', () => {
    const page = renderTicket('SUP-1042', [answerVersionFixture({ verdict: 'not_compared', abstentionCode: 'JUDGE.NEEDS_MODEL' })]);
    expect(page).toContain('<code class="abstention" title="why the judge did not compare">JUDGE.NEEDS_MODEL</code>');
  });

  it('shows every evaluation revision with the selected human comments, and the timeline with roles, visibility and what the AI saw', () => {
    const version = answerVersionFixture({
      evaluations: [
        { evaluationId: 'e1', revision: 1, verdict: 'not_compared', abstentionCode: 'JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE', eligibility: 'not_substantive', judgedAt: '2026-11-20T04:00:00.000Z', humanCommentIds: [] },
        { evaluationId: 'e2', revision: 2, verdict: 'human_better', abstentionCode: null, eligibility: 'compared', judgedAt: '2026-11-20T05:00:00.000Z', humanCommentIds: ['c-3'] },
      ],
    });
    const timeline = [
      { commentId: 'c-1', authorRole: 'customer', visibility: 'public', visibleToAi: true, isFeedback: false, createdAt: '2026-11-20T03:00:00.000Z', updatedAt: '2026-11-20T03:00:00.000Z', body: HOSTILE },
      { commentId: 'c-3', authorRole: 'support', visibility: 'public', visibleToAi: false, isFeedback: false, createdAt: '2026-11-20T04:30:00.000Z', updatedAt: '2026-11-20T04:40:00.000Z', body: 'The index is missing.' },
      { commentId: 'c-9', authorRole: 'support', visibility: 'internal', visibleToAi: false, isFeedback: true, createdAt: '2026-11-20T06:00:00.000Z', updatedAt: '2026-11-20T06:00:00.000Z', body: '/ao revise: index' },
    ];
    const page = renderTicket('SUP-1042', [version], timeline);
    expect(page).toContain('<code>JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE</code>');
    // Why each revision was or was not compared.
    expect(page).toMatch(/<td class="eligibility"[^>]*>not substantive<\/td>/);
    expect(page).toMatch(/<td class="eligibility"[^>]*>compared<\/td>/);
    expect(page).toContain('<a class="mono" href="#comment-c-3">c-3</a>');
    expect(page).toContain('<tr id="comment-c-3">');
    expect(page).toMatch(/<td>support<\/td><td>internal<\/td><td>no<\/td>/);
    expect(page).toMatch(/<td>customer<\/td><td>public<\/td><td>yes<\/td>/);
    expect(page).not.toMatch(/<script/i);
    expect(renderTicket('SUP-1042', [answerVersionFixture()])).toContain('No timeline has been received for this ticket.');
  });

  it('marks inherited /ao feedback', () => {
    const page = renderTicket('SUP-1042', [v1, v2]);
    expect(page).toContain('<span class="badge tone-bad">wrong</span></td><td>missed the index</td><td>this version</td>');
    expect(page).toContain('<td>missed the index</td><td><span class="badge tone-muted">inherited from an earlier version</span></td>');
  });

  it('renders untrusted feedback and answers inert', () => {
    const page = renderTicket('SUP-1042', [answerVersionFixture({ customerReplyMarkdown: HOSTILE, feedback: [{ commentId: 'c-1', action: 'revise', reason: HOSTILE, inherited: false }] })]);
    expect(page).not.toMatch(/<script/i);
  });

  it('shows quality, gaps, evidence status, report membership and where inherited feedback is bound', () => {
    const page = renderTicket('SUP-1042', [
      answerVersionFixture({
        trigger: 'continuation',
        counted: false,
        evidenceStatus: 'degraded',
        aiGaps: ['no owner named'],
        humanReplyAt: '2026-11-20T12:30:00.000Z',
        quality: { score: 0, source: 'feedback', judgeReviewRequested: true },
        feedback: [{ commentId: 'c-9', action: 'wrong', reason: 'r', inherited: true, boundRunId: 'run-0', authorRole: 'support', visibility: 'internal' }],
      }),
    ]);
    expect(page).toContain('<span class="badge tone-warn">degraded</span>');
    expect(page).toContain('<li>no owner named</li>');
    expect(page).toContain('<span class="badge tone-bad">bad</span> <small>from /ao feedback; /ao human asked for a Judge review</small>');
    expect(page).toContain('not counted (trigger continuation)');
    expect(page).toContain('2026-11-20 20:30');
    expect(page).toContain('<small>support, internal</small>');
    expect(page).toContain('bound to <a class="mono" href="/runs/run-0">run-0</a>');
  });

  it('has an empty state', () => {
    const page = renderTicket('SUP-1', []);
    expect(page).toContain('No answer has been published for this ticket.');
    expect(page).toContain('0 answer versions');
  });
});
