import { secret } from '@aoc/config';
import { z } from 'zod';
import { ticketSourceError } from './ticket-source.errors';

const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const AccountId = z.string().min(1).max(128);
const EmailDomain = z
  .string()
  .regex(/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/, 'must be an email domain such as example.com')
  .transform((d) => d.toLowerCase());

/** Basic auth: an Atlassian account email and its API token (secret). */
const BasicAuth = z.object({ type: z.literal('basic'), email: z.email(), apiToken: secret(z.string().min(1).max(4096)) }).strict();
/** Bearer auth: a personal access or OAuth token (secret). */
const BearerAuth = z.object({ type: z.literal('bearer'), token: secret(z.string().min(1).max(4096)) }).strict();

/**
 * Configuration of the Jira Service Management Cloud adapter (REST API v2), e.g. the JSON of
 * `AOC_JIRA_CONFIG`. Comment authors map to roles: account type `app` or `botAccountIds` ->
 * bot; the issue reporter -> customer; `engineerAccountIds` -> engineer; `supportAccountIds` or
 * an email in `supportEmailDomains` -> support; anyone else -> customer.
 */
export const JiraTicketSourceConfigSchema = z
  .object({
    /** Site URL, e.g. `https://example.atlassian.net` (a path prefix is kept). */
    baseUrl: HttpUrl,
    auth: z.discriminatedUnion('type', [BasicAuth, BearerAuth]),
    supportAccountIds: z.array(AccountId).max(1000).default([]),
    supportEmailDomains: z.array(EmailDomain).max(100).default([]),
    engineerAccountIds: z.array(AccountId).max(1000).default([]),
    /** Accounts whose comments are the bot's own (e.g. the account the token belongs to). */
    botAccountIds: z.array(AccountId).max(100).default([]),
    /** Limit of one HTTP request (headers and body). */
    timeoutMs: z.number().int().min(100).max(120000).default(15000),
    /** Retries of one request after 429, 5xx, a network error or a timeout. */
    maxRetries: z.number().int().min(0).max(5).default(3),
    /** First backoff delay; doubles per retry, up to `retryAfterCapMs`. */
    retryBaseDelayMs: z.number().int().min(0).max(10000).default(500),
    /** Ceiling of any wait, including one asked for by `Retry-After`. */
    retryAfterCapMs: z.number().int().min(0).max(120000).default(30000),
    /** Comments requested per page (Jira may return fewer). */
    pageSize: z.number().int().min(1).max(100).default(100),
  })
  .strict();
export type JiraTicketSourceConfig = z.input<typeof JiraTicketSourceConfigSchema>;
export type ParsedJiraTicketSourceConfig = z.output<typeof JiraTicketSourceConfigSchema>;

/**
 * Parses the adapter configuration (an object or its JSON text). The error names every bad key
 * and never echoes a value.
 */
export function parseJiraTicketSourceConfig(raw: unknown): ParsedJiraTicketSourceConfig {
  let input = raw;
  if (typeof raw === 'string') {
    try {
      input = JSON.parse(raw) as unknown;
    } catch {
      throw ticketSourceError('TICKET_SOURCE.CONFIG_INVALID', 'jira ticket source configuration is not valid JSON');
    }
  }
  const parsed = JiraTicketSourceConfigSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(config)'}: ${i.message}`);
    throw ticketSourceError('TICKET_SOURCE.CONFIG_INVALID', `jira ticket source configuration is invalid: ${issues.join('; ')}`, {
      keys: parsed.error.issues.map((i) => i.path.map(String).join('.') || '(config)'),
    });
  }
  return parsed.data;
}

/** Printable view of the configuration: the token is reduced to `***`. */
export function describeJiraTicketSourceConfig(config: ParsedJiraTicketSourceConfig): Record<string, unknown> {
  const auth = config.auth.type === 'basic' ? { type: 'basic', email: config.auth.email, apiToken: '***' } : { type: 'bearer', token: '***' };
  return { ...config, auth };
}

/** The values that must never leave the adapter: the token and the basic credential built from it. */
export function jiraSecretsOf(config: ParsedJiraTicketSourceConfig): string[] {
  if (config.auth.type === 'bearer') return [config.auth.token];
  return [config.auth.apiToken, Buffer.from(`${config.auth.email}:${config.auth.apiToken}`).toString('base64')];
}

/** The `Authorization` header value. */
export function jiraAuthorizationOf(config: ParsedJiraTicketSourceConfig): string {
  if (config.auth.type === 'bearer') return `Bearer ${config.auth.token}`;
  return `Basic ${Buffer.from(`${config.auth.email}:${config.auth.apiToken}`).toString('base64')}`;
}
