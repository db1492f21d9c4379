import { describeJiraTicketSourceConfig, jiraAuthorizationOf, parseJiraTicketSourceConfig } from './jira-ticket-source.config';
import { thrownBy } from './testing/aoc-error.capture';

const TOKEN = 'very-secret-api-token';


describe('parseJiraTicketSourceConfig', () => {
  it('applies defaults and lower-cases email domains; accepts JSON text', () => {
    const config = parseJiraTicketSourceConfig(
      JSON.stringify({ baseUrl: 'https://example.atlassian.net', auth: { type: 'basic', email: 'bot@example.com', apiToken: TOKEN }, supportEmailDomains: ['Support.Example.com'] }),
    );
    expect(config).toEqual({
      baseUrl: 'https://example.atlassian.net',
      auth: { type: 'basic', email: 'bot@example.com', apiToken: TOKEN },
      supportAccountIds: [],
      supportEmailDomains: ['support.example.com'],
      engineerAccountIds: [],
      botAccountIds: [],
      timeoutMs: 15000,
      maxRetries: 3,
      retryBaseDelayMs: 500,
      retryAfterCapMs: 30000,
      pageSize: 100,
    });
    expect(jiraAuthorizationOf(config)).toBe(`Basic ${Buffer.from(`bot@example.com:${TOKEN}`).toString('base64')}`);
    expect(describeJiraTicketSourceConfig(config).auth).toEqual({ type: 'basic', email: 'bot@example.com', apiToken: '***' });
  });

  it('names every bad key and never echoes a value', () => {
    const error = thrownBy(() =>
      parseJiraTicketSourceConfig({ baseUrl: 'ftp://example.net', auth: { type: 'bearer', token: 42 }, supportEmailDomains: ['not a domain'], extra: TOKEN, timeoutMs: 5 }),
    );
    expect(error.code).toBe('TICKET_SOURCE.CONFIG_INVALID');
    expect(error.details.keys).toEqual(expect.arrayContaining(['baseUrl', 'auth.token', 'supportEmailDomains.0', '(config)', 'timeoutMs']));
    expect(error.message).not.toContain(TOKEN);
    expect(error.message).toContain('baseUrl: must be an http(s) URL');
    const secretInBadShape = thrownBy(() => parseJiraTicketSourceConfig({ baseUrl: 'https://x.net', auth: { type: 'basic', email: TOKEN, apiToken: TOKEN } }));
    expect(secretInBadShape.message).not.toContain(TOKEN);
    expect(thrownBy(() => parseJiraTicketSourceConfig(`{"auth": "${TOKEN}`)).message).not.toContain(TOKEN);
  });

  it('masks a bearer token', () => {
    const config = parseJiraTicketSourceConfig({ baseUrl: 'http://127.0.0.1:8080/jira', auth: { type: 'bearer', token: TOKEN } });
    expect(jiraAuthorizationOf(config)).toBe(`Bearer ${TOKEN}`);
    expect(JSON.stringify(describeJiraTicketSourceConfig(config))).not.toContain(TOKEN);
  });
});
