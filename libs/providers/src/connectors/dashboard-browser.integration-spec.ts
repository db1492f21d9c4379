import { createServer, type Server } from 'node:http';
import { openRestrictedBrowser, sandboxed, webSocketOrigin } from './dashboard-browser';

async function serve(handler: (path: string) => string, hits: string[]): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': req.url?.endsWith('.js') ? 'text/javascript' : 'text/html' }).end(handler(req.url ?? '/'));
  });
  // A WebSocket handshake is recorded and dropped: reaching the server at all is what counts.
  server.on('upgrade', (req, socket) => {
    hits.push(`upgrade ${req.url ?? ''}`);
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  return { origin: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`, server };
}

describe('restricted dashboard browser (system Chromium)', () => {
  it('reaches its allowed origin and aborts every request to any other host', async () => {
    const elsewhereHits: string[] = [];
    const elsewhere = await serve(() => 'window.leaked = true;', elsewhereHits);
    const allowedHits: string[] = [];
    const allowed = await serve(
      () => `<!doctype html><p id="x">page</p><script src="${elsewhere.origin}/steal.js"></script><img src="${elsewhere.origin}/pixel.png"><script>fetch('${elsewhere.origin}/beacon').catch(() => document.body.setAttribute('data-fetch', 'blocked'))</script>`,
      allowedHits,
    );
    const browser = await openRestrictedBrowser({ allowedOrigins: [allowed.origin], storageState: null });
    try {
      const page = await browser.context.newPage();
      await page.goto(`${allowed.origin}/`);
      await page.locator('body[data-fetch="blocked"]').waitFor({ state: 'attached', timeout: 10_000 });
      expect(await page.evaluate('window.leaked === true')).toBe(false);
      expect(browser.blocked()).toBeGreaterThanOrEqual(3);
      expect(elsewhereHits).toEqual([]);
      expect(allowedHits).toContain('/');
    } finally {
      await browser.close();
      allowed.server.close();
      elsewhere.server.close();
    }
  }, 60_000);

  it('blocks a WebSocket to any other host and lets one to its own origin through', async () => {
    const elsewhereHits: string[] = [];
    const elsewhere = await serve(() => '', elsewhereHits);
    const allowedHits: string[] = [];
    const wsOf = (origin: string) => origin.replace('http:', 'ws:');
    const allowed = await serve(
      () => `<!doctype html><script>new WebSocket('${wsOf(elsewhere.origin)}/exfil'); new WebSocket(location.origin.replace('http:', 'ws:') + '/own');</script>`,
      allowedHits,
    );
    const browser = await openRestrictedBrowser({ allowedOrigins: [allowed.origin], storageState: null });
    try {
      const page = await browser.context.newPage();
      await page.goto(`${allowed.origin}/`);
      for (const until = Date.now() + 10_000; !allowedHits.includes('upgrade /own') && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
      expect(allowedHits).toContain('upgrade /own');
      expect(elsewhereHits).toEqual([]);
      expect(browser.blocked()).toBeGreaterThanOrEqual(1);
    } finally {
      await browser.close();
      allowed.server.close();
      elsewhere.server.close();
    }
  }, 60_000);

  it('keeps the sandbox except where Chromium cannot have one (root), and maps WebSocket URLs to origins', () => {
    expect(sandboxed(1000)).toBe(true);
    expect(sandboxed(0)).toBe(false);
    expect(webSocketOrigin('wss://dash.example:8443/live?x=1')).toBe('https://dash.example:8443');
    expect(webSocketOrigin('ws://127.0.0.1:3000/ws')).toBe('http://127.0.0.1:3000');
    expect(webSocketOrigin('not a url')).toBe('');
  });

  it('closes the browser when its signal aborts', async () => {
    const controller = new AbortController();
    const browser = await openRestrictedBrowser({ allowedOrigins: [], storageState: null, signal: controller.signal });
    controller.abort();
    await new Promise((r) => setTimeout(r, 500));
    expect(browser.browser.isConnected()).toBe(false);
  }, 60_000);
});
