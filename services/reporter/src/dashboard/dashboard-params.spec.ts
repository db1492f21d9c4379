import { DashboardParamError, parseDailyQuery, parseProvidersQuery, parseRunId, parseRunsQuery, parseTicketKey, parseWeeklyQuery } from './dashboard-params';

function fieldsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof DashboardParamError) return error.issues.map((i) => i.field);
    throw error;
  }
  throw new Error('expected a DashboardParamError');
}

const NOW = new Date('2026-11-20T17:00:00Z'); // already 2026-11-21 (Saturday) in Shanghai

describe('dashboard parameters', () => {
  it('defaults and bounds the runs page size and checks the cursor', () => {
    expect(parseRunsQuery({})).toEqual({ limit: 25, before: undefined });
    expect(parseRunsQuery({ limit: '10', before: 'run-1' })).toEqual({ limit: 10, before: 'run-1' });
    expect(fieldsOf(() => parseRunsQuery({ limit: 'ten' }))).toEqual(['limit']);
    expect(fieldsOf(() => parseRunsQuery({ limit: '0' }))).toEqual(['limit']);
    expect(fieldsOf(() => parseRunsQuery({ limit: '201' }))).toEqual(['limit']);
    expect(fieldsOf(() => parseRunsQuery({ limit: ['1', '2'] }))).toEqual(['limit']);
    expect(fieldsOf(() => parseRunsQuery({ before: '<x>' }))).toEqual(['before']);
  });

  it('validates path parameters', () => {
    expect(parseRunId('run-1')).toBe('run-1');
    expect(fieldsOf(() => parseRunId('a b'))).toEqual(['runId']);
    expect(parseTicketKey('SUP-1042')).toBe('SUP-1042');
    expect(fieldsOf(() => parseTicketKey('<script>'))).toEqual(['ticketKey']);
  });

  it('defaults the daily report to today in Shanghai and rejects a bad day', () => {
    expect(parseDailyQuery({}, NOW)).toBe('2026-11-21');
    expect(parseDailyQuery({ day: '2026-11-01' }, NOW)).toBe('2026-11-01');
    expect(fieldsOf(() => parseDailyQuery({ day: '2026-13-01' }, NOW))).toEqual(['day']);
    expect(fieldsOf(() => parseDailyQuery({ day: 'yesterday' }, NOW))).toEqual(['day']);
  });

  it('defaults the weekly report to this Shanghai week and requires a Monday', () => {
    expect(parseWeeklyQuery({}, NOW)).toBe('2026-11-16');
    expect(parseWeeklyQuery({ weekStart: '2026-11-09' }, NOW)).toBe('2026-11-09');
    expect(fieldsOf(() => parseWeeklyQuery({ weekStart: '2026-11-10' }, NOW))).toEqual(['weekStart']);
  });

  it('defaults provider health to the last 7 days and names the offending bound', () => {
    expect(parseProvidersQuery({}, NOW)).toEqual({ from: '2026-11-15', to: '2026-11-21' });
    expect(parseProvidersQuery({ to: '2026-11-10' }, NOW)).toEqual({ from: '2026-11-04', to: '2026-11-10' });
    expect(fieldsOf(() => parseProvidersQuery({ from: '2026-11-21', to: '2026-11-20' }, NOW))).toEqual(['from']);
    expect(fieldsOf(() => parseProvidersQuery({ from: '2026-01-01', to: '2026-11-20' }, NOW))).toEqual(['to']);
    expect(fieldsOf(() => parseProvidersQuery({ from: 'x' }, NOW))).toEqual(['from']);
  });
});
