import fc from 'fast-check';
import { redactText, sanitizeValue } from './sanitize';

describe('sanitisation', () => {
  it('redacts addresses, URLs, credentials and known secrets in text', () => {
    const text = 'dial tcp 10.2.3.4:4000 failed; see https://grafana.internal.example/d/x?token=abc; host pd-0.pd.tidb.svc:2379 Bearer abcdefghijklmnop password=hunter22 S3cr3tValue';
    const out = redactText(text, { secrets: ['S3cr3tValue'] });
    for (const leak of ['10.2.3.4', 'grafana.internal', 'pd-0.pd.tidb.svc', 'abcdefghijklmnop', 'hunter22', 'S3cr3tValue']) expect(out).not.toContain(leak);
  });

  it('drops billing and secret fields and replaces raw SQL by opaque references', () => {
    const out = sanitizeValue({ cluster: 'c1', cost: 12.5, billing: { sku: 'x' }, machineType: 'm5.xlarge', apiKey: 'k', sql: 'SELECT secret FROM t', rows: 3 }) as Record<string, unknown>;
    expect(out).toEqual({ cluster: 'c1', sql_ref: expect.stringMatching(/^sql:[a-f0-9]{16}$/), rows: 3 });
  });

  it('property: no injected secret, address, billing field or raw SQL survives', () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9]{12,24}$/);
    const ip = fc.tuple(fc.integer({ min: 1, max: 254 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 254 })).map((p) => p.join('.'));
    fc.assert(
      fc.property(secret, ip, fc.string({ maxLength: 40 }), fc.jsonValue({ maxDepth: 3 }), (s, address, noise, extra) => {
        const input = {
          note: `${noise} ${s} at ${address}:4000 ${noise}`,
          nested: [{ message: `connect ${address}`, price: 3, detail: `${s}` }],
          extra,
          SKU: 'p1',
          query_text: `SELECT * FROM secret_${s}`,
        };
        const text = JSON.stringify(sanitizeValue(input, { secrets: [s] }));
        expect(text).not.toContain(s);
        expect(text).not.toContain(address);
        expect(text).not.toMatch(/"(price|SKU)"/);
        expect(text).not.toContain('SELECT * FROM');
      }),
      { numRuns: 1000 },
    );
  });
});
