import { summariseColumns } from './mysql-column-stats';

describe('column statistics of a result set', () => {
  it('summarises numbers, times, booleans and labels without returning free text', () => {
    const stats = summariseColumns(
      ['latency', 'at', 'ok', 'instance_label', 'DIGEST', 'QUERY_SAMPLE_TEXT', 'comment', 'bad name; drop'],
      [
        [1.5, '2026-11-20T10:00:00.000Z', true, 'tidb-0', 'e5796985ccafe2f71126ed6c0ac939ffa015a8c0744a24b7aee6d587103fd2f7', 'SELECT * FROM t', 'hello world', 1],
        [3, '2026-11-20T10:05:00.000Z', false, 'tidb-0', 'e5796985ccafe2f71126ed6c0ac939ffa015a8c0744a24b7aee6d587103fd2f7', 'SELECT 2', 'free text here', 2],
        [null, '2026-11-20T10:01:00.000Z', true, 'tidb-1', null, null, 'x', 3],
      ],
    );
    expect(stats[0]).toEqual({ column: 'latency', kind: 'number', non_null: 2, nulls: 1, distinct: 2, min: 1.5, max: 3, mean: 2.25, sum: 4.5 });
    expect(stats[1]).toMatchObject({ kind: 'time', min: '2026-11-20T10:00:00.000Z', max: '2026-11-20T10:05:00.000Z' });
    expect(stats[2]).toMatchObject({ kind: 'boolean', top_values: [{ value: 'true', count: 2 }, { value: 'false', count: 1 }] });
    expect(stats[3].top_values).toEqual([{ value: 'tidb-0', count: 2 }, { value: 'tidb-1', count: 1 }]);
    expect(stats[4].top_values).toEqual([{ value: expect.stringMatching(/^digest:[0-9a-f]{16}$/), count: 2 }]);
    expect(stats[5]).toEqual({ column: 'QUERY_SAMPLE_TEXT', kind: 'text', non_null: 2, nulls: 1, distinct: 2 });
    // Sentences are not labels: counted, never shown.
    expect(stats[6].top_values).toEqual([{ value: 'x', count: 1 }]);
    expect(stats[7].column).toBe('column_8');
    const text = JSON.stringify(stats);
    for (const leak of ['SELECT', 'hello world', 'e5796985ccafe2f7']) expect(text).not.toContain(leak);
  });

  it('reports empty and mixed columns', () => {
    expect(summariseColumns(['a', 'b'], [[null, 1], [null, 'x']])).toEqual([
      { column: 'a', kind: 'empty', non_null: 0, nulls: 2, distinct: 0 },
      { column: 'b', kind: 'mixed', non_null: 2, nulls: 0, distinct: 2 },
    ]);
  });
});
