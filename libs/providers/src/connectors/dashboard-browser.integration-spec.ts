import { createServer, type Server } from 'node:http';
import { openRestrictedBrowser } from './dashboard-browser';

async function serve(handler: (path: string) => string, hits: string[]): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': req.url?.endsWith('.js') ? 'text/javascript' : 'text/html' }).end(handler(req.url ?? '/'));
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

  it('closes the browser when its signal aborts', async () => {
    const controller = new AbortController();
    const browser = await openRestrictedBrowser({ allowedOrigins: [], storageState: null, signal: controller.signal });
    controller.abort();
    await new Promise((r) => setTimeout(r, 500));
    expect(browser.browser.isConnected()).toBe(false);
  }, 60_000);
});
