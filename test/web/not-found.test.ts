import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteAddress } from '../../src/http/site-address.js';
import { createErrorPages } from '../../src/web/error-pages.js';
import { TEST_ENGINE } from '../helpers/engines.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { getPage, postForm, signIn } from './web-harness.js';

/** Unknown paths: the site's 404 page outside the API and the feeds, the JSON error inside. */

let t: TestApp;
let https: TestApp;
let ann: string;

beforeAll(async () => {
  t = await createTestApp();
  https = await createTestApp({ PUBLIC_URL: 'https://onair.example' });
  ann = await signIn(t, 'ann@example.com');
});
afterAll(async () => {
  await t?.close();
  await https?.close();
});

/** Headers that are the same on every answer whatever it is. */
const PER_ANSWER = new Set(['content-type', 'content-length', 'date', 'connection', 'set-cookie']);
const securityHeadersOf = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !PER_ANSWER.has(name)));

describe(`unknown paths (${TEST_ENGINE})`, () => {
  it('outside /api/ are the HTML 404 page in the site look, with a way home', async () => {
    // (A form's own address, such as /account/keys, leads to its form: account-walkthrough.)
    for (const url of [
      '/account/kyes',
      '/account/keys/new',
      '/accounts',
      '/nowhere',
      '/signin/nope',
      '/signout/now',
      '/assets/nope.css',
      '/docs/assets/nope.js',
      '/api-docs',
      '/feedsx',
    ]) {
      const res = await getPage(t, url);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
      // Never kept by a cache (the developer pages' assets say no-cache, as their pages do).
      expect(res.headers['cache-control'], url).toMatch(/^no-(store|cache)$/);
      expect(res.body, url).toContain('<h1>Page not found</h1>');
      expect(res.body, url).toContain('<link rel="stylesheet" href="/assets/onair.css" />');
      expect(res.body, url).toContain('<a class="button" href="/">Go to the start</a>');
      expect(res.body, url).toContain('<a href="/signin">Sign in</a>');
      expect(res.body, url).not.toContain('NOT_FOUND');
    }
    // Other methods too (a form's address typed into the bar is a GET; a stray POST is not JSON).
    const posted = await postForm(t, '/account/nowhere', {}, { cookie: ann });
    expect(posted.statusCode).toBe(404);
    expect(posted.body).toContain('Page not found');
  });

  it('knows who is signed in: the header and a link to the account', async () => {
    const res = await getPage(t, '/account/kyes', ann);
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('<a href="/account">Account</a>');
    expect(res.body).toContain('<form method="post" action="/signout"');
    expect(res.body).toContain('href="/account">Your account</a>');
    // A made-up session is no session.
    const madeUp = await getPage(t, '/account/kyes', `onair_session=${'A'.repeat(43)}`);
    expect(madeUp.body).toContain('<a href="/signin">Sign in</a>');
  });

  it('never echoes the path (it may hold a secret pasted by mistake)', async () => {
    const res = await getPage(t, '/onair_0123456789abcdefghijklmnopqrstuvwxyzAB?x=<script>');
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('0123456789abcdef');
    expect(res.body).not.toContain('<script>');
  });

  it('send the same security headers as every other page, on http and https', async () => {
    for (const app of [t, https]) {
      const page = await getPage(app, '/signin');
      const missing = await getPage(app, '/account/kyes');
      expect(securityHeadersOf(missing.headers)).toEqual(securityHeadersOf(page.headers));
      expect(String(missing.headers['content-security-policy'])).toContain("style-src 'self'");
    }
    expect((await getPage(https, '/nowhere')).headers['strict-transport-security']).toMatch(
      /^max-age=31536000/,
    );
  });

  it('under /api/, /playground/api/ and /feeds/ keep the JSON error, byte for byte', async () => {
    const { key } = await t.customer();
    const cases: [string, string | undefined][] = [
      ['/api', undefined],
      ['/api/', undefined],
      ['/api/nowhere', undefined],
      ['/api/v2/countries', undefined],
      ['/api/v1/nope', key],
      ['/playground/api/nope', undefined],
      ['/feeds', undefined],
      ['/feeds/x', undefined],
      ['/feeds/x/guide.json', undefined],
    ];
    for (const [url, withKey] of cases) {
      const res = await t.get(url, withKey);
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).toBe('{"error":"Not found","code":"NOT_FOUND"}');
      expect(res.headers['content-type'], url).toBe('application/json; charset=utf-8');
      expect(res.headers['content-security-policy'], url).toBe(
        "default-src 'none'; frame-ancestors 'none'",
      );
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.headers['referrer-policy'], url).toBe('no-referrer');
      expect(res.headers['cache-control'], url).toBeUndefined();
    }
    // Without a key, an unknown /api/v1 path is still refused before it is looked up.
    expect((await t.get('/api/v1/nope')).statusCode).toBe(401);
  });
});

describe(`unreadable addresses (${TEST_ENGINE})`, () => {
  it('outside /api/ are an HTML 400 page with a way home; inside, the JSON error as before', async () => {
    for (const url of ['/account/%zz', '/%E0%A4%A', '/account/webhooks/%zz', '/docs/%ff']) {
      const res = await getPage(t, url, ann);
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control'], url).toBe('no-store');
      expect(res.body, url).toContain('<h1>Address not understood</h1>');
      expect(res.body, url).toContain('<a class="button" href="/">Go to the start</a>');
      expect(res.body, url).toContain('href="/account">Your account</a>');
      // The same security headers as the 404 page.
      expect(securityHeadersOf(res.headers), url).toEqual(
        securityHeadersOf((await getPage(t, '/nowhere')).headers),
      );
    }
    for (const url of ['/api/v1/channels/%zz/programmes', '/feeds/%zz/guide.xml']) {
      const res = await t.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(400);
      expect(JSON.parse(res.body), url).toEqual({
        error: 'Malformed request: the URL is not validly percent-encoded',
        code: 'BAD_REQUEST',
      });
    }
    // Each logged once, as every answer is.
    const lines = t
      .logs()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { req?: { url: string }; res?: { statusCode: number } });
    for (const url of ['/account/%zz', '/api/v1/channels/%zz/programmes']) {
      const logged = lines.filter((line) => line.req?.url === url);
      expect(
        logged.map((line) => line.res?.statusCode),
        url,
      ).toEqual([400]);
    }
  });
});

describe('the 404 page without its database', () => {
  it('still answers, as signed out, when the session cannot be read', async () => {
    const app = Fastify();
    app.setNotFoundHandler(
      createErrorPages({
        signIn: {
          findSignedIn: () => Promise.reject(new Error('the database is down')),
        },
        site: createSiteAddress('http://127.0.0.1:8080'),
      }).notFound,
    );
    try {
      const res = await app.inject({
        method: 'GET',
        url: '/account/keys',
        headers: { cookie: `onair_session=${'A'.repeat(43)}` },
      });
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('Page not found');
      expect(res.body).toContain('<a href="/signin">Sign in</a>');
    } finally {
      await app.close();
    }
  });
});
