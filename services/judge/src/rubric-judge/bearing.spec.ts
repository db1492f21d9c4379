import { rolesOf, statements } from './bearing';
import { factsOf, type Fact } from './facts/facts';

const roleOf = (text: string, ticket: string, display: string) => {
  const facts = factsOf(text);
  const fact = facts.find((f: Fact) => f.display === display);
  if (!fact) throw new Error(`no fact ${display} in ${JSON.stringify(facts.map((f) => f.display))}`);
  return rolesOf(facts, text, factsOf(ticket)).get(fact.key);
};

describe('what the human answer does with a fact (bearing)', () => {
  const ticket = 'Since 09:10 UTC p99 went from the usual 40 ms to 300 ms on tidb-shop-prod. max_connections = 500.';

  it('a level to return to is a target, never a ground, even when the ticket quoted it', () => {
    expect(roleOf('Add an index on coupons(code). Latency should then return to about 40 ms, the usual level you quoted.', ticket, '40 ms')).toEqual({ bearing: null, incidental: 'target' });
    // Restoring a value is an action, not a target.
    expect(roleOf('Set the buffer pool back to 24 GiB.', ticket, '24 GiB')).toEqual({ bearing: 'action', via: 'cue' });
  });

  it('a ticket value restated beside a cause clause is a symptom; used as a premise it bears on the cause', () => {
    expect(roleOf('p99 went from 40 ms to 300 ms because the coupon query scans coupons.', ticket, '300 ms')).toEqual({ bearing: null, incidental: 'symptom' });
    expect(roleOf('Your limit is max_connections = 500 and a deploy doubled the pods, so the pools open 600 connections.', ticket, '500')?.bearing).toBe('cause');
    expect(roleOf('At 95% of your 1 TiB volume about 51 GiB are free.', 'The volume is 1 TiB, 95% used.', '1 TiB')).toEqual({ bearing: 'cause', via: 'derivation' });
  });

  it('a value said to stay as it is, and courtesy, carry no finding', () => {
    expect(roleOf('Your retry budget of 3 attempts does not need to change.', 'Our retry budget is 3 attempts.', '3')).toEqual({ bearing: null, incidental: 'unchanged' });
    expect(roleOf('Thanks for the 2 screenshots!', '', '2')).toEqual({ bearing: null, incidental: 'pleasantry' });
  });

  it('reads a table cell under its column header', () => {
    const table = '| replica | cause | action |\n|---|---|---|\n| r2 | apply is single-threaded (replica_parallel_workers = 0) | set replica_parallel_workers = 8 |';
    expect(statements(table).map((s) => s.column)).toEqual(['replica', 'cause', 'action']);
    expect(roleOf(table, 'r2: replica_parallel_workers: 0', '0')?.bearing).toBe('cause');
    expect(roleOf(table, '', '8')?.bearing).toBe('action');
  });
});
