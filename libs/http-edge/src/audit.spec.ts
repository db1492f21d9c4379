import { auditEventOf } from './audit';

const at = new Date('2026-12-03T10:00:00Z');
const req = (method: string, url: string) => ({ method, url, originalUrl: url, headers: {} }) as unknown as Parameters<typeof auditEventOf>[0];

describe('audit events', () => {
  it('leaves out answered probes and scrapes, which carry no credential and read no customer data', () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) expect(auditEventOf(req('GET', path), 200, at)).toBeNull();
  });

  it('still records a probe that failed or was refused, and anything else', () => {
    expect(auditEventOf(req('GET', '/readyz'), 503, at)).toMatchObject({ action: 'GET /readyz', status: 503, subject: 'unauthenticated' });
    expect(auditEventOf(req('POST', '/metrics'), 404, at)).toMatchObject({ action: 'POST /metrics' });
    expect(auditEventOf(req('GET', '/v1/runs?x=1'), 200, at)).toMatchObject({ action: 'GET /v1/runs', status: 200 });
  });
});
