import type { TimelineCommentV1 } from '@aoc/contracts';
import { commandRefOf, jobIdOf, parseTicketCommand, TICKET_DESCRIPTION_MAX, ticketCommands } from './triggers';

const comment = (id: string, body: string, authorRole: TimelineCommentV1['authorRole'] = 'support'): TimelineCommentV1 => ({ id, authorRole, visibility: 'internal', createdAt: '2026-12-01T00:00:00.000Z', updatedAt: '2026-12-01T00:00:00.000Z', body, visibleToAi: false, feedback: null });

describe('/ticket command', () => {
  it('reads the first non-empty line, case-insensitive, with an optional description', () => {
    expect(parseTicketCommand('/ticket')).toEqual({ description: null });
    expect(parseTicketCommand('  /TICKET   lock waits, not CPU  ')).toEqual({ description: 'lock waits, not CPU' });
    expect(parseTicketCommand('\n\n/Ticket the customer confirmed\tlock waits\nsecond line ignored')).toEqual({ description: 'the customer confirmed lock waits' });
    expect(parseTicketCommand('/tickets')).toBeUndefined();
    expect(parseTicketCommand('please /ticket this')).toBeUndefined();
    expect(parseTicketCommand('/ao wrong locks')).toBeUndefined();
    expect(parseTicketCommand('')).toBeUndefined();
  });

  it('clips a long description to its bound', () => {
    expect(parseTicketCommand(`/ticket ${'x'.repeat(TICKET_DESCRIPTION_MAX + 50)}`)?.description).toHaveLength(TICKET_DESCRIPTION_MAX);
  });

  it('takes commands from staff only, one per comment id, each its own deterministic job', () => {
    const found = ticketCommands([comment('c-1', '/ticket locks'), comment('c-2', '/ticket', 'customer'), comment('c-3', 'hello'), comment('c-4', '/ticket')]);
    expect(found.map((t) => [t.commentId, t.description])).toEqual([
      ['c-1', 'locks'],
      ['c-4', null],
    ]);
    const [a, b] = found;
    expect(jobIdOf('SUP-1', a)).toMatch(/^stj-[0-9a-f]{24}$/);
    expect(jobIdOf('SUP-1', a)).toBe(jobIdOf('SUP-1', { ...a, description: 'edited words' }));
    expect(jobIdOf('SUP-1', a)).not.toBe(jobIdOf('SUP-1', b));
    expect(jobIdOf('SUP-1', a)).not.toBe(jobIdOf('SUP-2', a));
    expect(commandRefOf(jobIdOf('SUP-1', a))).toMatch(/^stj_[0-9a-f]{24}$/);
  });
});
