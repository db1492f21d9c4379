import type { TimelineCommentV1 } from '@aoc/contracts';
import { TICKET_KEY, analysisRequested, comment, runPublished, timeline } from '../../test/judge-fixtures';
import { planJudgments } from '../judge-answer/judge-plan';
import { applyEvent, emptyTicketState } from '../judge-answer/ticket-state';
import { judgeRubric } from '../../test/rubric-fixtures';
import type { JudgeTimelineCommentV1 } from '../judge-answer/judge-input.schema';
import { factsOf, type Fact } from './facts/facts';
import { tagProvenance } from './provenance';

/**
 * Provenance anchored on the reply that first states each fact: later information is what reached
 * the human after the AI's cutoff and before that reply, not before the last reply of the answer.
 * Each case below was judged the other way when the window ran up to the last selected reply.
 */
const at = (hhmm: string) => `2026-11-20T${hhmm}:00.000Z`;
const ANCHOR = Date.parse(at('11:05'));
const note = (id: string, hhmm: string, body: string, role: JudgeTimelineCommentV1['authorRole'] = 'support', visibleToAi = false): JudgeTimelineCommentV1 => ({
  id,
  authorRole: role,
  createdAt: at(hhmm),
  updatedAt: at(hhmm),
  body,
  visibleToAi,
});
const fact = (text: string, key: string): Fact => {
  const found = factsOf(text).find((f) => f.key === key);
  if (!found) throw new Error(`no fact ${key} in "${text}"`);
  return found;
};
const LONG_TXN = fact('one long transaction', 'term:long transaction');

describe('provenance anchored on the reply that first states a fact', () => {
  const s1 = note('s1', '11:30', 'The lag comes from one long transaction on ledger_entries.');
  const s2 = note('s2', '12:10', 'Run the cleanup in batches of 10k rows so the long transaction is split.');

  it("keeps a fact the human wrote before the customer restated it as the human's own, anchored on that reply", () => {
    const customer = note('u1', '11:50', 'Right, our cleanup ran as one long transaction.', 'customer');
    const [tagged] = tagProvenance({ humanFacts: [LONG_TXN], replies: [s2, s1], timeline: [s1, customer, s2], anchor: ANCHOR });
    expect(tagged).toMatchObject({ provenance: 'own', firstStated: { id: 's1', at: at('11:30') } });
  });

  it('excuses a fact the customer gave before the reply that first states it', () => {
    const customer = note('u1', '11:20', 'FYI our cleanup ran as one long transaction.', 'customer');
    const [tagged] = tagProvenance({ humanFacts: [LONG_TXN], replies: [s1, s2], timeline: [customer, s1, s2], anchor: ANCHOR });
    expect(tagged).toMatchObject({ provenance: 'late_customer', firstStated: { id: 's1' } });
  });

  it('does not excuse a fact by an internal note written after the reply that first states it', () => {
    const internal = note('n1', '11:45', 'binlog check: one long transaction on ledger_entries.');
    const [tagged] = tagProvenance({ humanFacts: [LONG_TXN], replies: [s1, s2], timeline: [s1, s2], anchor: ANCHOR, internalNotes: [internal] });
    expect(tagged.provenance).toBe('own');
  });

  it('counts a customer comment after the cutoff but before the anchor (a live run) as later information', () => {
    const customer = note('u1', '11:00', 'Our cleanup ran as one long transaction.', 'customer');
    const [tagged] = tagProvenance({ humanFacts: [LONG_TXN], replies: [s1], timeline: [customer, s1], anchor: ANCHOR });
    expect(tagged.provenance).toBe('late_customer');
    const seen = tagProvenance({ humanFacts: [LONG_TXN], replies: [s1], timeline: [{ ...customer, visibleToAi: true }, s1], anchor: ANCHOR });
    expect(seen[0].provenance).toBe('own'); // seen by the AI: the comparison tags it `ticket`
  });

  it('reads a look described in an earlier reply that a later one restates as manual work', () => {
    const look = note('s0', '11:20', 'I looked at the statements: one long transaction on ledger_entries.');
    const [tagged] = tagProvenance({ humanFacts: [LONG_TXN], replies: [look, s1], timeline: [look, s1], anchor: ANCHOR });
    expect(tagged).toMatchObject({ provenance: 'manual_work', firstStated: { id: 's0' } });
  });
});

const TITLE = 'Replica mysql-ledger-r1 lagging since 10:55';
const DESCRIPTION = 'Since 10:55 UTC our read replica mysql-ledger-r1 shows replication lag of more than 2 hours. The nightly cleanup job runs at 10:55.';
const VAGUE = 'What the data shows:\n- Replication lag rose to about 2 hours since 10:55 UTC.\n\nWe could not determine the cause from the data we could read.\n\nA support engineer will follow up.';
const VAGUE_HANDOFF = '**Evidence boundary:** replica metrics (partial).\n**Gap owner:** Support.\n**Next internal action:** Hand off to Support with the observations above.';

const judge = (comments: TimelineCommentV1[]) => judgeRubric({ title: TITLE, description: DESCRIPTION, reply: VAGUE, handoff: VAGUE_HANDOFF }, comments).verdict;

describe('verdicts anchored on reply time', () => {
  const cause = comment('s1', 'support', 'public', at('11:30'), 'The lag comes from one long transaction: a single DELETE on ledger_entries of about 40M rows that the replica applies as one binlog event.');
  const fix = comment('s2', 'support', 'public', at('12:10'), 'Run the cleanup in batches of 10k rows (DELETE ... LIMIT 10000 in a loop).');
  const restated = 'Right, the cleanup ran one DELETE on ledger_entries of about 40M rows in one long transaction; its binlog event is huge.';

  it('a cause the human named before the customer restated it is a ground against an answer that determined nothing', () => {
    expect(judge([cause, comment('u1', 'customer', 'public', at('11:50'), restated), fix])).toBe('human_better');
  });

  it('the same cause given by the customer before the human wrote it is not held against the AI', () => {
    const later = { ...cause, id: 's1b', createdAt: at('11:55'), updatedAt: at('11:55') };
    expect(judge([comment('u1', 'customer', 'public', at('11:40'), restated), later, fix])).not.toBe('human_better');
  });
});

/**
 * Metamorphic relations of the reply-time rule (also run over the whole labelled set by
 * `npm run bench:judge`: `shift_times`, `utc_offset`, `answer_after_human_reply`). The rule reads
 * only the order of instants, so moving every instant together or writing them at another UTC
 * offset keeps the outcome; an answer frozen after the human's replies has nothing to compare.
 */
describe('reply-time relations', () => {
  const restated = 'Right, the cleanup ran one DELETE on ledger_entries of about 40M rows in one long transaction; its binlog event is huge.';
  const humanFirst = [
    comment('s1', 'support', 'public', at('11:30'), 'The lag comes from one long transaction: a single DELETE on ledger_entries of about 40M rows that the replica applies as one binlog event.'),
    comment('u1', 'customer', 'public', at('11:50'), restated),
    comment('s2', 'support', 'public', at('12:10'), 'Run the cleanup in batches of 10k rows (DELETE ... LIMIT 10000 in a loop).'),
  ];
  const customerFirst = [
    comment('u1', 'customer', 'public', at('11:40'), restated),
    comment('s1', 'support', 'public', at('11:55'), 'The lag comes from one long transaction: a single DELETE on ledger_entries of about 40M rows that the replica applies as one binlog event.'),
    comment('s2', 'support', 'public', at('12:10'), 'Run the cleanup in batches of 10k rows (DELETE ... LIMIT 10000 in a loop).'),
  ];
  /** The same instant at a UTC offset of `minutes` (`...T11:30:00.000Z` at +480 -> `...T19:30:00.000+08:00`). */
  const atOffset = (iso: string, minutes: number) => {
    const local = new Date(Date.parse(iso) + minutes * 60_000).toISOString().slice(0, -1);
    const abs = Math.abs(minutes);
    return `${local}${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  };
  const retimed = <T extends { createdAt: string; updatedAt: string }>(items: readonly T[], map: (iso: string) => string): T[] =>
    items.map((c) => ({ ...c, createdAt: map(c.createdAt), updatedAt: map(c.updatedAt) }));

  it.each([480, -300, 330, -570])('keeps the verdict when every comment is written at UTC offset %i min', (minutes) => {
    for (const comments of [humanFirst, customerFirst]) expect(judge(retimed(comments, (iso) => atOffset(iso, minutes)))).toBe(judge(comments));
    expect(judge(humanFirst)).toBe('human_better');
    expect(judge(customerFirst)).not.toBe('human_better');
  });

  it.each([60_000, 9 * 86_400_000 + 13_000, -400 * 86_400_000])('keeps every provenance when the anchor and every comment move by %i ms', (ms) => {
    const shift = (iso: string) => new Date(Date.parse(iso) + ms).toISOString();
    const s1 = note('s1', '11:30', 'The lag comes from one long transaction on ledger_entries.');
    const customer = note('u1', '11:20', 'FYI our cleanup ran as one long transaction.', 'customer');
    const internal = note('n1', '11:25', 'binlog check: one long transaction on ledger_entries.');
    const tag = (d: (iso: string) => string, anchor: number) =>
      tagProvenance({ humanFacts: [LONG_TXN], replies: retimed([s1], d), timeline: retimed([customer, s1], d), anchor, internalNotes: retimed([internal], d) }).map((t) => [t.provenance, t.firstStated?.id]);
    expect(tag(shift, ANCHOR + ms)).toEqual(tag((iso) => iso, ANCHOR));
    expect(tag((iso) => iso, ANCHOR)).toEqual([['late_customer', 's1']]);
  });

  it('has nothing to compare once the answer was frozen after the human replies', () => {
    const after = '2026-11-20T12:30:00.000Z';
    let state = emptyTicketState(TICKET_KEY);
    const seen = humanFirst.map((c) => ({ ...c, visibleToAi: true }));
    const ticket = analysisRequested().ticket;
    state = applyEvent(state, { kind: 'ticket', request: analysisRequested({ cutoff: after, ticket: { ...ticket, comments: seen.map((c) => ({ id: c.id, authorRole: c.authorRole, visibility: c.visibility, createdAt: c.createdAt, body: c.body })) } }) });
    state = applyEvent(state, { kind: 'answer', run: runPublished({ cutoff: after }) });
    state = applyEvent(state, { kind: 'timeline', timeline: timeline(1, seen) });
    expect(planJudgments(state).plans).toEqual([]);
    // The same replies after the cutoff are judged.
    let before = emptyTicketState(TICKET_KEY);
    before = applyEvent(before, { kind: 'ticket', request: analysisRequested() });
    before = applyEvent(before, { kind: 'answer', run: runPublished() });
    before = applyEvent(before, { kind: 'timeline', timeline: timeline(1, humanFirst) });
    expect(planJudgments(before).plans).toHaveLength(1);
  });
});
