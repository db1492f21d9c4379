// `npm run bench:executor`: makespan of a 12-query Clinic batch at concurrency 6 with scripted
// per-query latencies (the Clinic API fixture on 127.0.0.1 proxying metrics to a scripted
// upstream), compared with the ideal wave schedule and the pool lower bound measured in the same
// run, plus the executor's overhead per query (single execution path, ownership bootstrap,
// validation, sanitisation, summaries).
import { createServer } from 'node:http';
import { cpus } from 'node:os';
import { clinicBatchTool, executeTool } from '@aoc/providers';
import { leakyCluster, startClinicFixture } from '../libs/providers/test/clinic-api-fixture';

const QUICK = process.env['BENCH_QUICK'] === '1';
const ROUNDS = QUICK ? 3 : 10;
/** Scripted latency per query id, ms: two slow queries, the rest quick-to-moderate. */
const LATENCIES = [400, 120, 80, 60, 250, 90, 70, 300, 50, 110, 40, 150];

function matrixBody(): string {
  // Samples inside the batch window (10:00-11:00Z on 2026-11-20): the package summarises only those.
  const start = Date.parse('2026-11-20T10:00:00Z') / 1000;
  const values = Array.from({ length: 240 }, (_, i) => [start + i * 15, String(0.04 + (i > 150 ? 0.05 : 0))]);
  return JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [{ metric: { cluster: 'c1', instance: '10.0.0.1:10080' }, values }] } });
}

async function main(): Promise<void> {
  const body = matrixBody();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const query = new URLSearchParams(raw).get('query') ?? '';
      const delay = Number(/bench_q(\d+)/.exec(query)?.[1] ?? 0);
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body), LATENCIES[delay] ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const fixture = await startClinicFixture({ token: 'bench-token-0123456789', cloudConfigToken: 'bench-cc-token-0123456789', clusters: [leakyCluster('org-bench', 'cl-bench', 'dedicated')], metricsUpstream: baseUrl });
  const pkg = clinicBatchTool({ clinic: { baseUrl: fixture.baseUrl, token: 'bench-token-0123456789' } });
  const input = {
    org_id: 'org-bench',
    cluster_id: 'cl-bench',
    window: { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' },
    queries: LATENCIES.map((_, i) => ({ id: `q${i}`, operation: 'promql_range' as const, promql: `bench_q${i}{cluster="c1"}` })),
  };
  // Warm-up (JIT, connection pool).
  await executeTool(pkg, input, { now: new Date('2026-11-21T00:00:00Z') });
  const makespans: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const started = performance.now();
    const result = await executeTool(pkg, input, { now: new Date('2026-11-21T00:00:00Z') });
    makespans.push(performance.now() - started);
    if (!result.ok || result.details.queries.some((q) => q.status !== 'complete')) throw new Error(`bench batch failed: ${result.text.slice(0, 300)}`);
  }
  server.close();
  await fixture.stop();
  const median = [...makespans].sort((a, b) => a - b)[Math.floor(makespans.length / 2)];
  const concurrency = 6;
  const waves: number[][] = [];
  for (let i = 0; i < LATENCIES.length; i += concurrency) waves.push(LATENCIES.slice(i, i + concurrency));
  const idealWaves = waves.reduce((sum, w) => sum + Math.max(...w), 0);
  const poolLowerBound = Math.max(Math.max(...LATENCIES), LATENCIES.reduce((a, b) => a + b, 0) / concurrency);
  const overheadPerQuery = (median - poolLowerBound) / LATENCIES.length;
  const lines = [
    `machine: ${cpus().length} CPUs, node ${process.version}; ${LATENCIES.length} queries, concurrency ${concurrency}, ${ROUNDS} rounds${QUICK ? ' (BENCH_QUICK=1)' : ''}`,
    `scripted latencies (ms): ${LATENCIES.join(', ')}`,
    `measured makespan p50: ${median.toFixed(1)} ms (rounds: ${makespans.map((m) => m.toFixed(0)).join(', ')})`,
    `ideal wave schedule:   ${idealWaves} ms  -> measured/ideal-waves x${(median / idealWaves).toFixed(3)}`,
    `pool lower bound:      ${poolLowerBound.toFixed(1)} ms -> measured/lower-bound x${(median / poolLowerBound).toFixed(3)}`,
    `executor overhead:     ${overheadPerQuery.toFixed(2)} ms per query above the lower bound (validation, HTTP, summaries, sanitisation, output checks)`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:executor failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
