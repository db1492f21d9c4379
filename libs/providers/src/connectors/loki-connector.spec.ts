import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ProviderError } from '../core/provider-error';
import { lokiStreamsBody, toNs } from '../../test/loki-fixture';
import { queryLokiRange } from './loki-connector';

type Script = (req: IncomingMessage, res: ServerResponse, hit: number) => void;

describe('Loki range connector against a scripted local server', () => {
  let server: Server;
  let baseUrl: string;
  let hits = 0;
  let seen: URL[] = [];
  let script: Script = (_req, res) => res.end('{}');

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(new URL(req.url ?? '/', 'http://x'));
      script(req, res, ++hits);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/logs`;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  beforeEach(() => {
    hits = 0;
    seen = [];
  });

  const query = { logql: '{cluster_id="c1", component="tidb"}', startMs: Date.parse('2026-11-20T10:00:00Z'), endMs: Date.parse('2026-11-20T11:00:00Z'), limit: 3 };
  const caught = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return e as ProviderError;
    }
    throw new Error('expected a rejection');
  };

  it('sends a query_range request in nanoseconds and returns the streams', async () => {
    script = (_req, res) =>
      res.end(
        JSON.stringify(
          lokiStreamsBody([
            { labels: { component: 'tidb' }, entries: [{ at: '2026-11-20T10:01:00Z', line: 'a' }, { at: '2026-11-20T10:02:00Z', line: 'b' }] },
            { labels: { component: 'tidb', level: 'error' }, entries: [{ at: '2026-11-20T10:03:00Z', line: 'c' }] },
          ]),
        ),
      );
    const { result, record } = await queryLokiRange({ baseUrl, headers: { 'x-scope': 'c1' } }, query);
    expect(seen[0].pathname).toBe('/logs/loki/api/v1/query_range');
    expect(seen[0].searchParams.get('start')).toBe(toNs('2026-11-20T10:00:00Z'));
    expect(seen[0].searchParams.get('end')).toBe(toNs('2026-11-20T11:00:00Z'));
    expect(seen[0].searchParams.get('limit')).toBe('3');
    expect(seen[0].searchParams.get('direction')).toBe('backward');
    expect(result).toMatchObject({ entryCount: 3, hitLimit: true });
    expect(result.streams[1]).toEqual({ labels: { component: 'tidb', level: 'error' }, entries: [{ timestampNs: toNs('2026-11-20T10:03:00Z'), line: 'c' }] });
    expect(record.attempts.map((a) => a.statusClass)).toEqual(['200']);
  });

  it("passes Loki's own rejection text through and does not retry it", async () => {
    script = (_req, res) => res.writeHead(400).end('parse error at line 1, col 12: syntax error: unexpected IDENTIFIER');
    const error = await caught(queryLokiRange({ baseUrl }, query));
    expect(hits).toBe(1);
    expect(error.code).toBe('PROVIDER.QUERY_REJECTED');
    expect(error.detail).toBe('parse error at line 1, col 12: syntax error: unexpected IDENTIFIER');
  });

  it('retries 5xx with the identical request, or not at all for supplemental calls', async () => {
    script = (_req, res, n) => (n < 3 ? res.writeHead(503).end('busy') : res.end(JSON.stringify(lokiStreamsBody([]))));
    const { record } = await queryLokiRange({ baseUrl }, query, { retryDelaysMs: [5, 5] });
    expect(record.attempts.map((a) => a.statusClass)).toEqual(['500', '500', '200']);
    expect(new Set(seen.map((u) => u.toString())).size).toBe(1);
    hits = 0;
    const error = await caught(queryLokiRange({ baseUrl }, query, { retryDelaysMs: [] }));
    expect(error.code).toBe('PROVIDER.HTTP_5XX');
    expect(hits).toBe(1);
  });

  it('rejects a body that is not a streams answer', async () => {
    script = (_req, res) => res.end(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [] } }));
    expect((await caught(queryLokiRange({ baseUrl }, query))).code).toBe('PROVIDER.RESPONSE_INVALID');
  });
});
