import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ProviderError } from '../core/provider-error';
import { providerRequest, recordOf } from './http-client';

type Script = (req: IncomingMessage, res: ServerResponse, hit: number) => void;

describe('provider HTTP client against a scripted local server', () => {
  let server: Server;
  let url: string;
  let script: Script = (_req, res) => res.end('ok');
  let hits = 0;

  beforeAll(async () => {
    server = createServer((req, res) => script(req, res, ++hits));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const a = server.address();
    url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/api`;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  beforeEach(() => (hits = 0));

  const call = (extra: Partial<Parameters<typeof providerRequest>[0]> = {}) => providerRequest({ url, method: 'GET', retryDelaysMs: [5, 5], ...extra });
  const caught = async (p: Promise<unknown>): Promise<ProviderError> => {
    try {
      await p;
    } catch (e) {
      return e as ProviderError;
    }
    throw new Error('expected a rejection');
  };

  it('retries the identical request after 5xx and records a recovered episode', async () => {
    script = (_req, res, n) => {
      if (n === 1) res.writeHead(502, { 'x-request-id': 'req-1' }).end('bad gateway from 10.1.2.3');
      else if (n === 2) res.writeHead(500).end('upstream timeout');
      else res.writeHead(200).end('{"ok":true}');
    };
    const res = await call();
    expect(res.body).toBe('{"ok":true}');
    expect(res.record.attempts.map((a) => a.statusClass)).toEqual(['502', '500', '200']);
    expect(res.record.systemEvent).toEqual({ statusSequence: [502, 500, 200], result: 'recovered', upstreamError: 'upstream timeout', requestId: 'req-1' });
  });

  it('gives up after two retries and keeps the redacted upstream error', async () => {
    script = (_req, res) => res.writeHead(500).end('db at 10.9.8.7:4000 password=hunter2 is down');
    const error = await caught(call());
    expect(hits).toBe(3);
    expect(error.code).toBe('PROVIDER.HTTP_5XX');
    const record = recordOf(error);
    expect(record?.systemEvent?.result).toBe('failed');
    expect(record?.systemEvent?.statusSequence).toEqual([500, 500, 500]);
    expect(record?.systemEvent?.upstreamError).not.toMatch(/10\.9\.8\.7|hunter2/);
  });

  it('never retries a 4xx and passes the provider rejection through', async () => {
    script = (_req, res) => res.writeHead(400).end('{"status":"error","errorType":"bad_data","error":"parse error at char 5"}');
    const error = await caught(call());
    expect(hits).toBe(1);
    expect(error.code).toBe('PROVIDER.HTTP_4XX');
    expect(error.detail).toContain('parse error at char 5');
    expect(recordOf(error)?.attempts.map((a) => a.statusClass)).toEqual(['400']);
  });

  it('keeps the credential out of a rejection that echoes it', async () => {
    script = (req, res) => res.writeHead(401).end(`invalid token ${req.headers['authorization'] ?? ''}`);
    const error = await caught(call({ headers: { authorization: 'Bearer sk-live-0123456789abcdef' }, secrets: ['sk-live-0123456789abcdef'] }));
    expect(error.detail).not.toContain('sk-live-0123456789abcdef');
  });

  it('reports a truncated response', async () => {
    script = (_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('{"status":"success","da');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const error = await caught(call());
    expect(['PROVIDER.RESPONSE_INVALID', 'PROVIDER.UNREACHABLE']).toContain(error.code);
  });

  it('stops a slow response at the deadline', async () => {
    script = (_req, res) => setTimeout(() => res.end('late'), 3000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await caught(call({ signal: controller.signal }));
    expect(error.code).toBe('PROVIDER.TIMEOUT');
  });

  it('bounds the response size', async () => {
    script = (_req, res) => res.end('x'.repeat(5000));
    const error = await caught(call({ maxResponseBytes: 1000 }));
    expect(error.code).toBe('PROVIDER.OUTPUT_TOO_LARGE');
  });
});
