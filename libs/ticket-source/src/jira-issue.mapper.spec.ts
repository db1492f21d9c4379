import { isoFromJiraTime, JiraComment, JiraRoleMap, visibilityOf } from './jira-issue.mapper';
import { retryAfterMsOf } from './jira-http.client';

const roles = new JiraRoleMap({ supportAccountIds: ['sup-1'], supportEmailDomains: ['support.example.com'], engineerAccountIds: ['eng-1'], botAccountIds: ['aoc-bot'] });
const comment = (patch: Record<string, unknown>) => JiraComment.parse({ id: 10001, body: 'b', created: '2026-11-20T11:02:00.000+0000', ...patch });

describe('Jira mapping', () => {
  it('reads Jira times with and without a colon in the offset', () => {
    expect(isoFromJiraTime('2026-11-20T11:02:00.000+0000')).toBe('2026-11-20T11:02:00.000Z');
    expect(isoFromJiraTime('2026-11-20T13:02:00.000+0200')).toBe('2026-11-20T11:02:00.000Z');
    expect(isoFromJiraTime('2026-11-20T06:02:00.000-05:00')).toBe('2026-11-20T11:02:00.000Z');
    expect(isoFromJiraTime('yesterday')).toBeNull();
  });

  it('maps authors to roles: bots first, then the reporter, engineers, support, everyone else a customer', () => {
    expect(roles.roleOf({ accountId: 'x', accountType: 'app' }, 'x')).toBe('bot');
    expect(roles.roleOf({ accountId: 'aoc-bot' }, null)).toBe('bot');
    expect(roles.roleOf({ accountId: 'sup-1' }, 'sup-1')).toBe('customer');
    expect(roles.roleOf({ accountId: 'eng-1' }, 'cust-1')).toBe('engineer');
    expect(roles.roleOf({ accountId: 'sup-1' }, 'cust-1')).toBe('support');
    expect(roles.roleOf({ accountId: 'sup-9', emailAddress: 'z@SUPPORT.example.com' }, 'cust-1')).toBe('support');
    expect(roles.roleOf({ accountId: 'sup-9', emailAddress: 'z@sub.support.example.com' }, 'cust-1')).toBe('customer');
    expect(roles.roleOf({ accountId: 'cust-2', emailAddress: 'c@customer.example' }, 'cust-1')).toBe('customer');
    expect(roles.roleOf({ accountId: null }, 'cust-1')).toBe('unknown');
    expect(roles.roleOf(null, 'cust-1')).toBe('unknown');
  });

  it('treats a comment carrying an idempotency property as the bot own, whoever posted it', () => {
    const mapped = roles.commentOf(comment({ author: { accountId: 'cust-1' }, properties: [{ key: 'aoc.idempotency-key', value: { key: 'aoc:run-1:publish', version: 1 } }] }), 'cust-1');
    expect(mapped).toMatchObject({ id: '10001', authorRole: 'bot', createdAt: '2026-11-20T11:02:00.000Z' });
  });

  it('reads visibility from the JSM property, jsdPublic and restrictions', () => {
    expect(visibilityOf(comment({}))).toBe('public');
    expect(visibilityOf(comment({ properties: [{ key: 'sd.public.comment', value: { internal: true } }] }))).toBe('internal');
    expect(visibilityOf(comment({ properties: [{ key: 'sd.public.comment', value: { internal: false } }] }))).toBe('public');
    expect(visibilityOf(comment({ jsdPublic: false }))).toBe('internal');
    expect(visibilityOf(comment({ visibility: { type: 'role', value: 'Service Desk Team' } }))).toBe('internal');
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMsOf('3')).toBe(3000);
    expect(retryAfterMsOf(['1.5'])).toBe(1500);
    expect(retryAfterMsOf(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMsOf('soon')).toBeNull();
    expect(retryAfterMsOf(undefined)).toBeNull();
  });
});
