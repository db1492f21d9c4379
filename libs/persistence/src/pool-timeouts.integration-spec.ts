import { createServiceDataSource } from './data-source';

/**
 * On a real Postgres every connection carries the bounds: the server cancels a runaway statement
 * and ends a session left idle in a transaction. (The embedded store ignores session startup
 * settings; it serves one process.)
 */
describe('pool timeouts (real Postgres)', () => {
  const url = process.env['DATABASE_URL'];

  it('sets the statement and idle-in-transaction timeouts on each session, defaults or given, and a runaway statement is cancelled', async () => {
    if (!url) throw new Error('DATABASE_URL must point at a real Postgres for integration tests (see README)');
    const open = async (timeouts?: { statementMs: number; idleInTransactionMs: number }) => {
      const ds = createServiceDataSource({ url, schema: 'public', poolSize: 1, ...(timeouts ? { timeouts } : {}) });
      await ds.initialize();
      return ds;
    };
    const show = async (ds: Awaited<ReturnType<typeof open>>) => {
      const [s] = (await ds.query('SHOW statement_timeout')) as { statement_timeout: string }[];
      const [i] = (await ds.query('SHOW idle_in_transaction_session_timeout')) as { idle_in_transaction_session_timeout: string }[];
      return [s.statement_timeout, i.idle_in_transaction_session_timeout];
    };
    const defaults = await open();
    try {
      expect(await show(defaults)).toEqual(['5min', '2min']);
    } finally {
      await defaults.destroy();
    }
    const tight = await open({ statementMs: 200, idleInTransactionMs: 30_000 });
    try {
      expect(await show(tight)).toEqual(['200ms', '30s']);
      await expect(tight.query('SELECT pg_sleep(2)')).rejects.toThrow(/statement timeout/);
    } finally {
      await tight.destroy();
    }
  });
});
