import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { BROWSER_SETUP_TIMEOUT_MS, RESULTS, SKIP_BROWSER } from '../helpers/chromium.js';
import {
  ingestBasicGuide,
  startBrowserServer,
  type BrowserServer,
} from '../helpers/browser-server.js';

/** The account pages on a 360 px wide phone: nothing scrolls sideways or runs into another. */

const PHONE = { width: 360, height: 740 };

let sink: SmtpSink;
let running: BrowserServer;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (SKIP_BROWSER) return;
  sink = await startSmtpSink();
  running = await startBrowserServer({ SMTP_URL: sink.url }, { beforeListen: ingestBasicGuide });
  ({ server, browser } = running);
}, BROWSER_SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (SKIP_BROWSER) return;
  await running?.close();
  await sink?.close();
});

interface Box {
  text: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
  /** Boxes of an inline element: more than one when its text wrapped. */
  lines: number;
  /** Content wider than the element (clipped or scrolled inside it). */
  overflows: boolean;
}

interface Layout {
  scrollWidth: number;
  header: Box[];
  keyCells: Box[][];
  feedCells: Box[][];
  /** The short forms of the keys (\`onair_xxxx…last\`). */
  keyCodes: Box[];
}

// A string expression: the tests are compiled without the DOM types.
const MEASURE = `(() => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return {
      text: el.textContent.trim().replace(/\\s+/g, ' '),
      left: r.left, right: r.right, top: r.top, bottom: r.bottom,
      lines: el.getClientRects().length,
      overflows: el.scrollWidth > el.clientWidth + 1,
    };
  };
  const rows = (selector) =>
    [...document.querySelectorAll(selector + ' tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].map(box));
  return {
    scrollWidth: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
    header: [
      ...document.querySelectorAll('.site-header .brand, .site-header nav > a, .site-header nav button'),
    ].map(box),
    keyCells: rows('table.keys:not(#feeds table)'),
    feedCells: rows('#feeds table'),
    keyCodes: [...document.querySelectorAll('td[data-label="Key"] code')].map(box),
  };
})()`;

const overlap = (a: Box, b: Box) =>
  a.left < b.right - 0.5 &&
  b.left < a.right - 0.5 &&
  a.top < b.bottom - 0.5 &&
  b.top < a.bottom - 0.5;

/** Measures the page at 360 px and checks the rules every page keeps. */
async function checkPhoneLayout(page: Page, name: string): Promise<Layout> {
  await page.screenshot({ path: join(RESULTS, `phone-${name}.png`), fullPage: true });
  const layout = (await page.evaluate(MEASURE)) as Layout;
  expect(layout.scrollWidth, `${name}: no sideways scrolling`).toBeLessThanOrEqual(PHONE.width);
  expect(layout.header.length, name).toBeGreaterThanOrEqual(4);
  for (const item of layout.header) {
    expect(item.left, `${name}: ${item.text} on screen`).toBeGreaterThanOrEqual(0);
    expect(item.right, `${name}: ${item.text} on screen`).toBeLessThanOrEqual(PHONE.width);
    expect(item.lines, `${name}: ${item.text} on one line`).toBe(1);
  }
  for (const [i, a] of layout.header.entries()) {
    for (const b of layout.header.slice(i + 1)) {
      expect(overlap(a, b), `${name}: ${a.text} and ${b.text} apart`).toBe(false);
    }
  }
  for (const cells of [...layout.keyCells, ...layout.feedCells]) {
    for (const [i, cell] of cells.entries()) {
      expect(cell.right, `${name}: ${cell.text} on screen`).toBeLessThanOrEqual(PHONE.width);
      expect(cell.overflows, `${name}: ${cell.text} not clipped`).toBe(false);
      for (const other of cells.slice(i + 1)) {
        expect(overlap(cell, other), `${name}: ${cell.text} and ${other.text} apart`).toBe(false);
      }
    }
  }
  return layout;
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${server.url}/signin`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: /e-mail me a sign-in link/i }).click();
  await page.waitForURL(`${server.url}/signin/sent`);
  const mail = await sink.waitForMail(email);
  const link = /https?:\/\/\S+\/signin\/confirm\?token=[\w-]+/.exec(mail.text ?? '')?.[0];
  await page.goto(link ?? '');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}/account`);
}

describe.skipIf(SKIP_BROWSER)('account pages on a 360 px phone', () => {
  it('header and key table fit, on every account page', async () => {
    const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));

    await page.goto(`${server.url}/`);
    await checkPhoneLayout(page, 'home-signed-out');
    await page.goto(`${server.url}/signin`);
    await checkPhoneLayout(page, 'signin');
    await signIn(page, 'a.rather.long.address.for.a.phone@example.com');
    await checkPhoneLayout(page, 'account-empty');

    // Keys with a short name, a long one and one long word, as customers name them.
    for (const name of [
      'cron',
      'production server in the Frankfurt data centre',
      'staging-eu-west-1-kubernetes-cluster-ingest-worker',
    ]) {
      await page.getByLabel('Key name').fill(name);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.waitForURL(/\/created$/);
      if (name === 'cron') await checkPhoneLayout(page, 'key-created');
      await page.getByRole('link', { name: 'Back to your account' }).click();
    }
    await page.getByRole('link', { name: 'New feed' }).click();
    await checkPhoneLayout(page, 'feed-form');
    await page.getByLabel('Name').fill('Living room television in the attic');
    await page.getByLabel('Every channel of a country').check();
    await page.getByRole('button', { name: 'Save feed' }).click();
    await page.waitForURL(/\/address$/);
    await checkPhoneLayout(page, 'feed-address');
    await page.getByRole('link', { name: 'Back to your account' }).click();

    const account = await checkPhoneLayout(page, 'account');
    expect(account.keyCells).toHaveLength(3);
    expect(account.feedCells).toHaveLength(1);
    // Readable: each key's cells stack in order, its short form whole on one line.
    for (const cells of account.keyCells) {
      for (const [i, cell] of cells.slice(1).entries()) {
        expect(cell.top, cell.text).toBeGreaterThanOrEqual((cells[i]?.bottom ?? 0) - 0.5);
      }
      expect(cells[1]?.text).toMatch(/^onair_\w{4}…\w{4}$/);
    }
    expect(account.keyCodes).toHaveLength(3);
    for (const code of account.keyCodes) expect(code.lines, code.text).toBe(1);

    await page.getByRole('link', { name: 'Revoke key cron' }).click();
    await checkPhoneLayout(page, 'revoke-confirm');
    await page.goto(`${server.url}/account/sessions/end-all`);
    await checkPhoneLayout(page, 'end-all-confirm');
    await page.goto(`${server.url}/account/kyes`);
    await checkPhoneLayout(page, 'not-found');
    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });
});
