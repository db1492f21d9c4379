import type { TicketCommentV1 } from '@aoc/contracts';
import { holdsHumanAnswer, humanAnswerComments } from './human-answer';
import { runEnd } from './run-example';

const CUTOFF = '2026-11-30T10:00:00.000Z';
const comment = (id: string, over: Partial<TicketCommentV1>): TicketCommentV1 => ({ id, authorRole: 'support', visibility: 'public', createdAt: '2026-11-30T11:00:00.000Z', body: 'The pool was exhausted; we raised it.', ...over });
const ticket = (comments: TicketCommentV1[]) => ({ key: 'RDS-1', title: 't', description: 'd', reporterRole: 'customer' as const, createdAt: '2026-11-30T09:00:00.000Z', comments });

describe('human answer of a ticket file (what the Judge compares with)', () => {
  it('is the public Support or engineer replies after the cutoff', () => {
    const comments = [comment('s1', {}), comment('e1', { authorRole: 'engineer' })];
    expect(humanAnswerComments(ticket(comments), CUTOFF).map((c) => c.id)).toEqual(['s1', 'e1']);
    expect(runEnd({ cutoff: CUTOFF, ticket: ticket(comments) })).toBe('judged');
  });

  it.each([
    ['a customer comment', comment('c', { authorRole: 'customer' })],
    ['an internal note', comment('i', { visibility: 'internal' })],
    ['a reply before the cutoff', comment('b', { createdAt: '2026-11-30T09:30:00.000Z' })],
    ['an /ao command', comment('a', { body: '/ao wrong the cause is the network' })],
    ['a bot comment', comment('bot', { authorRole: 'bot' })],
  ])('is not %s', (_what, only) => {
    expect(holdsHumanAnswer(ticket([only]), CUTOFF)).toBe(false);
    expect(runEnd({ cutoff: CUTOFF, ticket: ticket([only]) })).toBe('published');
  });

  it('does not exist without a cutoff: the anchor is the publication, after every comment of the file', () => {
    expect(holdsHumanAnswer(ticket([comment('s1', {})]), null)).toBe(false);
    expect(runEnd({ ticket: ticket([comment('s1', {})]) })).toBe('published');
  });
});
