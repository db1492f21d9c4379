import { perQueryTimeoutMs, runBatch } from './batch-scheduler';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => resolve('ok'), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      reject(new Error('aborted'));
    });
  });

describe('batch scheduler', () => {
  it('splits the budget by concurrency waves', () => {
    const limits = { concurrency: 6, budgetMs: 108_000, outerMs: 120_000 };
    expect(perQueryTimeoutMs(6, limits)).toBe(108_000);
    expect(perQueryTimeoutMs(7, limits)).toBe(54_000);
    expect(perQueryTimeoutMs(12, limits)).toBe(54_000);
    expect(perQueryTimeoutMs(1, limits)).toBe(108_000);
  });

  it("starts each query's clock when it is scheduled, so a second wave still gets its share", async () => {
    // 4 queries, 2 at a time, 2 s budget: each query may take 1 s from its own start.
    const queries = ['a', 'b', 'c', 'd'].map((id) => ({ id }));
    const results = await runBatch(queries, (_q, signal) => sleep(500, signal), { concurrency: 2, budgetMs: 2000, outerMs: 10_000 });
    expect([...results.values()].every((r) => r.ok)).toBe(true);
    const starts = queries.map((q) => results.get(q.id)?.startedAt ?? 0);
    expect(starts[2]).toBeGreaterThanOrEqual(starts[0] + 400);
  });

  it('times out a query that overruns its share and keeps the others', async () => {
    const results = await runBatch([{ id: 'slow' }, { id: 'fast' }], (q, signal) => sleep(q.id === 'slow' ? 5000 : 10, signal), { concurrency: 2, budgetMs: 300, outerMs: 10_000 });
    expect(results.get('fast')?.ok).toBe(true);
    const slow = results.get('slow');
    expect(slow?.ok).toBe(false);
    expect(slow && !slow.ok ? slow.error.code : null).toBe('PROVIDER.TIMEOUT');
  });

  it('stops everything at the outer limit', async () => {
    const results = await runBatch([{ id: 'a' }, { id: 'b' }], (_q, signal) => sleep(5000, signal), { concurrency: 1, budgetMs: 100_000, outerMs: 200 });
    const codes = [...results.values()].map((r) => (r.ok ? 'ok' : r.error.code));
    expect(codes).toEqual(['PROVIDER.BUDGET_EXHAUSTED', 'PROVIDER.BUDGET_EXHAUSTED']);
  });
});

describe('batch scheduler with a query that ignores its signal', () => {
  it('still gives up on it at its deadline', async () => {
    const results = await runBatch([{ id: 'stuck' }], () => new Promise<string>(() => undefined), { concurrency: 1, budgetMs: 100, outerMs: 10_000 });
    const r = results.get('stuck');
    expect(r && !r.ok ? r.error.code : null).toBe('PROVIDER.TIMEOUT');
  });
});
