import { ConfigError, secret } from '@aoc/config';
import { z } from 'zod';
import type { JiraHttpOptions } from './jira-http.client';
import { JiraTicketSource } from './jira-ticket.source';
import { JsonFileTicketSource } from './json-file-ticket.source';
import type { TicketSource } from './ticket-source.port';

/** Which adapter to build and with what. */
export type TicketSourceSettings = { kind: 'json-file'; directory: string } | { kind: 'jira'; config: unknown };

/**
 * Environment keys of a role that reads tickets from a source (spread into its config schema):
 * `AOC_TICKET_SOURCE` (`json-file` | `jira`; unset: no source), `AOC_TICKET_SOURCE_DIR` (the
 * JSON-file directory) and `AOC_JIRA_CONFIG` (secret: JSON of `JiraTicketSourceConfig`).
 */
export const ticketSourceConfigShape = {
  AOC_TICKET_SOURCE: z.enum(['json-file', 'jira']).optional(),
  AOC_TICKET_SOURCE_DIR: z.string().min(1).optional(),
  AOC_JIRA_CONFIG: secret(z.string().min(1).optional()),
};

/** The settings named by those keys (already parsed by `loadConfig`), or null when no source is set. */
export function ticketSourceSettingsOf(config: {
  AOC_TICKET_SOURCE?: 'json-file' | 'jira';
  AOC_TICKET_SOURCE_DIR?: string;
  AOC_JIRA_CONFIG?: string;
}): TicketSourceSettings | null {
  if (config.AOC_TICKET_SOURCE === undefined) return null;
  const required = config.AOC_TICKET_SOURCE === 'json-file' ? 'AOC_TICKET_SOURCE_DIR' : 'AOC_JIRA_CONFIG';
  const value = config[required];
  if (value === undefined) throw new ConfigError('ticket-source', [{ key: required, message: `required when AOC_TICKET_SOURCE=${config.AOC_TICKET_SOURCE}` }]);
  return config.AOC_TICKET_SOURCE === 'json-file' ? { kind: 'json-file', directory: value } : { kind: 'jira', config: value };
}

/** Builds the adapter; a bad Jira configuration fails here with `TICKET_SOURCE.CONFIG_INVALID`. */
export function createTicketSource(settings: TicketSourceSettings, options: JiraHttpOptions = {}): TicketSource {
  if (settings.kind === 'json-file') return new JsonFileTicketSource({ directory: settings.directory });
  return new JiraTicketSource({ ...options, config: settings.config });
}
