import type { TimelineCommentV1 } from '@aoc/contracts';
import { comment } from '../../test/judge-fixtures';
import { judgeRubric } from '../../test/rubric-fixtures';
import { tierOf, unavailableKindOf } from './tier';

/** Seed 002 §3: on Starter/Essential/shared tiers some data is expected to be unavailable. */
const ticket = (labels: string[], description = 'p99 latency is up since 10:40 UTC.', title = 'Latency up') => ({ labels, title, description });

describe('the service tier of a ticket', () => {
  it('is read from a label, in any of its usual spellings', () => {
    for (const label of ['starter', 'Essential', 'tier:starter', 'tidb-cloud-essential', 'serverless', 'shared-tier']) expect(tierOf(ticket([label]))?.tier.id).toBe('shared');
    expect(tierOf(ticket(['tidb', 'dedicated']))?.tier.id).toBe('dedicated');
  });

  it('is read from the text when no label names it, and a label decides over the text', () => {
    expect(tierOf(ticket([], 'Our TiDB Cloud Starter cluster is slow.'))).toEqual({ tier: expect.objectContaining({ id: 'shared' }), from: 'text' });
    expect(tierOf(ticket([], 'Slow since 10:40.'), 'It runs on an Essential cluster.')?.tier.id).toBe('shared');
    expect(tierOf(ticket(['dedicated'], 'We moved off the Starter tier last month.'))?.tier.id).toBe('dedicated');
  });

  it('is unknown when the ticket names none or two, or uses the words plainly', () => {
    expect(tierOf(ticket(['latency']))).toBeNull();
    expect(tierOf(ticket([], 'It is essential that checkout stays fast; we share a cluster with reporting.'))).toBeNull();
    expect(tierOf(ticket(['starter', 'dedicated']))).toBeNull();
  });
});

describe('data a shared tier does not provide', () => {
  const shared = tierOf(ticket(['starter']));
  const dedicated = tierOf(ticket(['dedicated']));

  it.each([
    ['TopSQL shows the coupon lookup at 85% CPU.', 'topsql'],
    ['tikv-2 serves most of the reads.', 'topology'],
    ['Store 5 holds the hot region.', 'topology'],
    ['statements_summary_history has the digest since 09:00.', 'persisted_statements'],
    ['raftstore.apply-pool-size is 2, too small for this write rate.', 'dedicated_config'],
    ['node_memory_MemAvailable_bytes fell to 200 MiB.', 'node_metrics'],
  ])('is recognised by its source or by what only that source shows: %s', (sentence, kind) => {
    expect(unavailableKindOf(sentence, shared)).toBe(kind);
  });

  it('leaves Slow Query, versions and plain words alone, and excuses nothing on a tier that provides it all', () => {
    expect(unavailableKindOf('Slow Query shows the coupon lookup at the top since 09:05.', shared)).toBeNull();
    expect(unavailableKindOf('After the upgrade to TiDB 8.1 the plan changed.', shared)).toBeNull();
    expect(unavailableKindOf('We store 100 rows per batch.', shared)).toBeNull();
    expect(unavailableKindOf('TopSQL shows the coupon lookup at 85% CPU.', dedicated)).toBeNull();
    expect(unavailableKindOf('TopSQL shows the coupon lookup at 85% CPU.', null)).toBeNull();
  });
});

const VAGUE = 'What the data shows:\n- p99 rose from 60 ms to 1.5 s at 10:40 UTC.\n\nWe could not determine the cause from the data we could read.\n\nA support engineer will follow up.';
const VAGUE_HANDOFF = '**Evidence boundary:** cluster metrics only.\n**Gap owner:** Support.\n**Next internal action:** Hand off to Support with the observations above.';
const TOPSQL_ANSWER = 'TopSQL shows the coupon lookup using 85% of the CPU on tikv-2 since 10:40, with a full table scan on every call. Add an index on coupons(code).';

const judge = (labels: string[], comments: TimelineCommentV1[]) =>
  judgeRubric({ title: 'Latency up on shop-db', description: 'p99 latency on shop-db went from 60 ms to 1.5 s at 10:40 UTC.', labels, reply: VAGUE, handoff: VAGUE_HANDOFF }, comments);

describe('tier expectations in the verdict', () => {
  const reply = [comment('s1', 'support', 'public', '2026-11-20T11:40:00.000Z', TOPSQL_ANSWER)];

  it('a human finding resting on TopSQL and the TiKV instance does not make the human better on a Starter cluster', () => {
    const { out, verdict } = judge(['tidb', 'starter'], reply);
    expect(verdict).not.toBe('human_better');
    expect(out.reason).toMatch(/rests on TopSQL, which the ticket's service tier does not provide/);
    expect(out.answer1Gaps.join(' ')).not.toMatch(/tikv-2|85%/);
  });

  it('the same finding is a ground on a Dedicated cluster, where the AI could have read TopSQL', () => {
    expect(judge(['tidb', 'dedicated'], reply).verdict).toBe('human_better');
    expect(judge(['tidb'], reply).verdict).toBe('human_better'); // no tier named: nothing is excused
  });

  it('a Slow Query finding still counts on a Starter cluster (it is part of its data plane)', () => {
    const slow = [comment('s1', 'support', 'public', '2026-11-20T11:40:00.000Z', 'Slow Query shows the coupon lookup at the top since 10:40: it does a full table scan on every call. Add an index on coupons(code).')];
    expect(judge(['tidb', 'starter'], slow).verdict).toBe('human_better');
  });
});
