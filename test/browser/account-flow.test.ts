import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { formatXmltvUtc } from '../../src/domain/xmltv-time.js';
import type { RunningServer } from '../../src/server.js';
import { verifyWebhook } from '../../clients/typescript/src/index.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { BROWSER_SETUP_TIMEOUT_MS, RESULTS, SKIP_BROWSER } from '../helpers/chromium.js';
import {
  ingestBasicGuide,
  startBrowserServer,
  type BrowserServer,
} from '../helpers/browser-server.js';
import { disableWebhook } from '../helpers/disable-webhook.js';

let sink: SmtpSink;
let running: BrowserServer;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (SKIP_BROWSER) return;
  sink = await startSmtpSink();
  running = await startBrowserServer(
    // The webhook receiver of the test is on this machine.
    { SMTP_URL: sink.url, WEBHOOK_ALLOW_HTTP: '1' },
    { beforeListen: ingestBasicGuide },
  );
  ({ server, browser } = running);
}, BROWSER_SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (SKIP_BROWSER) return;
  await running?.close();
  await sink?.close();
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

    await page.getByLabel('Key name').fill('browser test');
    await page.getByRole('button', { name: 'Create key' }).click();
    // POST-redirect-GET: the key is shown on a page of its own, reached by a 303.
    await page.waitForURL(/\/account\/keys\/[0-9a-f-]{36}\/created$/);
    const createdUrl = page.url();
    const key = (await page.locator('#new-key').textContent()) ?? '';
    expect(key).toMatch(/^onair_[0-9A-Za-z]{38}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Copied' }).count()).toBe(1);
    // Said to screen readers too, and the button's own label comes back.
    expect(await page.getByRole('status').filter({ hasText: 'Copied' }).textContent()).toBe(
      'Copied to the clipboard',
    );
    await expect
      .poll(() => page.getByRole('button', { name: 'Copy', exact: true }).count(), {
        timeout: 5_000,
      })
      .toBe(1);
    // A string expression: the test is compiled without the DOM types.
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);

    expect(await callApi(key)).toBe(200);

    // Back to the account, then the browser's Back: the key's page is not shown again (it is
    // sent no-store and its secret was taken), whether fetched again or kept by the browser.
    await page.getByRole('link', { name: 'Back to your account' }).click();
    await page.waitForURL(`${server.url}/account`);
    await page.goBack();
    await expect.poll(() => page.url()).toBe(`${server.url}/account?notice=key-shown`);
    expect(await page.content()).not.toContain(key);
    await page.goto(createdUrl);
    await page.waitForURL(`${server.url}/account?notice=key-shown`);
    expect(await page.content()).not.toContain(key);

    // A reload of a new key's page shows the account, not the key, and makes no key (the
    // browser has no form to send again).
    await page.goto(`${server.url}/account`);
    await page.getByLabel('Key name').fill('reload test');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.waitForURL(/\/created$/);
    const second = (await page.locator('#new-key').textContent()) ?? '';
    expect(second).toMatch(/^onair_/);
    await page.reload();
    await page.waitForURL(`${server.url}/account?notice=key-shown`);
    expect(await page.content()).not.toContain(second);
    expect(await page.locator('[role=status]').textContent()).toMatch(/shown only once/);
    expect(await page.locator('table.keys tbody tr').count()).toBe(2);
    await page.getByRole('link', { name: 'Revoke key reload test' }).click();
    await page.getByRole('button', { name: 'Revoke key reload test' }).click();
    await page.waitForURL(/notice=key-revoked/);

    await page.goto(`${server.url}/account`);
    expect(await page.content()).not.toContain(key);
    await page.screenshot({ path: join(RESULTS, 'account-page.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(RESULTS, 'account-page-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 720 });

    // Revoking asks first, naming the key and its last four characters; Cancel changes nothing.
    await page.getByRole('link', { name: 'Revoke key browser test' }).click();
    await page.waitForURL(/\/account\/keys\/[0-9a-f-]{36}\/revoke$/);
    expect(await page.locator('main').textContent()).toContain(
      `Revoke the key “browser test” (ending ${key.slice(-4)})`,
    );
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForURL(`${server.url}/account`);
    expect(await callApi(key)).toBe(200);
    await page.getByRole('link', { name: 'Revoke key browser test' }).click();
    await page.getByRole('button', { name: 'Revoke key browser test' }).click();
    await page.waitForURL(/\/account\?notice=key-revoked&key=[0-9a-f-]{36}$/);
    expect(await page.locator('[role=status]').textContent()).toMatch(
      new RegExp(`The key “browser test” \\(ending ${key.slice(-4)}\\) is revoked`),
    );
    expect(await callApi(key)).toBe(401);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${server.url}/signin?notice=signed-out`);
    await page.goto(`${server.url}/account`);
    await page.waitForURL(`${server.url}/signin`);

    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });

  it('signing out everywhere asks first, then ends every session', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const elsewhere = await (await browser.newContext()).newPage();
    await signIn(page, 'everywhere@example.com');
    await signIn(elsewhere, 'everywhere@example.com');
    await page.getByRole('link', { name: 'Sign out everywhere' }).click();
    await page.waitForURL(`${server.url}/account/sessions/end-all`);
    expect(await page.locator('h1').textContent()).toBe('Sign out everywhere?');
    // Asking ended nothing.
    await elsewhere.reload();
    expect(elsewhere.url()).toBe(`${server.url}/account`);
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL(`${server.url}/signin?notice=signed-out-everywhere`);
    await elsewhere.reload();
    // The other browser is told its session ended, not just shown the sign-in form.
    await elsewhere.waitForURL(`${server.url}/signin?notice=session-ended`);
    expect(await elsewhere.getByRole('status').first().textContent()).toContain(
      'Your session has ended',
    );
    await elsewhere.context().close();
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
    await page.waitForURL(/\/account\/feeds\/[0-9a-f-]{36}\/address$/);
    const addressPage = page.url();

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

    // A reload shows the account, not the address; one feed only.
    await page.reload();
    await page.waitForURL(`${server.url}/account?notice=feed-address-shown#feeds`);
    expect(await page.content()).not.toContain(url);
    expect(await page.locator('#feeds tbody tr').count()).toBe(1);
    await page.goto(addressPage);
    await page.waitForURL(`${server.url}/account?notice=feed-address-shown#feeds`);
    await page.screenshot({ path: join(RESULTS, 'account-feeds.png'), fullPage: true });

    // A new URL asks first; then the old address is refused and the new one shown once.
    await page.getByRole('link', { name: 'New URL for feed Living room' }).click();
    expect(await page.locator('h1').textContent()).toBe('Give this feed a new URL?');
    expect((await fetch(url)).status).toBe(200);
    await page.getByRole('button', { name: 'Make a new URL for feed Living room' }).click();
    await page.waitForURL(addressPage);
    const renewed = (await page.locator('#feed-url').textContent()) ?? '';
    expect(renewed).not.toBe(url);
    expect((await fetch(url)).status).toBe(404);
    expect((await fetch(renewed)).status).toBe(200);

    await page.getByRole('link', { name: 'Back to your account' }).click();
    await page.getByRole('link', { name: 'Delete feed Living room' }).click();
    expect(await page.locator('main').textContent()).toContain('Delete the feed “Living room”?');
    expect((await fetch(renewed)).status).toBe(200);
    await page.getByRole('button', { name: 'Delete feed Living room' }).click();
    await page.waitForURL(`${server.url}/account?notice=feed-deleted#feeds`);
    expect((await fetch(renewed)).status).toBe(404);
    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });

  it('webhook: create → see the secret once → send a test → see it in the log → delete with a confirm step', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const page = await browser.newPage();
      await signIn(page, 'hooks@example.com');
      await page.getByRole('link', { name: 'New webhook' }).click();
      await page.getByLabel('URL to send the changes to').fill(receiver.url);
      await page.getByLabel('Every channel of a country').check();
      await page.getByLabel('Country', { exact: true }).selectOption('IE');
      await page.getByRole('button', { name: 'Create webhook' }).click();
      await page.waitForURL(/\/account\/webhooks\/[0-9a-f-]{36}\/secret$/);
      const id = /webhooks\/([0-9a-f-]{36})\//.exec(page.url())?.[1] ?? '';
      const secret = (await page.locator('#webhook-secret').textContent()) ?? '';
      expect(secret).toMatch(/^whsec_[\w-]{43}$/);
      await page.screenshot({ path: join(RESULTS, 'webhook-secret.png'), fullPage: true });

      // Once: a reload shows the webhook without its secret, and says why.
      await page.reload();
      await page.waitForURL(`${server.url}/account/webhooks/${id}?notice=secret-shown`);
      expect(await page.locator('main').textContent()).not.toContain(secret);
      expect(await page.locator('[role=status]').textContent()).toContain('shown only once');

      await page.getByRole('button', { name: 'Send a test request' }).click();
      await page.waitForURL(`${server.url}/account/webhooks/${id}?notice=tested#attempts`);
      const firstRow = page.locator('#attempts tbody tr').first();
      expect(await firstRow.locator('[data-label=What]').textContent()).toBe('Test request');
      expect((await firstRow.locator('[data-label=Answer]').textContent())?.trim()).toBe(
        'HTTP 200',
      );
      const request = receiver.received.at(-1);
      expect(
        await verifyWebhook(
          secret,
          String(request?.headers['onair-signature']),
          request?.body ?? '',
        ),
      ).toEqual({ webhookId: id, changes: [] });
      await page.screenshot({ path: join(RESULTS, 'webhook-log.png'), fullPage: true });

      await page.goto(`${server.url}/account#webhooks`);
      expect(await page.locator('#webhooks tbody tr').count()).toBe(1);
      expect(await page.locator('#webhooks').textContent()).toContain('Active');
      await page.screenshot({ path: join(RESULTS, 'account-webhooks.png'), fullPage: true });

      // Disabled after a day of failures (as the delivery does it), then turned back on.
      await disableWebhook(server.store, id, Date.now());
      await page.goto(`${server.url}/account/webhooks/${id}`);
      expect(await page.locator('.facts').textContent()).toContain('Disabled');
      await page.getByRole('button', { name: 'Turn back on' }).click();
      await page.waitForURL(`${server.url}/account/webhooks/${id}?notice=enabled`);
      expect(await page.locator('[role=status]').textContent()).toContain('on again');
      expect(await page.locator('.facts').textContent()).toContain('Active');
      expect(await page.getByRole('button', { name: 'Turn back on' }).count()).toBe(0);
      await page.goto(`${server.url}/account#webhooks`);
      await page.getByRole('link', { name: `Delete webhook ${receiver.url}` }).click();
      expect(await page.locator('h1').textContent()).toBe('Delete this webhook?');
      await page.getByRole('button', { name: `Delete webhook ${receiver.url}` }).click();
      await page.waitForURL(`${server.url}/account?notice=webhook-deleted#webhooks`);
      expect(await page.locator('#webhooks tbody tr').count()).toBe(0);
      expect(await page.locator('#webhooks').textContent()).toContain('No webhooks yet.');
      await page.close();
    } finally {
      await receiver.close();
    }
  });

  it('a mistyped or form-only address is the site 404 page, styled, with a way home', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (
        message.type() === 'error' &&
        !/(404 \(Not Found\)|400 \(Bad Request\))/.test(message.text())
      ) {
        problems.push(message.text());
      }
    });
    await signIn(page, 'lost@example.com');
    // A form's own address (left in the bar by a refused form) leads to the form.
    await page.goto(`${server.url}/account/keys`);
    await page.waitForURL(`${server.url}/account#keys`);
    for (const path of ['/account/kyes', '/nowhere/at/all']) {
      const response = await page.goto(`${server.url}${path}`);
      expect(response?.status(), path).toBe(404);
      expect(response?.headers()['content-type'], path).toMatch(/^text\/html/);
      expect(await page.locator('h1').textContent(), path).toBe('Page not found');
      // The stylesheet loaded (the page's CSP allows it): the site's background colour.
      expect(
        await page.evaluate('getComputedStyle(document.documentElement).backgroundColor'),
      ).toBe('rgb(245, 247, 249)');
      // Still signed in: the header says so.
      expect(await page.getByRole('link', { name: 'Account', exact: true }).count()).toBe(1);
    }
    await page.screenshot({ path: join(RESULTS, 'not-found.png'), fullPage: true });
    // An address with a broken %-escape: the site's 400 page, styled, still signed in.
    const broken = await page.goto(`${server.url}/account/%zz`);
    expect(broken?.status()).toBe(400);
    expect(await page.locator('h1').textContent()).toBe('Address not understood');
    expect(await page.evaluate('getComputedStyle(document.documentElement).backgroundColor')).toBe(
      'rgb(245, 247, 249)',
    );
    expect(await page.getByRole('link', { name: 'Account', exact: true }).count()).toBe(1);
    await page.getByRole('link', { name: 'Go to the start' }).click();
    await page.waitForURL(`${server.url}/`);
    // The API's unknown paths stay JSON.
    const api = await page.goto(`${server.url}/api/nowhere`);
    expect(api?.headers()['content-type']).toMatch(/^application\/json/);
    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });

  it('Enter in a field saves the form; only Enter in the channel search box searches', async () => {
    const receiver = await startWebhookReceiver();
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    // The addresses the browser was sent to since the last check: after an Enter that saves,
    // none may carry the form (a name, a webhook's URL) in its query.
    const visited: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) visited.push(frame.url());
    });
    const receiverHost = new URL(receiver.url).host;
    const expectNoFormInAddress = () => {
      expect(visited.length).toBeGreaterThan(0);
      for (const url of visited.splice(0)) {
        expect(url).not.toContain('?');
        expect(decodeURIComponent(url)).not.toContain(receiverHost);
      }
    };
    try {
      await signIn(page, 'enter@example.com');
      await page.getByRole('link', { name: 'New feed' }).click();
      await page.getByLabel('Every channel of a country').check();
      await page.getByLabel('Country', { exact: true }).selectOption('IE');
      await page.getByLabel('Name').fill('Living room');
      visited.length = 0;
      await page.getByLabel('Name').press('Enter');
      await page.waitForURL(/\/account\/feeds\/[0-9a-f-]{36}\/address$/);
      expect(await page.locator('#feed-url').textContent()).toMatch(/\/guide\.xml$/);
      expectNoFormInAddress();
      // Refused (no channel picked), Enter still posts: the form comes back with why.
      await page.goto(`${server.url}/account/feeds/new`);
      await page.getByLabel('Name').fill('Kitchen');
      visited.length = 0;
      await page.getByLabel(/Days ahead/).press('Enter');
      await page.waitForURL(`${server.url}/account/feeds`);
      expect(await page.locator('.error-summary').textContent()).toContain(
        'Pick at least one channel.',
      );
      expectNoFormInAddress();
      // Enter in the search box searches, keeping what was typed.
      await page.getByLabel('Search channels').fill('tg4');
      await page.getByLabel('Search channels').press('Enter');
      await page.waitForURL(/\/account\/feeds\/new\?.*q=tg4/);
      expect(await page.getByLabel('Name').inputValue()).toBe('Kitchen');
      await page.getByRole('checkbox', { name: /TG4/ }).check();
      visited.length = 0;
      await page.getByLabel('Name').press('Enter');
      await page.waitForURL(/\/account\/feeds\/[0-9a-f-]{36}\/address$/);
      expectNoFormInAddress();

      // The webhook form: its channel search keeps the URL typed and out of the address.
      await page.goto(`${server.url}/account/webhooks/new`);
      await page.getByLabel('URL to send the changes to').fill(`${receiver.url}?token=secret`);
      await page.getByLabel('Search channels').fill('tg4');
      await page.getByLabel('Search channels').press('Enter');
      await expect.poll(() => page.getByLabel('TG4').count()).toBe(1);
      expect(page.url()).toBe(`${server.url}/account/webhooks/new`);
      expect(await page.getByLabel('URL to send the changes to').inputValue()).toBe(
        `${receiver.url}?token=secret`,
      );
      // Enter in the URL field creates it, and the URL is never in an address.
      await page.goto(`${server.url}/account/webhooks/new`);
      await page.getByLabel('Every channel of a country').check();
      await page.getByLabel('Country', { exact: true }).selectOption('IE');
      await page.getByLabel('URL to send the changes to').fill(receiver.url);
      visited.length = 0;
      await page.getByLabel('URL to send the changes to').press('Enter');
      await page.waitForURL(/\/account\/webhooks\/[0-9a-f-]{36}\/secret$/);
      expect(await page.locator('#webhook-secret').textContent()).toMatch(/^whsec_/);
      expectNoFormInAddress();
      // The Save button people meet is the visible one; the default one is out of the tab order.
      await page.goto(`${server.url}/account/feeds/new`);
      expect(await page.getByRole('button', { name: 'Save feed' }).count()).toBe(1);
      expect(problems, problems.join('\n')).toEqual([]);
    } finally {
      await context.close();
      await receiver.close();
    }
  });

  it('a key named with 100 characters breaks in its cell; buttons and key codes stay whole', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, 'long-names@example.com');
    const long = 'x'.repeat(100);
    for (const name of ['cron', long]) {
      await page.getByLabel('Key name').fill(name);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.waitForURL(/\/created$/);
      await page.getByRole('link', { name: 'Back to your account' }).click();
    }
    const measure = `(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      buttons: [...document.querySelectorAll('.keys .actions .button')].map((b) => ({
        text: b.textContent.trim(),
        lines: b.getClientRects().length,
        height: b.getBoundingClientRect().height,
        lineHeight: parseFloat(getComputedStyle(b).lineHeight),
      })),
      codes: [...document.querySelectorAll('td[data-label="Key"] code')].map((c) => ({
        text: c.textContent,
        height: c.getBoundingClientRect().height,
        lineHeight: parseFloat(getComputedStyle(c).lineHeight) || 20,
      })),
      nameCell: (() => {
        const cell = [...document.querySelectorAll('td[data-label="Name"]')].find((td) =>
          td.textContent.includes('xxxxxxxx'),
        );
        return { overflows: cell.scrollWidth > cell.clientWidth + 1 };
      })(),
    }))()`;
    interface Measured {
      scrollWidth: number;
      buttons: { text: string; lines: number; height: number; lineHeight: number }[];
      codes: { text: string; height: number; lineHeight: number }[];
      nameCell: { overflows: boolean };
    }
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${server.url}/account`);
      await page.screenshot({ path: join(RESULTS, `long-key-name-${width}.png`), fullPage: true });
      const m = (await page.evaluate(measure)) as Measured;
      expect(m.scrollWidth, `${width}: no sideways scrolling`).toBeLessThanOrEqual(width);
      expect(m.nameCell.overflows, `${width}: the name breaks inside its cell`).toBe(false);
      expect(m.buttons.map((b) => b.text)).toEqual(['Revoke', 'Revoke']);
      for (const button of m.buttons) {
        // One line of text: "Rev/oke" would be two lines tall.
        expect(button.lines, `${width}: Revoke in one box`).toBe(1);
        expect(button.height, `${width}: Revoke on one line`).toBeLessThan(button.lineHeight * 2);
      }
      for (const code of m.codes) {
        expect(code.height, `${width}: ${code.text} on one line`).toBeLessThan(
          code.lineHeight * 1.5,
        );
      }
      // The pages that name the key in words do not scroll sideways either.
      await page.getByRole('link', { name: `Revoke key ${long}` }).click();
      await page.waitForURL(/\/revoke$/);
      expect(
        (await page.evaluate('document.documentElement.scrollWidth')) as number,
        `${width}: revoke page`,
      ).toBeLessThanOrEqual(width);
    }
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
