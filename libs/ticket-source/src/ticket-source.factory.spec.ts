import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, describeConfig, loadConfig } from '@aoc/config';
import { z } from 'zod';
import { createTicketSource, ticketSourceConfigShape, ticketSourceSettingsOf } from './ticket-source.factory';

const schema = z.object(ticketSourceConfigShape);
const jiraJson = JSON.stringify({ baseUrl: 'https://example.atlassian.net', auth: { type: 'bearer', token: 'tok-123456' } });

describe('ticket source settings', () => {
  it('is off unless AOC_TICKET_SOURCE is set', () => {
    expect(ticketSourceSettingsOf(loadConfig('router', schema, {}))).toBeNull();
  });

  it('builds the JSON-file adapter from AOC_TICKET_SOURCE_DIR', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'aoc-ticket-source-'));
    try {
      const settings = ticketSourceSettingsOf(loadConfig('router', schema, { AOC_TICKET_SOURCE: 'json-file', AOC_TICKET_SOURCE_DIR: dir }));
      expect(settings).toEqual({ kind: 'json-file', directory: dir });
      expect(createTicketSource(settings!).kind).toBe('json-file');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('builds the Jira adapter from AOC_JIRA_CONFIG, a secret never printed', () => {
    const config = loadConfig('router', schema, { AOC_TICKET_SOURCE: 'jira', AOC_JIRA_CONFIG: jiraJson });
    expect(createTicketSource(ticketSourceSettingsOf(config)!).kind).toBe('jira');
    expect(describeConfig(schema, config).AOC_JIRA_CONFIG).toBe('***');
  });

  it('names the missing key', () => {
    expect(() => ticketSourceSettingsOf(loadConfig('router', schema, { AOC_TICKET_SOURCE: 'jira' }))).toThrow(ConfigError);
    expect(() => ticketSourceSettingsOf(loadConfig('router', schema, { AOC_TICKET_SOURCE: 'jira' }))).toThrow(/AOC_JIRA_CONFIG: required when AOC_TICKET_SOURCE=jira/);
    expect(() => createTicketSource({ kind: 'jira', config: '{}' })).toThrow(/TICKET_SOURCE|configuration is invalid/);
  });
});
