import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { loadConfig } from '../../src/config.js';
import { formatXmltvUtc } from '../../src/domain/xmltv-time.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import {
  BROWSER_SETUP_TIMEOUT_MS,
  launchChromium,
  RESULTS,
  SKIP_BROWSER,
} from '../helpers/chromium.js';

let dir: string;
let sink: SmtpSink;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (SKIP_BROWSER) return;
  dir = mkdtempSync(join(tmpdir(), 'onair-browser-'));
  sink = await startSmtpSink();
  const config = loadConfig({
    DATABASE_URL: join(dir, 'onair.db'),
    PORT: '0',
    SMTP_URL: sink.url,
    LOG_LEVEL: 'warn',
  });
  server = await startServer(config);
  await ingestXmltv(
    server.store.ingest,
    { source: resolve(import.meta.dirname, '../fixtures/xmltv/basic.xml') },
    { country: 'IE', assumeOffsetMinutes: 0, nowMs: Date.now() },
  );
  browser = await launchChromium();
}, BROWSER_SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (SKIP_BROWSER) return;
  await browser?.close();
  await server?.close();
  await sink?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function callApi(key: string): Promise<number> {
  const res = await fetch(`${server.url}/api/v1/countries`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return res.status;
}

/** Signs in through the mailed link, ending on the account page. */
async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${server.url}/signin`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: /e-mail me a sign-in link/i }).click();
  await expect.poll(() => page.locator('h1').textContent()).toBe('Check your inbox');
  const mail = await sink.waitForMail(email);
  const link = /https?:\/\/\S+\/signin\/confirm\?token=[\w-]+/.exec(mail.text ?? '')?.[0];
  await page.goto(link ?? '');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}/account`);
}

describe.skipIf(SKIP_BROWSER)('account pages in Chromium', () => {
  it('sign in by e-mail → confirm → create a key → call the API → revoke → 401', async () => {
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    await page.goto(`${server.url}/`);
    await page.getByRole('link', { name: /sign in or start/i }).click();
    await page.getByLabel('E-mail address').fill('viewer@example.com');
    await page.getByRole('button', { name: /e-mail me a sign-in link/i }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Check your inbox');

    const mail = await sink.waitForMail('viewer@example.com');
    expect(mail.subject).toBe('Your Onair sign-in link');
    const link = /https?:\/\/\S+\/signin\/confirm\?token=[\w-]+/.exec(mail.text ?? '')?.[0];
    expect(link?.startsWith(server.url)).toBe(true);

    await page.goto(link ?? '');
    await expect.poll(() => page.locator('h1').textContent()).toBe('Sign in to Onair');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/account`);
    expect(await page.locator('.status').textContent()).toMatch(/You can call the API/);

    await page.getByPlaceholder(/key name/i).fill('browser test');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent()) ?? '';
    expect(key).toMatch(/^onair_[0-9A-Za-z]{38}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Copied' }).count()).toBe(1);
    // A string expression: the test is compiled without the DOM types.
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);

    expect(await callApi(key)).toBe(200);

    await page.getByRole('link', { name: 'Back to your account' }).click();
    await page.waitForURL(`${server.url}/account`);
    expect(await page.content()).not.toContain(key);
    await page.screenshot({ path: join(RESULTS, 'account-page.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(RESULTS, 'account-page-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 720 });

    await page.getByRole('button', { name: 'Revoke key browser test' }).click();
    await page.waitForURL(`${server.url}/account?notice=key-revoked`);
    expect(await page.locator('[role=status]').textContent()).toMatch(/revoked/);
    expect(await callApi(key)).toBe(401);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${server.url}/signin?notice=signed-out`);
    await page.goto(`${server.url}/account`);
    await page.waitForURL(`${server.url}/signin`);

    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });

  it('guide feed: create by search → copy the URL → fetch it → new URL → the old one is 404', async () => {
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await signIn(page, 'feeds@example.com');
    // Programmes in the feed's window (basic.xml's are long past): a feed shows channels with some.
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const at = (ms: number) => formatXmltvUtc(ms);
    await ingestXmltv(
      server.store.ingest,
      {
        name: 'now.xml',
        data: Buffer.from(
          `<tv>${['rte1.ie', 'tg4.ie']
            .map(
              (id) =>
                `<programme start="${at(hour)}" stop="${at(hour + 3_600_000)}" channel="${id}"><title>Now on ${id}</title></programme>`,
            )
            .join('')}</tv>`,
        ),
      },
      { country: 'IE', assumeOffsetMinutes: 0, nowMs: Date.now() },
    );

    await page.getByRole('link', { name: 'New feed' }).click();
    await page.getByLabel('Name').fill('Living room');
    // Chosen by search, in the order picked: TG4 first, then RTÉ (accents need not match).
    await page.getByLabel('Search channels').fill('tg4');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('checkbox', { name: /TG4/ }).check();
    await page.getByLabel('Search channels').fill('rte');
    await page.getByRole('button', { name: 'Search' }).click();
    // The name typed and the channel chosen before the search are kept.
    expect(await page.getByLabel('Name').inputValue()).toBe('Living room');
    expect(await page.getByRole('checkbox', { name: /TG4/ }).isChecked()).toBe(true);
    await page.getByRole('checkbox', { name: /RTÉ/ }).check();
    await page.getByLabel(/Days ahead/).fill('3');
    await page.getByRole('button', { name: 'Save feed' }).click();

    const url = (await page.locator('#feed-url').textContent()) ?? '';
    expect(url).toMatch(new RegExp(`^${server.url}/feeds/[\\w-]{43}/guide\\.xml$`));
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Copied' }).count()).toBe(1);
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(url);
    const first = await fetch(url);
    expect(first.status).toBe(200);
    const xml = await first.text();
    expect([...xml.matchAll(/<channel id="([^"]+)"/g)].map((m) => m[1])).toEqual([
      'tg4.ie',
      'rte1.ie',
    ]);
    await page.screenshot({ path: join(RESULTS, 'feed-url.png'), fullPage: true });

    await page.getByRole('link', { name: 'Back to your account' }).click();
    expect(await page.content()).not.toContain(url);
    await page.screenshot({ path: join(RESULTS, 'account-feeds.png'), fullPage: true });
    await page.getByRole('button', { name: 'New URL for feed Living room' }).click();
    const renewed = (await page.locator('#feed-url').textContent()) ?? '';
    expect(renewed).not.toBe(url);
    expect((await fetch(url)).status).toBe(404);
    expect((await fetch(renewed)).status).toBe(200);

    await page.getByRole('link', { name: 'Back to your account' }).click();
    await page.getByRole('button', { name: 'Delete feed Living room' }).click();
    await page.waitForURL(`${server.url}/account?notice=feed-deleted#feeds`);
    expect((await fetch(renewed)).status).toBe(404);
    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });

  it('a form posted from another site is refused', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // A page on another origin (a data: URL is opaque, "null") posting to the sign-in form.
    await page.setContent(
      `<form method="post" action="${server.url}/signin"><input name="email" value="x@example.com"><button>go</button></form>`,
    );
    const [response] = await Promise.all([
      page.waitForResponse(`${server.url}/signin`),
      page.getByRole('button', { name: 'go' }).click(),
    ]);
    expect(response.status()).toBe(403);
    await context.close();
  });
});
