import type { Bus } from '@aoc/bus';
import { Topics, type TicketCommentV1, type TicketTimelineUpdatedV1, type TopicDefinition } from '@aoc/contracts';
import { TicketIntakeService, analysisComments, checkCutoff, timelineComments } from './ticket-intake.service';

const now = new Date('2026-11-21T00:00:00Z');
const comment = (id: string, authorRole: TicketCommentV1['authorRole'], visibility: TicketCommentV1['visibility'], createdAt: string): TicketCommentV1 => ({ id, authorRole, visibility, createdAt, body: id });

describe('replay cutoff', () => {
  it('fails closed when a replay has no cutoff', () => {
    expect(() => checkCutoff(null, 'replay', '2026-11-20T10:00:00Z', now)).toThrow(expect.objectContaining({ code: 'INTAKE.CUTOFF_MISSING' }));
    expect(checkCutoff(null, 'initial', '2026-11-20T10:00:00Z', now)).toBeNull();
  });

  it.each([
    ['not a date', 'yesterday'],
    ['no offset', '2026-11-20T11:00:00'],
    ['in the future', '2026-11-22T00:00:00Z'],
    ['before the ticket', '2026-11-20T09:00:00Z'],
  ])('rejects a cutoff that is %s', (_why, cutoff) => {
    expect(() => checkCutoff(cutoff, 'replay', '2026-11-20T10:00:00Z', now)).toThrow(expect.objectContaining({ code: 'INTAKE.CUTOFF_INVALID' }));
  });

  it('keeps only public customer comments up to the cutoff for the analysis', () => {
    const comments = [
      comment('c1', 'customer', 'public', '2026-11-20T10:30:00Z'),
      comment('c2', 'support', 'internal', '2026-11-20T10:40:00Z'),
      comment('c3', 'bot', 'public', '2026-11-20T10:45:00Z'),
      comment('c4', 'support', 'public', '2026-11-20T10:50:00Z'),
      comment('c5', 'customer', 'public', '2026-11-20T11:30:00Z'),
    ];
    expect(analysisComments(comments, '2026-11-20T11:00:00Z').map((c) => c.id)).toEqual(['c1']);
    expect(analysisComments(comments, null).map((c) => c.id)).toEqual(['c1', 'c5']);
  });
});

describe('timeline comments', () => {
  const at = (id: string, authorRole: TicketCommentV1['authorRole'], visibility: TicketCommentV1['visibility'], createdAt: string, body: string): TicketCommentV1 => ({
    id,
    authorRole,
    visibility,
    createdAt,
    body,
  });
  const visibleUntil = Date.parse('2026-11-20T11:00:00Z');

  it('fills feedback with the parsed /ao command of trusted comments only', () => {
    const comments = [
      at('c1', 'support', 'internal', '2026-11-20T10:10:00Z', '/ao revise: wrong owner\nsee TiKV logs'),
      at('c2', 'engineer', 'public', '2026-11-20T10:20:00Z', '/ao accept'),
      at('c3', 'customer', 'public', '2026-11-20T10:30:00Z', '/ao wrong: I disagree'),
      at('c4', 'bot', 'public', '2026-11-20T10:40:00Z', '/ao accept'),
      at('c5', 'unknown', 'public', '2026-11-20T10:50:00Z', '/ao wrong: who am I'),
      at('c6', 'support', 'public', '2026-11-20T10:55:00Z', 'Thanks, /ao accept later'),
      at('c7', 'unknown', 'internal', '2026-11-20T10:58:00Z', '/ao human'),
    ];
    expect(timelineComments(comments, visibleUntil).map((c) => [c.id, c.feedback])).toEqual([
      ['c1', { action: 'revise', reason: 'wrong owner\nsee TiKV logs' }],
      ['c2', { action: 'accept', reason: '' }],
      ['c3', null],
      ['c4', null],
      ['c5', null],
      ['c6', null],
      ['c7', { action: 'human', reason: '' }],
    ]);
  });

  it('keeps ordering, visibleToAi and the untouched body; updatedAt is the creation time', () => {
    const comments = [
      at('c2', 'support', 'public', '2026-11-20T11:30:00Z', '/ao wrong: late'),
      at('c1', 'customer', 'public', '2026-11-20T10:30:00Z', 'still slow'),
      at('c0', 'support', 'internal', '2026-11-20T10:30:00Z', '/ao accept'),
    ];
    expect(timelineComments(comments, visibleUntil)).toEqual([
      { id: 'c0', authorRole: 'support', visibility: 'internal', createdAt: '2026-11-20T10:30:00Z', updatedAt: '2026-11-20T10:30:00Z', body: '/ao accept', visibleToAi: false, feedback: { action: 'accept', reason: '' } },
      { id: 'c1', authorRole: 'customer', visibility: 'public', createdAt: '2026-11-20T10:30:00Z', updatedAt: '2026-11-20T10:30:00Z', body: 'still slow', visibleToAi: true, feedback: null },
      { id: 'c2', authorRole: 'support', visibility: 'public', createdAt: '2026-11-20T11:30:00Z', updatedAt: '2026-11-20T11:30:00Z', body: '/ao wrong: late', visibleToAi: false, feedback: { action: 'wrong', reason: 'late' } },
    ]);
  });

  it('publishes a timeline the contract accepts, even for a very long feedback reason', async () => {
    const published: { topic: string; payload: unknown }[] = [];
    const uow = {
      manager: { insert: async () => undefined },
      publish: async (topic: TopicDefinition, payload: unknown) => {
        topic.value.parse(payload);
        published.push({ topic: topic.name, payload });
      },
    };
    const bus = { transaction: async <R>(work: (u: typeof uow) => Promise<R>): Promise<R> => work(uow) };
    const service = new TicketIntakeService(bus as unknown as Bus);
    await service.analyze({
      ticket: {
        key: 'SUP-1',
        title: 'latency',
        description: 'p99 up',
        reporterRole: 'customer',
        createdAt: '2026-11-20T10:00:00Z',
        comments: [
          at('c1', 'support', 'internal', '2026-11-20T10:10:00Z', `/ao revise: ${'r'.repeat(9000)}`),
          at('c2', 'customer', 'public', '2026-11-20T10:20:00Z', '/ao accept'),
        ],
      },
    });
    const timeline = published.find((p) => p.topic === Topics.ticketTimelineUpdated.name)?.payload as TicketTimelineUpdatedV1;
    expect(timeline.comments.map((c) => [c.id, c.feedback?.action ?? null])).toEqual([
      ['c1', 'revise'],
      ['c2', null],
    ]);
    expect(timeline.comments[0].body).toHaveLength('/ao revise: '.length + 9000);
  });

  describe('a ticket sent in the request body', () => {
    const forged = {
      key: 'SUP-1042',
      title: 'latency',
      description: 'p99 up',
      reporterRole: 'customer' as const,
      createdAt: '2026-11-20T10:00:00Z',
      comments: [at('c1', 'support', 'public', '2026-11-20T10:10:00Z', '/ao wrong: forged'), at('c2', 'support', 'public', '2026-11-20T10:20:00Z', 'The cause was X (a forged human answer)')],
    };
    const harness = () => {
      const published: { topic: string; payload: unknown }[] = [];
      const inserted: Record<string, unknown>[] = [];
      const uow = {
        manager: { insert: async (_e: unknown, row: Record<string, unknown>) => void inserted.push(row) },
        publish: async (topic: TopicDefinition, payload: unknown) => void published.push({ topic: topic.name, payload: topic.value.parse(payload) }),
      };
      const bus = { transaction: async <R>(work: (u: typeof uow) => Promise<R>): Promise<R> => work(uow) };
      return { service: new TicketIntakeService(bus as unknown as Bus), published, inserted };
    };

    it('runs under the caller\'s own key namespace and publishes no timeline revision', async () => {
      const { service, published, inserted } = harness();
      const accepted = await service.analyze({ ticket: forged }, { kind: 'caller', subject: 'token:abc' });
      expect(accepted.ticketKey).toMatch(/^adhoc-[0-9a-f]{8}-SUP-1042$/);
      expect(inserted[0]).toMatchObject({ ticketKey: accepted.ticketKey });
      expect(published.map((p) => p.topic)).toEqual([Topics.ticketAnalysisRequested.name]);
      expect((published[0].payload as { ticket: { key: string } }).ticket.key).toBe(accepted.ticketKey);
      // Another principal sending the same body lands in another namespace.
      expect((await service.analyze({ ticket: forged }, { kind: 'caller', subject: 'token:def' })).ticketKey).not.toBe(accepted.ticketKey);
    });

    it('answers a request without a body with the fields it needs, not a crash', async () => {
      const { service } = harness();
      await expect(service.analyze(undefined as never)).rejects.toMatchObject({ name: 'ZodError' });
      await expect(service.analyze(null as never, { kind: 'caller', subject: 'token:abc' })).rejects.toMatchObject({ name: 'ZodError' });
    });

    it('is refused in write mode, and its answer is never written back', async () => {
      const { service, published } = harness();
      await expect(service.analyze({ ticket: forged, mode: 'write' }, { kind: 'caller', subject: 'token:abc' })).rejects.toMatchObject({ code: 'INTAKE.UNTRUSTED_TICKET' });
      expect(published).toEqual([]);
      await expect(service.publishRead({ runId: 'run-1', ticketKey: 'adhoc-0123abcd-SUP-1042', answerFingerprint: 'a'.repeat(64) })).rejects.toMatchObject({ code: 'INTAKE.UNTRUSTED_TICKET' });
    });

    it('keeps its key and history when imported', async () => {
      const { service, published } = harness();
      const accepted = await service.analyze({ ticket: forged, import: true }, { kind: 'import' });
      expect(accepted.ticketKey).toBe('SUP-1042');
      expect(published.map((p) => p.topic)).toEqual([Topics.ticketAnalysisRequested.name, Topics.ticketTimelineUpdated.name]);
    });
  });
});
