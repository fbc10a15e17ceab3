import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { seedDemo } from '../../src/demo-seed.js';
import { startServer, type RunningServer } from '../../src/server.js';
import {
  BROWSER_SETUP_TIMEOUT_MS,
  launchChromium,
  RESULTS,
  SKIP_BROWSER,
} from '../helpers/chromium.js';

let dir: string;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (SKIP_BROWSER) return;
  dir = mkdtempSync(join(tmpdir(), 'onair-browser-'));
  server = await startServer(
    loadConfig({ DATABASE_URL: join(dir, 'onair.db'), PORT: '0', LOG_LEVEL: 'warn' }),
    { beforeListen: async (store) => void (await seedDemo(store, Date.now())) },
  );
  browser = await launchChromium();
}, BROWSER_SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (SKIP_BROWSER) return;
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A page that records console errors (CSP violations among them) and every request it makes. */
async function watchedPage(): Promise<{ page: Page; problems: string[]; requests: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  return { page, problems, requests };
}

describe.skipIf(SKIP_BROWSER)('developer pages in Chromium', () => {
  it('/docs renders the reference of the four routes from /openapi.json', async () => {
    const { page, problems, requests } = await watchedPage();
    await page.goto(`${server.url}/docs`);
    const paths = page.locator('.opblock-summary-path');
    await expect.poll(() => paths.count(), { timeout: 20_000 }).toBe(4);
    expect(
      await paths.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-path'))),
    ).toEqual([
      '/api/v1/countries',
      '/api/v1/countries/{country}/channels',
      '/api/v1/channels/search',
      '/api/v1/channels/{channelId}/programmes',
    ]);
    expect(await page.locator('.opblock-get').count()).toBe(4);
    // The server list names this deployment.
    expect(await page.locator('.servers select').textContent()).toContain(server.url);

    // An operation opens to its parameters and every error code.
    await page.locator('.opblock-summary-path[data-path$="/programmes"]').click();
    const programmes = page.locator('.opblock.is-open');
    await expect.poll(() => programmes.locator('.parameters').textContent()).toMatch(/days/);
    const responses = (await programmes.locator('.responses-wrapper').textContent()) ?? '';
    for (const code of ['INVALID_DAYS', 'CHANNEL_NOT_FOUND', 'UNAUTHORIZED', 'RATE_LIMITED']) {
      expect(responses).toContain(code);
    }

    // The getting-started curl line is this deployment's, and copies.
    const curl = `curl -H "Authorization: Bearer YOUR_KEY" ${server.url}/api/v1/countries`;
    expect(await page.locator('#curl-countries').textContent()).toBe(curl);
    await page.locator('button[data-copy-target="curl-countries"]').click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(curl);

    await page.screenshot({ path: join(RESULTS, 'docs-page.png'), fullPage: true });
    expect(requests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
    expect(problems, problems.join('\n')).toEqual([]);
    await page.context().close();
  });

  it('/playground: country → channel → schedule, only from the preview API', async () => {
    const { page, problems, requests } = await watchedPage();
    await page.goto(`${server.url}/playground`);
    const country = page.getByLabel('Country');
    await expect.poll(() => country.isEnabled()).toBe(true);
    await country.selectOption('UK');
    await expect
      .poll(() => page.locator('#pg-channels button').allTextContents())
      .toEqual(['Kelpie Kids', 'Onair News']);

    await page.getByRole('searchbox', { name: 'Channel' }).fill('news');
    await expect
      .poll(() => page.locator('#pg-channels button').allTextContents())
      .toEqual(['Onair News']);
    await page.getByRole('button', { name: 'Onair News' }).click();

    const dayHeadings = page.locator('.timeline-day');
    const todayName = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'UTC',
      weekday: 'long',
      day: 'numeric',
      month: 'long',
    });
    const today = `${todayName.format(new Date())} (UTC)`;
    const tomorrow = `${todayName.format(new Date(Date.now() + 86_400_000))} (UTC)`;
    await expect.poll(() => dayHeadings.allTextContents()).toEqual([today]);
    expect(await page.locator('.timeline-item').count()).toBeGreaterThan(5);
    expect(await page.locator('#pg-curl').textContent()).toMatch(
      new RegExp(
        `^curl -H "Authorization: Bearer YOUR_KEY" "${server.url}/api/v1/channels/[0-9a-f-]{36}/programmes\\?days=today"$`,
      ),
    );
    await page.screenshot({ path: join(RESULTS, 'playground.png'), fullPage: true });

    await page.getByLabel('Tomorrow', { exact: true }).check();
    await expect.poll(() => dayHeadings.allTextContents()).toEqual([tomorrow]);
    // Even "all" and a long lookback show only today and tomorrow: preview data.
    await page.getByLabel('All', { exact: true }).check();
    await expect.poll(() => dayHeadings.allTextContents()).toEqual([today, tomorrow]);
    await page.getByLabel('Number of days').fill('30');
    await page.getByLabel('Number of days').press('Enter');
    await page.getByLabel('Number of days').blur();
    await expect.poll(() => page.locator('#pg-request').textContent()).toMatch(/days=30$/);
    await expect.poll(() => dayHeadings.allTextContents()).toEqual([today, tomorrow]);

    await page.getByRole('tab', { name: 'JSON' }).click();
    const json = JSON.parse((await page.locator('#pg-json').textContent()) ?? '{}');
    expect(json).toMatchObject({ preview: true, channelId: expect.any(String) });
    expect(json.programmes.length).toBeGreaterThan(10);
    await page.screenshot({ path: join(RESULTS, 'playground-json.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('tab', { name: 'Timeline' }).click();
    await page.screenshot({ path: join(RESULTS, 'playground-phone.png'), fullPage: true });

    const paths = requests.map((url) => new URL(url));
    expect(paths.filter((url) => url.origin !== server.url)).toEqual([]);
    expect(paths.filter((url) => url.pathname.startsWith('/api/'))).toEqual([]);
    expect(
      paths.filter((url) => url.pathname.startsWith('/playground/api/')).length,
    ).toBeGreaterThan(4);
    expect(problems, problems.join('\n')).toEqual([]);
    await page.context().close();
  });
});
