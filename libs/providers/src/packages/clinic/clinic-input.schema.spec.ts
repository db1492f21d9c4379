import fc from 'fast-check';
import { createServer, type Server } from 'node:net';
import { executeTool } from '../../core/execute-tool';
import { clinicBatchTool } from './clinic-batch.tool';
import { ClinicBatchInput, CONFIG_COMPONENTS, LOG_COMPONENTS, LOG_LEVELS } from './clinic-input.schema';

const NOW = new Date('2026-11-21T00:00:00Z');
const BASE = Date.parse('2026-11-19T00:00:00Z');

const iso = (ms: number) => new Date(ms).toISOString();
const window = fc.tuple(fc.integer({ min: 0, max: 40 * 3600_000 }), fc.integer({ min: 60_000, max: 23 * 3600_000 })).map(([start, span]) => ({ from: iso(BASE + start), to: iso(BASE + start + span) }));
const id = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,20}$/);
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const common = { id, window: opt(window), supplemental: opt(fc.boolean()) };

/** One valid entry per operation. */
const validEntry = fc.oneof(
  fc.record({ ...common, operation: fc.constant('promql_range'), promql: fc.constantFrom('up', 'rate(tidb_server_query_total[5m])', 'histogram_quantile(0.99, sum by (le) (rate(x_bucket[1m])))'), step_seconds: opt(fc.integer({ min: 15, max: 3600 })) }, { requiredKeys: ['id', 'operation', 'promql'] }),
  fc.record({ ...common, operation: fc.constant('promql_instant'), promql: fc.constantFrom('up', 'max(tikv_store_size_bytes)') }, { requiredKeys: ['id', 'operation', 'promql'] }),
  fc.record({ ...common, operation: fc.constantFrom('sql', 'sql_query'), sql: fc.constantFrom('SELECT 1', 'SHOW TABLES', 'SELECT digest, exec_count FROM information_schema.statements_summary LIMIT 5') }, { requiredKeys: ['id', 'operation', 'sql'] }),
  fc.record({ ...common, operation: fc.constant('sql_query'), query: fc.constantFrom('SELECT 1', 'EXPLAIN SELECT 1') }, { requiredKeys: ['id', 'operation', 'query'] }),
  fc.record({ ...common, operation: fc.constant('top_sql'), limit: opt(fc.integer({ min: 1, max: 50 })) }, { requiredKeys: ['id', 'operation'] }),
  fc.record({ ...common, operation: fc.constant('slow_query'), limit: opt(fc.integer({ min: 1, max: 50 })), min_query_time_seconds: opt(fc.double({ min: 0, max: 3600, noNaN: true })) }, { requiredKeys: ['id', 'operation'] }),
  fc.record(
    {
      ...common,
      operation: fc.constant('logs'),
      component: fc.constantFrom(...LOG_COMPONENTS),
      detail: fc.constantFrom('summary', 'events'),
      levels: opt(fc.uniqueArray(fc.constantFrom(...LOG_LEVELS), { minLength: 1, maxLength: 5 })),
      contains: opt(fc.stringMatching(/^[A-Za-z0-9 _.:/-]{1,64}$/)),
      limit: opt(fc.integer({ min: 1, max: 5000 })),
    },
    { requiredKeys: ['id', 'operation', 'component', 'detail'] },
  ),
  fc.record({ ...common, operation: fc.constant('activities'), limit: opt(fc.integer({ min: 1, max: 100 })) }, { requiredKeys: ['id', 'operation'] }),
  fc.record({ id, operation: fc.constantFrom('cluster_metadata', 'components'), supplemental: opt(fc.boolean()) }, { requiredKeys: ['id', 'operation'] }),
  fc.record({
    id,
    operation: fc.constant('configuration'),
    selectors: fc.uniqueArray(fc.record({ component: fc.constantFrom(...CONFIG_COMPONENTS), key: fc.stringMatching(/^[a-z][a-z0-9_.-]{0,30}$/).filter((k) => !/(pass|secret|token|cred|private|cert|ssl|tls|auth|key|encrypt|cookie|security\.|salt)/.test(k)) }), { minLength: 1, maxLength: 16, selector: (s) => `${s.component}:${s.key}` }),
  }),
);

const FIELDS = ['id', 'operation', 'window', 'supplemental', 'promql', 'step_seconds', 'sql', 'query', 'limit', 'min_query_time_seconds', 'component', 'detail', 'levels', 'contains', 'selectors', 'provider', 'url'];

/** A valid entry, or one with a field replaced by anything, removed, or an unknown one added. */
const entry = fc.tuple(validEntry, fc.constantFrom(...FIELDS), fc.anything(), fc.integer({ min: 0, max: 3 })).map(([e, field, value, mode]) => {
  if (mode === 0) return e;
  const copy: Record<string, unknown> = { ...e };
  if (mode === 1) copy[field] = value;
  else delete copy[field];
  return copy;
});

const batch = fc.record({
  org_id: fc.oneof(fc.constant('org-acme'), fc.string({ maxLength: 70 })),
  cluster_id: fc.oneof(fc.constant('cl-1'), fc.string({ maxLength: 70 })),
  window: fc.oneof(window, window, fc.anything()),
  queries: fc.array(entry, { minLength: 0, maxLength: 14 }),
});
const anyInput = fc.oneof({ weight: 8, arbitrary: batch }, { weight: 1, arbitrary: fc.anything() }, { weight: 1, arbitrary: fc.tuple(batch, fc.string(), fc.anything()).map(([b, k, v]) => ({ ...b, [k]: v })) });

/** Every input error starts with the field it concerns. */
const NAMES_A_FIELD = /^(\(input\)|org_id|cluster_id|window|queries)[.: (]/;

describe('Clinic tool input: property tests', () => {
  let refusing: Server;
  let baseUrl: string;

  beforeAll(async () => {
    // Valid inputs reach the bootstrap call; this port refuses it at once, so thousands of runs stay fast.
    refusing = createServer((socket) => socket.destroy());
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(refusing.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise((r) => refusing.close(r)));

  it('accepts every generated valid entry of every operation', () => {
    fc.assert(
      fc.property(fc.array(validEntry, { minLength: 1, maxLength: 12 }).filter((qs) => new Set(qs.map((q) => q.id)).size === qs.length), window, (queries, w) => {
        const parsed = ClinicBatchInput.safeParse({ org_id: 'org-acme', cluster_id: 'cl-1', window: w, queries });
        if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues));
        // `query` is only ever an alias: the normalised entry carries `sql`.
        for (const q of parsed.data.queries) expect(q).not.toHaveProperty('query');
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws on arbitrary input; every issue has a path or a message', () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        const parsed = ClinicBatchInput.safeParse(input);
        if (!parsed.success) for (const issue of parsed.error.issues) expect(issue.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 3000 },
    );
  });

  it('through the single execution path: never a crash, and every input error names its field', async () => {
    const tool = clinicBatchTool({ clinic: { baseUrl, token: 'clinic-token-property' }, retryDelaysMs: [] });
    const codes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(anyInput, async (input) => {
        const result = await executeTool(tool, input, { now: NOW });
        expect(result.text).toBe(JSON.stringify(result.details));
        if (result.ok) return;
        const { error_code: code, detail_error: detail } = result.details;
        codes.set(code, (codes.get(code) ?? 0) + 1);
        expect(['PROVIDER.INPUT_INVALID', 'PROVIDER.WINDOW_INVALID', 'PROVIDER.UNREACHABLE', 'PROVIDER.RESPONSE_INVALID']).toContain(code);
        if (code === 'PROVIDER.INPUT_INVALID' || code === 'PROVIDER.WINDOW_INVALID') expect(detail).toMatch(NAMES_A_FIELD);
        expect(detail).not.toContain('clinic-token-property');
      }),
      { numRuns: 3000 },
    );
    // The generator reaches both sides: rejected inputs and inputs valid enough to go to the network.
    expect(codes.get('PROVIDER.INPUT_INVALID') ?? 0).toBeGreaterThan(100);
    expect((codes.get('PROVIDER.UNREACHABLE') ?? 0) + (codes.get('PROVIDER.RESPONSE_INVALID') ?? 0)).toBeGreaterThan(50);
  }, 120_000);
});
