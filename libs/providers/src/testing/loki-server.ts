// A local server for Loki's log query API (`GET /loki/api/v1/query_range`, `/ready`) over
// streams held in memory, for benchmarks and tests that want logs beside a real Prometheus.
// Faithful for what it answers: stream selectors (=, !=, =~, !~), line filters (|=, !=, |~, !~,
// RE2-style `(?i)` flag), start/end in ns (or s), limit, direction, the streams response shape.
// Anything else of LogQL (parsers, label filters, line_format, metric queries) is a 400 with
// Loki's own kind of message, never a silently wrong answer.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LokiFixtureStream {
  labels: Record<string, string>;
  /** [epoch ms, line], any order. */
  entries: [number, string][];
}

export interface RunningLoki {
  baseUrl: string;
  /** Requests answered (for tests and reports). */
  queries: () => number;
  stop: () => Promise<void>;
}

interface Matcher {
  name: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

type LineFilter = { op: '|=' | '!=' | '|~' | '!~'; value: string };

export class LogQlError extends Error {}

/** Go/RE2 regex text as a JS RegExp: a leading `(?i)` becomes the i flag; anchored like Prometheus label matchers when `anchored`. */
export function re2(pattern: string, anchored: boolean): RegExp {
  let flags = '';
  let body = pattern;
  const m = /^\(\?([imsU]+)\)/.exec(body);
  if (m) {
    body = body.slice(m[0].length);
    if (m[1].includes('i')) flags += 'i';
    if (m[1].includes('s')) flags += 's';
    if (m[1].includes('m')) flags += 'm';
  }
  try {
    return new RegExp(anchored ? `^(?:${body})$` : body, flags);
  } catch (error) {
    throw new LogQlError(`parse error : invalid regex ${JSON.stringify(pattern).slice(0, 80)}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function readString(text: string, i: number): [string, number] {
  const quote = text[i];
  if (quote === '`') {
    const end = text.indexOf('`', i + 1);
    if (end < 0) throw new LogQlError('parse error : unterminated raw string');
    return [text.slice(i + 1, end), end + 1];
  }
  if (quote !== '"') throw new LogQlError(`parse error at position ${i}: expected a string`);
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return [JSON.parse(text.slice(i, j + 1)) as string, j + 1];
  }
  throw new LogQlError('parse error : unterminated string');
}

/** Parses `{matchers} [| filters]`; throws LogQlError for anything else. */
export function parseLogQl(query: string): { matchers: Matcher[]; filters: LineFilter[] } {
  const text = query.trim();
  if (!text.startsWith('{')) throw new LogQlError('parse error : queries require at least one stream selector');
  const matchers: Matcher[] = [];
  let i = 1;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  for (;;) {
    ws();
    if (text[i] === '}') {
      i++;
      break;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))?.[0];
    if (!name) throw new LogQlError(`parse error at position ${i}: expected a label name`);
    i += name.length;
    ws();
    const op = (['=~', '!~', '!=', '='] as const).find((o) => text.startsWith(o, i));
    if (!op) throw new LogQlError(`parse error at position ${i}: expected a matcher operator`);
    i += op.length;
    ws();
    const [value, next] = readString(text, i);
    i = next;
    matchers.push({ name, op, value });
    ws();
    if (text[i] === ',') i++;
    else if (text[i] !== '}') throw new LogQlError(`parse error at position ${i}: expected , or }`);
  }
  if (!matchers.some((m) => (m.op === '=' || m.op === '=~') && !re2(m.op === '=' ? escape(m.value) : m.value, true).test(''))) {
    throw new LogQlError('parse error : queries require at least one regexp or equality matcher that does not have an empty-compatible value');
  }
  const filters: LineFilter[] = [];
  for (;;) {
    ws();
    if (i >= text.length) break;
    const op = (['|=', '!=', '|~', '!~'] as const).find((o) => text.startsWith(o, i));
    if (!op) throw new LogQlError(`unsupported by this local Loki: only line filters (|=, !=, |~, !~) may follow the selector (at position ${i}: ${JSON.stringify(text.slice(i, i + 20))})`);
    i += op.length;
    ws();
    const [value, next] = readString(text, i);
    i = next;
    filters.push({ op, value });
  }
  return { matchers, filters };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function matches(labels: Record<string, string>, m: Matcher): boolean {
  const v = labels[m.name] ?? '';
  switch (m.op) {
    case '=':
      return v === m.value;
    case '!=':
      return v !== m.value;
    case '=~':
      return re2(m.value, true).test(v);
    case '!~':
      return !re2(m.value, true).test(v);
  }
}

function passes(line: string, filters: readonly LineFilter[]): boolean {
  return filters.every((f) => {
    switch (f.op) {
      case '|=':
        return line.includes(f.value);
      case '!=':
        return !line.includes(f.value);
      case '|~':
        return re2(f.value, false).test(line);
      case '!~':
        return !re2(f.value, false).test(line);
    }
  });
}

/** Loki accepts ns integers, or seconds with a fraction; returns ms. */
function timeParam(raw: string | null, fallback: number): number {
  if (raw === null || raw === '') return fallback;
  if (/^\d{16,}$/.test(raw)) return Number(BigInt(raw) / 1_000_000n);
  const n = Number(raw);
  if (Number.isFinite(n)) return n * 1000;
  const iso = Date.parse(raw);
  if (Number.isFinite(iso)) return iso;
  throw new LogQlError(`invalid time ${JSON.stringify(raw).slice(0, 40)}`);
}

/** Answers one query_range over `streams` (exported for tests). */
export function queryRange(streams: readonly LokiFixtureStream[], params: URLSearchParams, nowMs: number = Date.now()) {
  const query = params.get('query');
  if (!query) throw new LogQlError('query is required');
  const { matchers, filters } = parseLogQl(query);
  const end = timeParam(params.get('end'), nowMs);
  const start = timeParam(params.get('start'), end - 3600_000);
  const limit = Math.max(1, Math.min(5000, Number(params.get('limit') ?? 100) || 100));
  const forward = params.get('direction') === 'forward';
  const hits: { labels: Record<string, string>; at: number; line: string }[] = [];
  for (const s of streams) {
    if (!matchers.every((m) => matches(s.labels, m))) continue;
    for (const [at, line] of s.entries) if (at >= start && at <= end && passes(line, filters)) hits.push({ labels: s.labels, at, line });
  }
  hits.sort((a, b) => (forward ? a.at - b.at : b.at - a.at));
  const kept = hits.slice(0, limit);
  const byStream = new Map<string, { stream: Record<string, string>; values: [string, string][] }>();
  for (const h of kept) {
    const key = JSON.stringify(Object.entries(h.labels).sort());
    const entry = byStream.get(key) ?? { stream: h.labels, values: [] };
    entry.values.push([`${BigInt(Math.round(h.at)) * 1_000_000n}`, h.line]);
    byStream.set(key, entry);
  }
  return { status: 'success', data: { resultType: 'streams', result: [...byStream.values()], stats: { summary: { totalEntriesReturned: kept.length } } } };
}

export async function startLokiServer(streams: readonly LokiFixtureStream[]): Promise<RunningLoki> {
  let queries = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (url.pathname === '/ready') return send(200, 'ready', 'text/plain');
    if (url.pathname !== '/loki/api/v1/query_range' || req.method !== 'GET') return send(404, '404 page not found', 'text/plain');
    queries++;
    try {
      send(200, JSON.stringify(queryRange(streams, url.searchParams)));
    } catch (error) {
      // Loki answers a bad query with 400 and the parser's message as plain text.
      send(error instanceof LogQlError ? 400 : 500, error instanceof Error ? error.message : String(error), 'text/plain');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    queries: () => queries,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
