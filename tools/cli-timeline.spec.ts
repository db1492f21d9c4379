import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { backfillTimelines, parseBackfillArgs } from './cli-timeline';

describe('aoc timeline backfill', () => {
  it('parses its options and names a bad one', () => {
    const env = { AOC_TOKEN: 'aoc_env' };
    expect(parseBackfillArgs([], env)).toEqual({ routerUrl: 'http://127.0.0.1:8080', limit: 500, ticketKeys: [], token: 'aoc_env' });
    expect(parseBackfillArgs(['--limit', '20', '--ticket', 'SUP-1', '--ticket', 'SUP-2', '--token', 'aoc_flag'], env)).toMatchObject({ limit: 20, ticketKeys: ['SUP-1', 'SUP-2'], token: 'aoc_flag' });
    expect(() => parseBackfillArgs(['--limit', '501'], env)).toThrow(/--limit/);
    expect(() => parseBackfillArgs(['--router', 'not a url'], env)).toThrow(/--router/);
    expect(() => parseBackfillArgs([], {})).toThrow(/--token: an operator token is required/);
  });

  it('asks the router for one pass over every watched ticket (or the given ones) and reports its counts or its refusal', async () => {
    const bodies: unknown[] = [];
    const auth: (string | undefined)[] = [];
    let status = 200;
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        auth.push(req.headers.authorization);
        bodies.push({ path: req.url, body: JSON.parse(text) as unknown });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(status === 200 ? { polled: 3, published: 1 } : { code: 'TICKET_SOURCE.NOT_CONFIGURED', detail: 'no source' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const env = { AOC_TOKEN: 'aoc_operator' };
      expect(await backfillTimelines(parseBackfillArgs(['--router', url, '--limit', '50'], env))).toEqual({ polled: 3, published: 1 });
      await backfillTimelines(parseBackfillArgs(['--router', url, '--ticket', 'SUP-9'], env));
      expect(auth).toEqual(['Bearer aoc_operator', 'Bearer aoc_operator']);
      expect(bodies).toEqual([
        { path: '/v1/timelines/collect', body: { limit: 50, all: true } },
        { path: '/v1/timelines/collect', body: { limit: 500, ticketKeys: ['SUP-9'] } },
      ]);
      status = 422;
      await expect(backfillTimelines(parseBackfillArgs(['--router', url], env))).rejects.toThrow(/422: TICKET_SOURCE.NOT_CONFIGURED no source/);
    } finally {
      server.close();
    }
  });
});
