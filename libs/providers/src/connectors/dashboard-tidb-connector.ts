import type { Page } from 'playwright-core';
import { z } from 'zod';
import { ProviderError } from '../core/provider-error';
import { redactText } from '../core/sanitize';
import { openRestrictedBrowser } from './dashboard-browser';
import { BrowserStorageState } from './storage-state-store';

/** The three TiDB Dashboard views the package drives. */
export type DashboardView = 'top_sql' | 'statements' | 'slow_query';

export interface DashboardViewRequest {
  view: DashboardView;
  fromMs: number;
  toMs: number;
  /** Rows to read from the page (the package compacts them further). */
  limit: number;
  orderBy?: string;
  /** TopSQL only: the one TiDB instance address (decrypted inside the package). */
  instance?: string;
}

/** One table row as the page shows it: its digest and the cells it exposes, by column name. */
export interface DashboardRow {
  digest: string;
  cells: Record<string, string>;
}

export interface DashboardViewResult {
  rows: DashboardRow[];
  totalRows: number;
}

export interface DashboardSession {
  fetchView(request: DashboardViewRequest): Promise<DashboardViewResult>;
  /** The browser state to persist after the execution. */
  storageState(): Promise<BrowserStorageState>;
  /** How many times this session had to sign in (0 when the stored state was still valid). */
  loginCount(): number;
  close(): Promise<void>;
}

export interface DashboardSessionRequest {
  /** Origin the allowlisted dashboard host resolves to. */
  origin: string;
  /** The dashboard's own name of the cluster, from the inventory. */
  cluster: string;
  login: { username: string; password: string };
  storageState: BrowserStorageState | null;
  signal?: AbortSignal;
}

export type DashboardSessionFactory = (request: DashboardSessionRequest) => Promise<DashboardSession>;

const VIEW_PATH: Record<DashboardView, string> = { top_sql: 'topsql', statements: 'statement', slow_query: 'slow_query' };
const MAX_ROWS = 500;

const Extracted = z.object({
  rows: z.array(z.object({ digest: z.string().max(256), cells: z.record(z.string().max(64), z.string().max(256)) })).max(MAX_ROWS),
  total: z.number().int().min(0),
});

/** Runs in the page: reads the result table as data-attributes only, never the whole DOM. */
const EXTRACT_ROWS = `(() => {
  const table = document.querySelector('#result');
  const rows = Array.from(table ? table.querySelectorAll('tbody tr') : []).slice(0, ${MAX_ROWS}).map((tr) => ({
    digest: (tr.getAttribute('data-digest') || '').slice(0, 256),
    cells: Object.fromEntries(Array.from(tr.querySelectorAll('td[data-col]')).slice(0, 32).map((td) => [
      (td.getAttribute('data-col') || '').slice(0, 64),
      (td.getAttribute('data-value') ?? td.textContent ?? '').slice(0, 256),
    ])),
  }));
  const total = Number(table ? table.getAttribute('data-total') : NaN);
  return { rows, total: Number.isInteger(total) && total >= 0 ? total : rows.length };
})()`;

type PageOutcome = 'login' | 'ready' | 'error';

async function outcomeOf(page: Page): Promise<PageOutcome> {
  await page.locator('#signin-form, #result[data-state="ready"], #result[data-state="error"]').first().waitFor({ state: 'attached' });
  if ((await page.locator('#signin-form').count()) > 0) return 'login';
  return (await page.locator('#result[data-state="ready"]').count()) > 0 ? 'ready' : 'error';
}

function timeoutAware(error: unknown, what: string): ProviderError {
  if (error instanceof ProviderError) return error;
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  if (/timeout/i.test(message)) return new ProviderError('PROVIDER.TIMEOUT', `${what} did not finish in time`, { retryable: true });
  if (/closed|disconnected|Target page/i.test(message)) return new ProviderError('PROVIDER.TIMEOUT', `${what} was stopped by its deadline`, { retryable: true });
  return new ProviderError('PROVIDER.RESPONSE_INVALID', `${what} failed: ${redactText(message, { maxStringLength: 300 })}`);
}

/**
 * TiDB Dashboard through system Chromium. Each execution opens one isolated context seeded with
 * the stored state; it signs in only when the page asks for it, reads the result table by data
 * attributes, and hands back the refreshed state. It reaches the dashboard origin and nothing else.
 */
export function playwrightTidbDashboard(options: { executablePath?: string; stepTimeoutMs?: number } = {}): DashboardSessionFactory {
  return async (request) => {
    const browser = await openRestrictedBrowser({ executablePath: options.executablePath, allowedOrigins: [request.origin], storageState: request.storageState, signal: request.signal });
    let logins = 0;
    let page: Page;
    try {
      page = await browser.context.newPage();
      page.setDefaultTimeout(options.stepTimeoutMs ?? 20_000);
    } catch (error) {
      await browser.close();
      throw timeoutAware(error, 'opening the dashboard page');
    }
    const secrets = [request.login.password];

    const signIn = async (): Promise<void> => {
      logins++;
      await page.fill('#signin-form input[name="username"]', request.login.username);
      await page.fill('#signin-form input[name="password"]', request.login.password);
      await page.click('#signin-form button[type="submit"]');
      await page.locator('#signin-error[data-shown="true"], #result[data-state="ready"], #result[data-state="error"]').first().waitFor({ state: 'attached' });
      if ((await page.locator('#signin-error[data-shown="true"]').count()) > 0) {
        const text = (await page.locator('#signin-error').textContent()) ?? '';
        throw new ProviderError('PROVIDER.AUTH_FAILED', `the dashboard refused the sign-in: ${redactText(text.trim(), { secrets, maxStringLength: 300 })}`);
      }
    };

    return {
      fetchView: async (view) => {
        const params = new URLSearchParams({ cluster: request.cluster, from: String(Math.floor(view.fromMs / 1000)), to: String(Math.ceil(view.toMs / 1000)), limit: String(view.limit) });
        if (view.orderBy) params.set('order', view.orderBy);
        if (view.instance) params.set('instance', view.instance);
        try {
          await page.goto(`${request.origin}/dashboard/${VIEW_PATH[view.view]}?${params.toString()}`, { waitUntil: 'domcontentloaded' });
          let outcome = await outcomeOf(page);
          if (outcome === 'login') {
            await signIn();
            outcome = await outcomeOf(page);
            if (outcome === 'login') throw new ProviderError('PROVIDER.AUTH_FAILED', 'the dashboard asked to sign in again right after a successful sign-in');
          }
          if (outcome === 'error') {
            const text = (await page.locator('#result-error').textContent()) ?? '';
            throw new ProviderError('PROVIDER.QUERY_REJECTED', redactText(text.trim() || 'the dashboard view reported an error', { secrets, maxStringLength: 500 }));
          }
          const parsed = Extracted.safeParse(await page.evaluate(EXTRACT_ROWS));
          if (!parsed.success) throw new ProviderError('PROVIDER.RESPONSE_INVALID', 'the dashboard table does not have the expected shape');
          return { rows: parsed.data.rows, totalRows: parsed.data.total };
        } catch (error) {
          throw timeoutAware(error, `the ${view.view} view`);
        }
      },
      storageState: async () => BrowserStorageState.parse(await browser.context.storageState()),
      loginCount: () => logins,
      close: () => browser.close(),
    };
  };
}
