import { analysisWindow } from '../select-scenarios/select-scenarios';
import { analysisWindowFor, statedIncidentTime, type WindowRequest } from './analysis-window';

type Comment = NonNullable<WindowRequest['ticket']>['comments'][number];
const customer = (createdAt: string): Comment => ({ authorRole: 'customer', visibility: 'public', createdAt });
const request = (over: Partial<WindowRequest> & { createdAt: string; comments?: Comment[] }): WindowRequest => ({
  cutoff: over.cutoff ?? null,
  requestedAt: over.requestedAt ?? '2026-12-02T00:30:00.000Z',
  ticket: { createdAt: over.createdAt, comments: over.comments ?? [] },
});

describe('analysisWindowFor', () => {
  const REQUESTED = '2026-12-02T00:30:00.000Z';
  it.each([
    ['a replay reads the hour before its cutoff, whatever the ticket states', { cutoff: '2026-11-30T00:00:00.000Z', createdAt: '2026-11-29T23:55:00.000Z' }, 'since about 10:40 UTC the database is slow', ['2026-11-29T23:00', '2026-11-30T00:00']],
    ['a live ticket without a stated time reads the hour before the request', { createdAt: '2026-12-02T00:20:00.000Z' }, 'cluster payments-prod is slow', ['2026-12-01T23:30', '2026-12-02T00:30']],
    ['a stated time inside the live hour keeps that hour', { createdAt: '2026-12-02T00:25:00.000Z' }, 'slow for the last 40 minutes', ['2026-12-01T23:30', '2026-12-02T00:30']],
    ['a stated clock time of an older ticket places the window around it, on the day the ticket was opened', { createdAt: '2026-12-01T13:00:00.000Z' }, 'Since about 10:40 UTC queries on cluster payments-prod time out', ['2026-12-01T10:10', '2026-12-01T11:10']],
    ['a stated ISO time places the window around it', { createdAt: '2026-12-01T09:00:00.000Z' }, 'First errors: 2026-11-30T22:15:00Z', ['2026-11-30T21:45', '2026-11-30T22:45']],
    [
      'an older ticket without a stated time reads the hour before the customer last wrote (never a comment after the request)',
      { createdAt: '2026-11-30T08:00:00.000Z', comments: [customer('2026-11-30T09:10:00.000Z'), customer('2026-12-03T00:00:00.000Z')] },
      'cluster payments-prod is slow',
      ['2026-11-30T08:10', '2026-11-30T09:10'],
    ],
    ['a stated time inside the hour before the last statement keeps that hour', { createdAt: '2026-11-30T08:00:00.000Z' }, 'since 07:20 UTC', ['2026-11-30T07:00', '2026-11-30T08:00']],
  ] as const)('%s', (_what, over, text, [from, to]) => {
    const r = request({ requestedAt: REQUESTED, ...over, comments: 'comments' in over ? [...over.comments] : [] });
    expect(analysisWindowFor(r, text)).toEqual({ from: `${from}:00.000Z`, to: `${to}:00.000Z` });
  });

  it('without the ticket (legacy callers) it is the hour before the request', () => {
    expect(analysisWindowFor({ cutoff: null, requestedAt: '2026-11-21T00:00:00Z' }, '')).toEqual({ from: '2026-11-20T23:00:00.000Z', to: '2026-11-21T00:00:00.000Z' });
  });

  it('is what the router uses for a frozen request', () => {
    const ticket = { key: 'RDS-1', title: 'cluster payments-prod slow', description: 'since about 10:40 UTC', reporterRole: 'customer' as const, createdAt: '2026-12-01T13:00:00.000Z', labels: [], comments: [] };
    expect(analysisWindow({ cutoff: null, requestedAt: '2026-12-02T00:30:00.000Z', ticket })).toEqual({ from: '2026-12-01T10:10:00.000Z', to: '2026-12-01T11:10:00.000Z' });
  });
});

describe('statedIncidentTime', () => {
  it('reads a clock time on the day the ticket was opened, the day before when it would lie after', () => {
    expect(statedIncidentTime('since about 10:40 UTC', '2026-12-01T13:00:00.000Z')).toBe('2026-12-01T10:40:00.000Z');
    expect(statedIncidentTime('since about 23:50 UTC', '2026-12-01T01:00:00.000Z')).toBe('2026-11-30T23:50:00.000Z');
  });

  it('ignores times more than a week before the ticket and texts without a time', () => {
    expect(statedIncidentTime('First errors: 2026-10-01T10:00:00Z', '2026-12-01T13:00:00.000Z')).toBeNull();
    expect(statedIncidentTime('the database is slow', '2026-12-01T13:00:00.000Z')).toBeNull();
  });
});
