import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { postForm, sameSite, signIn } from './web-harness.js';
import { encodeHostile } from '../helpers/url-encoding.js';

/**
 * The account pages under hostile input: form fields, query values, path values and cookies
 * with NUL, control characters, broken escapes, unicode and very long values. Every answer is
 * one of the statuses the page can give (never 5xx), and nothing is stored that was refused.
 */

const RUNS = 100;
let t: TestApp;
let cookie: string;

beforeAll(async () => {
  t = await createTestApp({ AUTH_FAILURE_LIMIT: '1000000' });
  cookie = await signIn(t, 'ann@example.com');
});

afterAll(async () => {
  await t.close();
});

const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc
    .array(
      fc.constantFrom(
        '\u0000',
        '\t',
        '\u0007',
        '\r\n',
        '\u007f',
        '%',
        '%00',
        '%E0%A4%A',
        '<script>',
        '"',
        "'",
        '&',
        '=',
        ';',
        '\ud800',
        '😀',
        'é',
        '@',
        'ann@example.com',
        '.',
        ' ',
      ),
      { maxLength: 8 },
    )
    .map((parts) => parts.join('')),
  fc
    .tuple(fc.constantFrom('a', '\u0000', 'é'), fc.integer({ min: 300, max: 9_000 }))
    .map(([c, n]) => c.repeat(n)),
);

const encode = encodeHostile;

/**
 * Hostile text for one path segment. "." and ".." are left out: every URL client (browsers,
 * curl, `inject`) resolves them as dot segments before sending, in any spelling ("%2e%2e" too),
 * so no request carries them as a segment; `/feeds/../guide.xml` is asked as `/guide.xml`.
 */
const hostileSegment = hostileText.filter((text) => text !== '.' && text !== '..');

/** Form bodies as a browser encodes them, and as one that does not. */
function formBody(name: string, value: string): fc.Arbitrary<string> {
  return fc.constantFrom(
    `${name}=${encode(value)}`,
    `${name}=${value}`,
    `${name}=${encode(value)}&${name}=x`,
  );
}

function expectPage(
  res: { statusCode: number; headers: Record<string, unknown> },
  allowed: number[],
  what: string,
) {
  expect(allowed, `${what.slice(0, 200)} → ${res.statusCode}`).toContain(res.statusCode);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
}

async function activeKeyNames(): Promise<string[]> {
  const account = await t.temp.store.accounts.findAccountByEmail('ann@example.com');
  const keys = await t.temp.store.accounts.listApiKeys(account?.id ?? '');
  return keys.filter((k) => k.revokedAt === null).map((k) => k.name);
}

describe('account pages under hostile input', () => {
  it('POST /signin with any e-mail field: the form again (400), to the link page (303) or 429', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileText.chain((v) => formBody('email', v)),
        async (body) => {
          const res = await t.inject({
            method: 'POST',
            url: '/signin',
            headers: { 'content-type': 'application/x-www-form-urlencoded', ...sameSite(t) },
            payload: body,
          });
          expectPage(res, [303, 400, 413, 429], body);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('GET and POST /signin/confirm with any token: the link is unusable (400)', async () => {
    await fc.assert(
      fc.asyncProperty(hostileText, async (token) => {
        const opened = await t.inject({
          method: 'GET',
          url: `/signin/confirm?token=${encode(token)}`,
        });
        expectPage(opened, [400], token);
        const confirmed = await postForm(t, '/signin/confirm', { token });
        expectPage(confirmed, [400, 413], token);
      }),
      { numRuns: RUNS },
    );
  });

  it('POST /account/keys with any name: created (names cleaned of control characters) or 400', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileText.chain((v) => formBody('name', v)),
        async (body) => {
          const res = await t.inject({
            method: 'POST',
            url: '/account/keys',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              cookie,
              ...sameSite(t),
            },
            payload: body,
          });
          expectPage(res, [303, 400, 413], body);
          for (const name of await activeKeyNames()) {
            expect(
              [...name].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f'),
              name,
            ).toBe(false);
            expect(name.length).toBeGreaterThan(0);
            expect(name.length).toBeLessThanOrEqual(100);
          }
          // Keep under the cap of active keys: revoke what was made.
          const account = await t.temp.store.accounts.findAccountByEmail('ann@example.com');
          for (const key of await t.temp.store.accounts.listApiKeys(account?.id ?? '')) {
            if (key.revokedAt === null)
              await t.temp.store.accounts.revokeApiKey(key.id, t.clock.ms);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a key or feed page with any id (revoke, created, address, new URL, delete): 404 (or 400 for a URL that does not decode)', async () => {
    await fc.assert(
      fc.asyncProperty(hostileSegment, async (id) => {
        const res = await postForm(t, `/account/keys/${encode(id)}/revoke`, {}, { cookie });
        expectPage(res, [400, 404], id);
        for (const path of [
          `/account/keys/${encode(id)}/revoke`,
          `/account/keys/${encode(id)}/created`,
          `/account/feeds/${encode(id)}/address`,
          `/account/feeds/${encode(id)}/token`,
          `/account/feeds/${encode(id)}/delete`,
        ]) {
          const page = await t.inject({ method: 'GET', url: path, headers: { cookie } });
          expectPage(page, [400, 404], path);
          if (page.statusCode === 404) expect(page.headers['content-type']).toMatch(/^text\/html/);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('any unknown path outside /api/ and /feeds/: the HTML 404 page (400 for a URL that does not decode)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/', '/account/', '/signin/', '/assets/', '/docs/'),
        hostileText,
        fc.boolean(),
        async (prefix, value, signedIn) => {
          const url = `${prefix}x${encode(value)}`;
          const res = await t.inject({
            method: 'GET',
            url,
            headers: signedIn ? { cookie } : {},
          });
          expectPage(res, [400, 404], url);
          if (res.statusCode === 404) {
            expect(res.headers['content-type'], url).toMatch(/^text\/html/);
            expect(res.body).toContain('Page not found');
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('POST /account/feeds and GET its form with any field: the form again, never an error', async () => {
    const field = fc.constantFrom(
      'name',
      'lineup',
      'country',
      'days_ahead',
      'days_back',
      'channel',
      'q',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(field, hostileText), { maxLength: 4 }), async (fields) => {
        const body = fields.map(([name, value]) => `${name}=${encode(value)}`).join('&');
        const res = await t.inject({
          method: 'POST',
          url: '/account/feeds',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            cookie,
            ...sameSite(t),
          },
          payload: body,
        });
        // An empty catalogue: no lineup can be kept, every answer is the form with why.
        expectPage(res, [400, 413], body);
        const form = await t.inject({
          method: 'GET',
          url: `/account/feeds/new?${body}`,
          headers: { cookie },
        });
        expectPage(form, [200, 400], body);
      }),
      { numRuns: RUNS },
    );
    const account = await t.temp.store.accounts.findAccountByEmail('ann@example.com');
    expect(await t.temp.store.feeds.listFeeds(account?.id ?? '')).toEqual([]);
  });

  it('GET /feeds/{token}/guide.xml with any token: 404 (or 400 for a URL that does not decode)', async () => {
    await fc.assert(
      fc.asyncProperty(hostileSegment, async (token) => {
        for (const suffix of ['guide.xml', 'guide.xml.gz']) {
          const res = await t.inject({ method: 'GET', url: `/feeds/${encode(token)}/${suffix}` });
          expectPage(res, [400, 404], token);
          expect(res.headers['content-type']).toMatch(/^application\/json/);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('any session cookie or notice value: the sign-in page or a redirect to it, never an error', async () => {
    await fc.assert(
      fc.asyncProperty(hostileText, hostileText, async (value, notice) => {
        const res = await t.inject({
          method: 'GET',
          url: `/account?notice=${encode(notice)}`,
          headers: { cookie: `onair_session=${encode(value)}; other=${encode(value)}` },
        });
        expectPage(res, [303], value);
        const page = await t.inject({ method: 'GET', url: `/signin?notice=${encode(notice)}` });
        expectPage(page, [200], notice);
      }),
      { numRuns: RUNS },
    );
  });
});
