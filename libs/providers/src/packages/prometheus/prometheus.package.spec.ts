import fc from 'fast-check';
import { executeTool } from '../../core/execute-tool';
import { prometheusPackage } from './prometheus.package';

/** Nothing listens on this port: any input that got as far as the network would fail loudly. */
const pkg = prometheusPackage([{ name: 'c1', baseUrl: 'http://127.0.0.1:9', secrets: ['top-secret-token'] }]);

describe('prometheus_query_batch input', () => {
  it('never crashes on arbitrary input and always names the offending field', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          fc.record({
            target: fc.oneof(fc.constant('c1'), fc.string()),
            window: fc.oneof(fc.record({ from: fc.string(), to: fc.string() }), fc.constant({ from: '2026-11-20T10:00:00Z', to: '2026-12-31T10:00:00Z' })),
            queries: fc.array(fc.record({ id: fc.string(), kind: fc.string(), promql: fc.string() }), { maxLength: 14 }),
          }),
        ),
        async (input) => {
          const result = await executeTool(pkg, input, { now: new Date('2026-11-21T00:00:00Z') });
          expect(result.text).toBe(JSON.stringify(result.details));
          expect(result.ok).toBe(false);
          if (!result.ok) {
            expect(result.details.error_code).toMatch(/^PROVIDER\.(INPUT_INVALID|TARGET_REJECTED|WINDOW_INVALID)$/);
            if (result.details.error_code === 'PROVIDER.INPUT_INVALID') expect(result.details.detail_error).toMatch(/^[\w.()]+: /);
          }
          expect(result.text).not.toContain('top-secret-token');
          expect(result.text).not.toContain('127.0.0.1');
        },
      ),
      { numRuns: 1500 },
    );
  });
});
