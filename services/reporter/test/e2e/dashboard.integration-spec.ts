import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TokenStore } from '@aoc/auth';
// This e2e project (project.json, so the reporter itself never depends on the launcher) needs
// every role running, which only the launcher wires.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { loadExample, runExample, startPlatform, type ExampleResult, type Platform } from '@aoc/launcher';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = resolve(__dirname, '../../../..');
const EXAMPLE = join(ROOT, 'services/router/examples/tickets/latency-regression.json');
const ARTIFACTS = join(ROOT, 'test-artifacts/dashboard');
const INJECTED = '<script>window.__aocInjected = true</script>';

/** Asia/Shanghai is UTC+8 all year: the report day of an instant, and the Monday of its week. */
function shanghaiDay(iso: string): string {
  return new Date(Date.parse(iso) + 8 * 3600 * 1000).toISOString().slice(0, 10);
}
function weekStartOf(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7));
  return date.toISOString().slice(0, 10);
}

/**
 * The reporter's dashboard in a real browser (system Chromium): all roles in one process with the
 * in-process bus and embedded Postgres, the bundled example pushed through to a verdict, then
 * every page opened by following links. Assertions are on visible text, never on timing.
 */
describe('reporter dashboard in a browser', () => {
  let platform: Platform;
  let browser: Browser;
  let page: Page;
  let baseUrl: string;
  let example: ExampleResult;
  let hostile: ExampleResult;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    platform = await startPlatform({ httpFor: (d) => (d.role === 'reporter' ? 0 : undefined) });
    const url = platform.roles.get('reporter')?.httpUrl;
    if (!url) throw new Error('the reporter serves no HTTP');
    baseUrl = url;
    example = await runExample(platform, loadExample(EXAMPLE));
    // The same ticket as a production run (trigger initial, so reports count it) under another
    // key, with markup in its title (the answer quotes the title), on a cluster the providers serve
    // (it is in the replayed inventory) but with no evidence recorded for this window, so its
    // failed acquisition shows up as a runtime signal.
    const request = loadExample(EXAMPLE);
    request.trigger = 'initial';
    const elsewhere = (text: string) => text.replaceAll('tidb-prod-7f3a', 'tidb-stage-3');
    request.ticket = { ...request.ticket, key: 'SUP-9001', title: `${INJECTED} ${elsewhere(request.ticket.title)}`, description: elsewhere(request.ticket.description) };
    hostile = await runExample(platform, request);
    // Never let Playwright fetch a browser: the machine has none to download and no internet.
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    // Sign in as a browser does: the token into the sign-in form, a session cookie back.
    const { token } = await new TokenStore(platform.dataSource).create({ name: 'dashboard-test', role: 'viewer', tenant: 'default', createdBy: 'test' });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    expect(await open('/')).toBe(200);
    expect(page.url()).toBe(`${baseUrl}/auth/sign-in`);
    await page.locator('#token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${baseUrl}/`);
  }, 240000);

  it('sends a browser without a session to the sign-in page and refuses a wrong token', async () => {
    const context = await browser.newContext();
    const fresh = await context.newPage();
    await fresh.goto(`${baseUrl}/runs/${example.accepted.runId}`);
    expect(fresh.url()).toBe(`${baseUrl}/auth/sign-in`);
    await fresh.locator('#token').fill('aoc_000000000000_' + 'a'.repeat(43));
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    expect((await fresh.getByRole('alert').innerText()).trim()).toBe('That token was not accepted.');
    await context.close();
  });

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  async function shoot(name: string): Promise<void> {
    await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  }

  async function open(path: string): Promise<number> {
    const response = await page.goto(baseUrl + path);
    return response?.status() ?? 0;
  }

  const h1 = (): Promise<string> => page.locator('h1').innerText();

  it('lists the run with its verdict on /, newest first, and pages with ?limit=&before=', async () => {
    expect(await open('/')).toBe(200);
    expect(await h1()).toBe('Runs');
    const row = page.locator(`tr[data-run-id="${example.accepted.runId}"]`);
    const text = await row.innerText();
    expect(text).toContain('SUP-1042');
    expect(text).toContain(example.accepted.runId);
    expect(text).toContain(example.summary.verdict as string);
    expect(text).toContain(example.summary.decision);
    expect(text).toContain(example.summary.evidenceStatus as string);
    const ids = await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')));
    expect(ids).toEqual([hostile.accepted.runId, example.accepted.runId]);
    await shoot('runs');

    expect(await open('/?limit=1')).toBe(200);
    expect(await page.locator('tbody tr').count()).toBe(1);
    await page.getByRole('link', { name: 'Older →' }).click();
    await page.waitForURL(/before=/);
    expect(await page.locator('tbody tr').getAttribute('data-run-id')).toBe(example.accepted.runId);
  });

  it('follows the link to the run page: both messages, decision, evidence status and verdict', async () => {
    await open('/');
    await page.locator(`a[href="/runs/${example.accepted.runId}"]`).click();
    await page.waitForURL(`**/runs/${example.accepted.runId}`);
    expect(await h1()).toBe(`Run ${example.accepted.runId}`);
    const customer = await page.locator('section[aria-labelledby="customer-reply"]').innerText();
    const internal = await page.locator('section[aria-labelledby="internal-handoff"]').innerText();
    expect(customer).toContain('Thanks for reporting "p99 latency doubled on cluster tidb-prod-7f3a since 10:40"');
    expect(internal).toContain('Evidence boundary:');
    expect(internal).toContain('Escalate if:');
    // Markdown is rendered, not shown as source.
    expect(internal).not.toContain('**');
    const outcome = await page.locator('section[aria-labelledby="outcome"]').innerText();
    expect(outcome).toContain(example.summary.decision);
    expect(outcome).toContain(example.summary.evidenceStatus as string);
    const evaluation = await page.locator('section[aria-labelledby="evaluation"]').innerText();
    expect(evaluation).toContain(example.summary.verdict as string);
    expect(evaluation).toContain(example.summary.verdictReason as string);
    await shoot('run');
  });

  it('renders markup from the ticket inside an AI answer as inert text', async () => {
    expect(await open(`/runs/${hostile.accepted.runId}`)).toBe(200);
    expect(await page.locator('section[aria-labelledby="customer-reply"]').innerText()).toContain(INJECTED);
    expect(await page.evaluate(() => (globalThis as { __aocInjected?: boolean }).__aocInjected)).toBeUndefined();
    expect(await page.locator('script').count()).toBe(0);
    await shoot('run-with-markup');
  });

  it('opens the ticket page from the run: answer version, fingerprint and verdict', async () => {
    await open(`/runs/${example.accepted.runId}`);
    await page.locator('a[href="/tickets/SUP-1042"]').first().click();
    await page.waitForURL('**/tickets/SUP-1042');
    expect(await h1()).toBe('Ticket SUP-1042');
    const version = page.locator(`section.version[data-fingerprint="${example.summary.answerFingerprint}"]`);
    const text = await version.innerText();
    expect(text).toContain('Answer version 1');
    expect(text).toContain(example.summary.answerFingerprint);
    expect(text).toContain(example.summary.verdict as string);
    expect(text).toContain(example.accepted.runId);
    await shoot('ticket');
  });

  it('shows the daily report of the run\'s Asia/Shanghai day', async () => {
    const day = shanghaiDay(hostile.summary.publishedAt);
    expect(await open(`/reports/daily?day=${day}`)).toBe(200);
    expect(await h1()).toBe(`Daily report · ${day}`);
    const body = await page.locator('main').innerText();
    for (const heading of ['Quality', 'Verdict distribution', 'Funnel', 'Top gaps', 'Runtime signals', 'Provider health']) expect(body).toContain(heading);
    // The production run is counted (the replay is not), with its verdict and its failed evidence.
    expect(await page.locator('.stat', { hasText: 'runs counted' }).locator('.value').innerText()).toBe('1');
    expect(await page.locator('section[aria-labelledby="verdicts"] rect title').allTextContents()).toContain(`${hostile.summary.verdict}: 1`);
    const signals = await page.locator('table.runtime-signals').innerText();
    expect(signals).toContain(hostile.accepted.runId);
    expect(signals).toContain('SUP-9001');
    expect(signals).toContain(hostile.summary.evidenceStatus as string);
    await shoot('daily');
  });

  it('shows the weekly report of the same week with the provider 5xx table', async () => {
    const weekStart = weekStartOf(shanghaiDay(hostile.summary.publishedAt));
    expect(await open(`/reports/weekly?weekStart=${weekStart}`)).toBe(200);
    expect(await h1()).toContain(`Weekly report · ${weekStart}`);
    expect(await page.locator('main').innerText()).toContain('Provider 5xx episodes');
    await shoot('weekly');
  });

  it('shows provider health from the navigation', async () => {
    await open('/');
    await page.getByRole('link', { name: 'Provider health' }).click();
    await page.waitForURL('**/providers');
    expect(await h1()).toBe('Provider health');
    const body = await page.locator('main').innerText();
    expect(body).toContain('Success rate per day');
    expect(body).toContain('HTTP attempts by status class');
    await shoot('providers');
  });

  it('answers an invalid parameter with a 400 page naming the field', async () => {
    expect(await open('/reports/daily?day=2026-13-45')).toBe(400);
    expect(await page.locator('[role="alert"]').innerText()).toContain('day');
    await shoot('bad-request');
  });
});
