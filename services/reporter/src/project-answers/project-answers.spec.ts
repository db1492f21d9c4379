import { comment, judged, published, startEmbeddedReporter, timeline, type ReporterEvent, type ReporterHarness } from '../../test/reporter-harness';

/** Feedback binding, inheritance, anchors and human replies, fed in awkward orders. */
describe('answer projection (bindings, anchor, quality)', () => {
  let h: ReporterHarness & { stop(): Promise<void> };

  beforeAll(async () => {
    h = await startEmbeddedReporter();
  }, 120000);

  afterAll(async () => {
    await h?.stop();
  });

  beforeEach(async () => {
    await h.reset();
  });

  const feedbackOf = async (ticketKey: string) =>
    (await h.reader.answerVersions(ticketKey)).map((a) => [a.runId, a.feedback.map((f) => `${f.commentId}:${f.action}${f.inherited ? ':inherited' : ''}`)]);

  const r8a = published('r8a', 'SUP-8', '2026-11-20T10:00:00+08:00', { answer: 'a' });
  const r8b = published('r8b', 'SUP-8', '2026-11-20T11:00:00+08:00', { answer: 'b' });
  const r8c = published('r8c', 'SUP-8', '2026-11-20T12:00:00+08:00', { answer: 'c' });
  const wrong = comment('c-ao', 'support', 'internal', '2026-11-20T11:30:00+08:00', '/ao wrong: the owner is the TiKV team');

  it('binds feedback to the answer published last before the comment, even when that answer arrives after the comment', async () => {
    await h.deliver(r8a, timeline('SUP-8', 1, [wrong]), r8c, r8b);
    expect(await feedbackOf('SUP-8')).toEqual([
      ['r8a', []],
      ['r8b', ['c-ao:wrong']],
      ['r8c', []],
    ]);
  });

  it('keeps the binding and takes the newest edit, whatever order the revisions arrive in; an edited-away command keeps its feedback', async () => {
    const edited = comment('c-ao', 'support', 'internal', '2026-11-20T11:30:00+08:00', '/ao accept: fixed after the update', '2026-11-20T13:00:00+08:00');
    const removed = comment('c-ao', 'support', 'internal', '2026-11-20T11:30:00+08:00', 'never mind', '2026-11-20T14:00:00+08:00');
    const revisions = [timeline('SUP-8', 1, [wrong]), timeline('SUP-8', 2, [edited]), timeline('SUP-8', 3, [removed])];
    await h.deliver(r8a, r8b, revisions[2], revisions[0], revisions[1], r8c);
    const answers = await h.reader.answerVersions('SUP-8');
    expect(answers.map((a) => a.feedback.map((f) => [f.commentId, f.action, f.reason, f.commentUpdatedAt]))).toEqual([
      [],
      [['c-ao', 'accept', 'fixed after the update', '2026-11-20T05:00:00.000Z']],
      [],
    ]);
    expect(answers[1].quality).toEqual({ score: 1, source: 'feedback', judgeReviewRequested: false });

    await h.reset();
    await h.deliver(r8c, revisions[0], r8b, revisions[1], r8a, revisions[2]);
    expect((await h.reader.answerVersions('SUP-8')).map((a) => a.feedback.map((f) => [f.commentId, f.action, f.reason]))).toEqual([
      [],
      [['c-ao', 'accept', 'fixed after the update']],
      [],
    ]);
  });

  it('never lets an older timeline revision replace the comments of a newer one', async () => {
    const reply = comment('c-reply', 'support', 'public', '2026-11-20T12:30:00+08:00', 'The cause is a missing index.');
    await h.deliver(r8a, timeline('SUP-8', 5, [reply]), timeline('SUP-8', 4, []));
    expect((await h.reader.answerVersions('SUP-8'))[0].humanReplyAt).toBe('2026-11-20T04:30:00.000Z');
  });

  it('inherits feedback only into later runs with the same answer fingerprint', async () => {
    const events: ReporterEvent[] = [
      published('r9a', 'SUP-9', '2026-11-20T10:00:00+08:00', { answer: 'same' }),
      published('r9b', 'SUP-9', '2026-11-20T12:00:00+08:00', { answer: 'same' }),
      published('r9c', 'SUP-9', '2026-11-20T13:00:00+08:00', { answer: 'different' }),
      timeline('SUP-9', 1, [comment('c9', 'support', 'public', '2026-11-20T11:00:00+08:00', '/ao revise: add the escalation condition')]),
      judged('e9c', 'r9c', 'SUP-9', 'different', 'equivalent', '2026-11-20T20:00:00+08:00'),
    ];
    await h.deliver(...events);
    const answers = await h.reader.answerVersions('SUP-9');
    expect(answers.map((a) => [a.runId, a.feedback.map((f) => `${f.commentId}:${f.action}${f.inherited ? ':inherited' : ''}`), a.quality?.score, a.quality?.source])).toEqual([
      ['r9a', ['c9:revise'], 0, 'feedback'],
      ['r9b', ['c9:revise:inherited'], 0, 'feedback'],
      ['r9c', [], 1, 'judge'],
    ]);
  });

  it('ignores /ao from untrusted authors (public customer, bot) and leaves commands out of the human replies', async () => {
    await h.deliver(
      r8a,
      timeline('SUP-8', 1, [
        comment('c-cust', 'customer', 'public', '2026-11-20T10:10:00+08:00', '/ao wrong: I do not like it'),
        comment('c-bot', 'bot', 'internal', '2026-11-20T10:11:00+08:00', '/ao accept'),
        comment('c-sup', 'support', 'public', '2026-11-20T10:12:00+08:00', '/ao human'),
      ]),
    );
    const [answer] = await h.reader.answerVersions('SUP-8');
    expect(answer.feedback.map((f) => [f.commentId, f.action])).toEqual([['c-sup', 'human']]);
    expect(answer.quality).toEqual({ score: null, source: 'none', judgeReviewRequested: true });
    expect(answer.humanReplyAt).toBeNull();
  });

  it('anchors on the public bot reply written for the run, else on the internal comment, and counts human replies after the anchor', async () => {
    await h.deliver(
      r8a,
      r8b,
      published('r8r', 'SUP-8', '2026-11-20T10:30:00+08:00', { trigger: 'replay', mode: 'read', answer: 'r' }),
      timeline('SUP-8', 1, [
        // Written after r8a and after the replay, but before r8b: r8a's public reply (a read replay writes nothing).
        comment('c-pub', 'bot', 'public', '2026-11-20T10:45:00+08:00', 'Auto-oncall: here is what we found'),
        comment('c-h1', 'support', 'public', '2026-11-20T10:50:00+08:00', 'Support answer'),
      ]),
    );
    const answers = await h.reader.answerVersions('SUP-8');
    expect(answers.map((a) => [a.runId, a.anchor, a.humanReplyAt])).toEqual([
      ['r8a', { kind: 'public_reply', at: '2026-11-20T02:45:00.000Z' }, '2026-11-20T02:50:00.000Z'],
      ['r8r', { kind: 'none', at: null }, null],
      ['r8b', { kind: 'internal_comment', at: '2026-11-20T03:00:00.000Z' }, null],
    ]);
  });

  it('uses the latest evaluation of the answer version, whichever arrives first', async () => {
    await h.deliver(
      judged('late', 'r8a', 'SUP-8', 'a', 'human_better', '2026-11-21T10:00:00+08:00', ['new gap']),
      judged('early', 'r8a', 'SUP-8', 'a', 'equivalent', '2026-11-21T09:00:00+08:00', ['old gap']),
      r8a,
    );
    const [answer] = await h.reader.answerVersions('SUP-8');
    expect([answer.evaluationId, answer.verdict, answer.aiGaps, answer.quality?.score]).toEqual(['late', 'human_better', ['new gap'], 0]);
  });
});
