import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { lokiStreamsBody, type FixtureLogStream } from './loki-fixture';

/**
 * A scripted Loki `query_range` server over fixture streams: it answers log queries whose stream
 * selector's exact `=` matchers all hold for a stream, applies `|=`, `!=`, `|~` and `!~` line
 * filters (`(?i)` honoured), the window and the limit, and rejects anything else with 400 as
 * Loki does. Every request is recorded, so tests can prove a refused query never arrived.
 */

export interface RunningLoki {
  baseUrl: string;
  requests: { query: string; headers: IncomingHttpHeaders }[];
  stop(): Promise<void>;
}

const SELECTOR = /^\{([^}]*)\}/;
const MATCHER = /([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g;
const FILTER = /(\|=|!=|\|~|!~)\s*"((?:[^"\\]|\\.)*)"/g;

function regexOf(source: string): RegExp {
  const insensitive = source.startsWith('(?i)');
  return new RegExp(insensitive ? source.slice(4) : source, insensitive ? 'i' : '');
}

export async function startLokiServer(streams: readonly FixtureLogStream[], options: { token?: string } = {}): Promise<RunningLoki> {
  const requests: RunningLoki['requests'] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://loki');
    const query = url.searchParams.get('query') ?? '';
    requests.push({ query, headers: req.headers });
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname !== '/loki/api/v1/query_range') return send(404, { status: 'error', error: 'no such route' });
    if (options.token && req.headers['authorization'] !== `Bearer ${options.token}`) return send(401, { status: 'error', error: 'unauthorized' });
    const selector = SELECTOR.exec(query);
    if (!selector) return send(400, { status: 'error', error: 'parse error: queries must start with a stream selector' });
    const matchers = [...selector[1].matchAll(MATCHER)].map((m) => ({ name: m[1], op: m[2], value: JSON.parse(`"${m[3]}"`) as string }));
    const filters = [...query.slice(selector[0].length).matchAll(FILTER)].map((m) => ({ op: m[1], value: JSON.parse(`"${m[2]}"`) as string }));
    const keep = (labels: Record<string, string>) =>
      matchers.every((m) => {
        const v = labels[m.name] ?? '';
        if (m.op === '=') return v === m.value;
        if (m.op === '!=') return v !== m.value;
        const hit = new RegExp(`^(?:${m.value})$`).test(v);
        return m.op === '=~' ? hit : !hit;
      });
    const passes = (line: string) =>
      filters.every((f) => (f.op === '|=' ? line.includes(f.value) : f.op === '!=' ? !line.includes(f.value) : f.op === '|~' ? regexOf(f.value).test(line) : !regexOf(f.value).test(line)));
    const chosen = streams.filter((s) => keep(s.labels)).map((s) => ({ labels: s.labels, entries: s.entries.filter((e) => passes(e.line)) }));
    const window = { startNs: BigInt(url.searchParams.get('start') ?? '0'), endNs: BigInt(url.searchParams.get('end') ?? '0') };
    return send(200, lokiStreamsBody(chosen, window, Number(url.searchParams.get('limit') ?? '1000')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
