/** Builders for Loki-style `query_range` answers and TiDB unified-format log lines. */

export interface FixtureLogEntry {
  at: string;
  line: string;
}

export interface FixtureLogStream {
  labels: Record<string, string>;
  entries: FixtureLogEntry[];
}

export function toNs(iso: string): string {
  return `${BigInt(Date.parse(iso)) * 1_000_000n}`;
}

/** A TiDB-style line: `[time] [LEVEL] [file:line] ["message"] [k=v]...`. */
export function unifiedLogLine(at: string, level: string, source: string, message: string, fields: Record<string, string | number | boolean> = {}): string {
  const time = at.replace('T', ' ').replace('Z', ' +00:00').replace(/-/g, '/');
  const pairs = Object.entries(fields).map(([k, v]) => (typeof v === 'string' && /[\s\]"]/.test(v) ? `[${k}=${JSON.stringify(v)}]` : `[${k}=${String(v)}]`));
  return [`[${time}]`, `[${level}]`, `[${source}]`, `[${JSON.stringify(message)}]`, ...pairs].join(' ');
}

/** The streams answer Loki gives, newest first within each stream (direction=backward). */
export function lokiStreamsBody(streams: readonly FixtureLogStream[], window?: { startNs: bigint; endNs: bigint }, limit = Infinity): unknown {
  let remaining = limit;
  const result = streams.map((s) => {
    const values = s.entries
      .map((e) => [toNs(e.at), e.line] as [string, string])
      .filter(([ns]) => !window || (BigInt(ns) >= window.startNs && BigInt(ns) <= window.endNs))
      .sort((a, b) => (BigInt(b[0]) > BigInt(a[0]) ? 1 : -1));
    const kept = values.slice(0, Math.max(0, remaining));
    remaining -= kept.length;
    return { stream: s.labels, values: kept };
  });
  return { status: 'success', data: { resultType: 'streams', result: result.filter((r) => r.values.length > 0), stats: {} } };
}
