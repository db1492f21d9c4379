import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { backfillTimelines, parseBackfillArgs } from './cli-timeline';

describe('aoc timeline backfill', () => {
  it('parses its options and names a bad one', () => {
    expect(parseBackfillArgs([])).toEqual({ routerUrl: 'http://127.0.0.1:8080', limit: 500, ticketKeys: [] });
    expect(parseBackfillArgs(['--limit', '20', '--ticket', 'SUP-1', '--ticket', 'SUP-2'])).toMatchObject({ limit: 20, ticketKeys: ['SUP-1', 'SUP-2'] });
    expect(() => parseBackfillArgs(['--limit', '501'])).toThrow(/--limit/);
    expect(() => parseBackfillArgs(['--router', 'not a url'])).toThrow(/--router/);
  });

  it('asks the router for one pass over every watched ticket (or the given ones) and reports its counts or its refusal', async () => {
    const bodies: unknown[] = [];
    let status = 200;
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        bodies.push({ path: req.url, body: JSON.parse(text) as unknown });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(status === 200 ? { polled: 3, published: 1 } : { code: 'TICKET_SOURCE.NOT_CONFIGURED', message: 'no source' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await backfillTimelines(parseBackfillArgs(['--router', url, '--limit', '50']))).toEqual({ polled: 3, published: 1 });
      await backfillTimelines(parseBackfillArgs(['--router', url, '--ticket', 'SUP-9']));
      expect(bodies).toEqual([
        { path: '/v1/timelines/collect', body: { limit: 50, all: true } },
        { path: '/v1/timelines/collect', body: { limit: 500, ticketKeys: ['SUP-9'] } },
      ]);
      status = 503;
      await expect(backfillTimelines(parseBackfillArgs(['--router', url]))).rejects.toThrow(/503: TICKET_SOURCE.NOT_CONFIGURED/);
    } finally {
      server.close();
    }
  });
});
