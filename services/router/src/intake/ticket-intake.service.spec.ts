import type { TicketCommentV1 } from '@aoc/contracts';
import { analysisComments, checkCutoff } from './ticket-intake.service';

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
