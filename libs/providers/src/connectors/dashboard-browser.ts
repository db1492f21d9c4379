import type { Browser, BrowserContext } from 'playwright-core';
import { ProviderError } from '../core/provider-error';
import type { BrowserStorageState } from './storage-state-store';

/** The system Chromium; Playwright never downloads a browser here. */
export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

const CHROMIUM_ARGS = ['--headless', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Chromium's own sandbox stays on. Chromium cannot sandbox a process running as root, so there (a
 * developer machine, this CI) it runs without: deployments run the roles as a non-root user.
 */
export function sandboxed(uid: number | undefined = process.getuid?.()): boolean {
  return uid !== 0;
}

/** The http(s) origin a WebSocket URL belongs to (`wss://h:1/x` → `https://h:1`), or '' when it is no URL. */
export function webSocketOrigin(url: string): string {
  try {
    const u = new URL(url);
    const scheme = u.protocol === 'wss:' ? 'https:' : u.protocol === 'ws:' ? 'http:' : u.protocol;
    return `${scheme}//${u.host}`;
  } catch {
    return '';
  }
}

export interface RestrictedBrowser {
  browser: Browser;
  context: BrowserContext;
  /** Requests the context tried to make outside its allowed origins (aborted). */
  blocked: () => number;
  close(): Promise<void>;
}

/**
 * Launches system Chromium with a fresh, isolated context (no shared profile) whose every request
 * and WebSocket outside `allowedOrigins` is aborted, so page scripts cannot reach any other host.
 */
export async function openRestrictedBrowser(options: { executablePath?: string; allowedOrigins: readonly string[]; storageState: BrowserStorageState | null; signal?: AbortSignal }): Promise<RestrictedBrowser> {
  const allowed = new Set(options.allowedOrigins);
  let browser: Browser;
  try {
    // Loaded on first use: importing the package never requires the browser driver.
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: options.executablePath ?? SYSTEM_CHROMIUM, args: CHROMIUM_ARGS, chromiumSandbox: sandboxed(), timeout: 30_000 });
  } catch (error) {
    throw new ProviderError('PROVIDER.UNREACHABLE', `the dashboard browser did not start: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  let blocked = 0;
  const close = async () => {
    options.signal?.removeEventListener('abort', onAbort);
    await browser.close().catch(() => undefined);
  };
  const onAbort = () => void close();
  options.signal?.addEventListener('abort', onAbort);
  try {
    const context = await browser.newContext({
      ...(options.storageState ? { storageState: options.storageState } : {}),
      serviceWorkers: 'block',
      acceptDownloads: false,
      viewport: { width: 1280, height: 900 },
    });
    await context.route('**/*', async (route) => {
      let origin = '';
      try {
        origin = new URL(route.request().url()).origin;
      } catch {
        /* not a URL: blocked */
      }
      if (allowed.has(origin)) await route.continue();
      else {
        blocked++;
        await route.abort('blockedbyclient');
      }
    });
    // Request routes never see WebSockets: they get the same origin check of their own.
    await context.routeWebSocket(
      () => true,
      (ws) => {
        if (allowed.has(webSocketOrigin(ws.url()))) ws.connectToServer();
        else {
          blocked++;
          void ws.close({ code: 1008, reason: 'blocked' });
        }
      },
    );
    return { browser, context, blocked: () => blocked, close };
  } catch (error) {
    await close();
    throw new ProviderError('PROVIDER.UNREACHABLE', `the dashboard browser context could not be created: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
}
