import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo-seed.js';
import type { RunningServer } from '../../src/server.js';
import { BROWSER_SETUP_TIMEOUT_MS, SKIP_BROWSER } from '../helpers/chromium.js';
import { startBrowserServer, type BrowserServer } from '../helpers/browser-server.js';

// A guide app's page on another origin calling the API from Chromium, as a customer's web app
// does: what the browser's own cache makes of the API's answers.

let app: Server;
let appOrigin: string;
let running: BrowserServer;
let server: RunningServer;
let browser: Browser;
let key: string;

beforeAll(async () => {
  if (SKIP_BROWSER) return;
  // The app's origin: an empty page, from which the test's scripts call the API.
  app = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>Guide app</title>');
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  running = await startBrowserServer(
    { CORS_ORIGINS: appOrigin },
    {
      beforeListen: async (store) => {
        key = (await seedDemo(store, Date.now()))?.key ?? '';
      },
    },
  );
  ({ server, browser } = running);
}, BROWSER_SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (SKIP_BROWSER) return;
  await running?.close();
  await new Promise((resolve) => app?.close(resolve));
});

interface Seen {
  status: number;
  etag: string | null;
  code: string | null;
}

describe.skipIf(SKIP_BROWSER)('a web app on another origin, in Chromium', () => {
  it('sees a revoked key refused on its next call, and can read the ETag', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(appOrigin);
    const call = (): Promise<Seen> =>
      page.evaluate(
        async ({ url, apiKey }) => {
          const response = await fetch(url, { headers: { 'X-API-Key': apiKey } });
          const body = (await response.json()) as { code?: string };
          return {
            status: response.status,
            etag: response.headers.get('ETag'),
            code: body.code ?? null,
          };
        },
        { url: `${server.url}/api/v1/countries`, apiKey: key },
      );

    const first = await call();
    expect(first).toMatchObject({ status: 200, code: null });
    expect(first.etag).toMatch(/^W\/"/);
    // Asked again at once: the browser revalidates with the tag, the server answers 304 and the
    // page gets its kept answer as a 200 (a fetch never sees the 304 itself).
    expect(await call()).toEqual(first);

    const [record] = await server.store.accounts.listApiKeys(
      (await server.store.accounts.findAccountByEmail('demo@onair.local'))?.id ?? '',
    );
    await server.store.accounts.revokeApiKey(record?.id ?? '', Date.now());
    // With `max-age=60` the browser answered this from its cache, a 200 for a revoked key.
    expect(await call()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});
