import { TENANCY, createTenancy, type Principal } from '@aoc/auth';
import { DATA_SOURCE, LOGGER } from '@aoc/service-host';
import type { Logger } from '@aoc/telemetry';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { DataSource } from 'typeorm';
import { ReporterTables } from '../reporter.tables';
import { REPORTS_READER, type ReportsReader } from '../reports/report.types';
import { RunSummaryQuery } from '../run-summary/run-summary.query';
import { DashboardController } from './dashboard.controller';
import { answerVersionFixture, dailyReportFixture, HOSTILE, providerHealthFixture, runSummaryFixture, weeklyReportFixture } from './dashboard.fixtures';

/** The controller over real HTTP with fake read models: status codes, headers, error pages. */
describe('DashboardController (HTTP)', () => {
  let app: INestApplication;
  let base: string;
  const reader = {
    daily: jest.fn(async (day: string) => ({ ...dailyReportFixture(), period: { kind: 'daily' as const, from: day, to: day } })),
    weekly: jest.fn(async () => weeklyReportFixture()),
    providerHealth: jest.fn(async () => providerHealthFixture()),
    answerVersions: jest.fn(async () => [answerVersionFixture()]),
    ticketTimeline: jest.fn(async () => []),
  } satisfies ReportsReader;
  const queries: { sql: string; params: unknown[] }[] = [];
  const dataSource = {
    query: async (sql: string, params: unknown[]) => {
      queries.push({ sql, params });
      if (sql.startsWith('SELECT 1')) return params[0] === 'run-1' ? [{}] : [];
      return [{ run_id: 'run-1', ticket_key: 'SUP-1042', trigger: 'initial', decision: 'human_required', published_at: new Date('2026-11-20T11:05:00Z'), evidence_status: 'complete', verdict: 'equivalent' }];
    },
  };
  const logger: Logger = { debug: jest.fn(), info: jest.fn(), warn: jest.fn(), error: jest.fn() };
  const summaries = { find: jest.fn(async (runId: string) => (runId === 'run-1' ? runSummaryFixture({ customerReplyMarkdown: HOSTILE }) : null)) };

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      controllers: [DashboardController],
      providers: [
        { provide: DATA_SOURCE, useValue: dataSource as unknown as DataSource },
        { provide: ReporterTables, useValue: new ReporterTables('reporter') },
        { provide: RunSummaryQuery, useValue: summaries },
        { provide: REPORTS_READER, useValue: reader },
        { provide: LOGGER, useValue: logger },
        { provide: TENANCY, useValue: createTenancy(undefined) },
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    // The auth guard (not mounted here) puts the caller on the request: the deployment's own tenant.
    app.use((req: { principal?: Principal }, _res: unknown, next: () => void) => {
      req.principal = { subject: 'token:t', role: 'viewer', tenant: 'default', credential: 'api_token' };
      next();
    });
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });

  afterAll(async () => {
    await app?.close();
  });

  async function get(path: string): Promise<{ status: number; type: string | null; body: string }> {
    const res = await fetch(base + path);
    return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
  }

  it('serves the runs list as HTML, one more row than the page to find the next page', async () => {
    const res = await get('/?limit=5');
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<a class="mono" href="/runs/run-1">run-1</a>');
    expect(queries.at(-1)?.params).toEqual([6]);
  });

  it('pages with a known cursor and answers 400 naming the field otherwise', async () => {
    expect((await get('/?before=run-1')).status).toBe(200);
    expect(queries.at(-1)?.params).toEqual([26, 'run-1']);
    const unknown = await get('/?before=run-404');
    expect(unknown.status).toBe(400);
    expect(unknown.type).toBe('text/html; charset=utf-8');
    expect(unknown.body).toContain('<li><code>before</code>: names no run known to the reporter</li>');
    const bad = await get('/?limit=lots');
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('Invalid parameter: limit.');
  });

  it('renders a run page with the AI answer inert, and 404 for an unknown run', async () => {
    const run = await get('/runs/run-1');
    expect(run.status).toBe(200);
    expect(run.body).not.toContain('<script>');
    expect(run.body).toContain('&lt;script&gt;');
    const missing = await get('/runs/run-404');
    expect(missing.status).toBe(404);
    expect(missing.body).toContain('Run run-404 has not been published (yet).');
    expect((await get('/runs/a%20b')).body).toContain('<code>runId</code>');
  });

  it('renders the ticket page from the reports reader', async () => {
    const res = await get('/tickets/SUP-1042');
    expect(res.status).toBe(200);
    expect(reader.answerVersions).toHaveBeenLastCalledWith('SUP-1042');
    expect(res.body).toContain('Answer version 1');
  });

  it('passes the requested or default period to the reports reader', async () => {
    expect((await get('/reports/daily?day=2026-11-20')).status).toBe(200);
    expect(reader.daily).toHaveBeenLastCalledWith('2026-11-20', null);
    // The deployment's own tenant sees every tenant's figures and may pick one.
    expect((await get('/reports/daily?day=2026-11-20&tenant=acme')).status).toBe(200);
    expect(reader.daily).toHaveBeenLastCalledWith('2026-11-20', 'acme');
    expect((await get('/reports/weekly')).status).toBe(200);
    const weekStart = reader.weekly.mock.calls.at(-1)?.at(0) as string | undefined;
    expect(new Date(`${weekStart}T00:00:00Z`).getUTCDay()).toBe(1);
    expect((await get('/providers?from=2026-11-18&to=2026-11-20')).status).toBe(200);
    expect(reader.providerHealth).toHaveBeenLastCalledWith('2026-11-18', '2026-11-20', null);
  });

  it('answers 400 pages naming the invalid report parameters', async () => {
    const day = await get('/reports/daily?day=2026-02-30');
    expect(day.status).toBe(400);
    expect(day.body).toContain('<code>day</code>');
    expect((await get('/reports/weekly?weekStart=2026-11-18')).body).toContain('<code>weekStart</code>: must be a Monday');
    expect((await get('/providers?from=2026-11-21&to=2026-11-20')).body).toContain('<code>from</code>: must not be after to');
  });

  it('hides internal errors behind a 500 page and logs them', async () => {
    reader.daily.mockRejectedValueOnce(new Error('connection to 10.1.2.3 refused'));
    const res = await get('/reports/daily');
    expect(res.status).toBe(500);
    expect(res.body).not.toContain('10.1.2.3');
    expect(logger.error).toHaveBeenCalledWith('dashboard page failed', { error: 'connection to 10.1.2.3 refused' });
  });
});
