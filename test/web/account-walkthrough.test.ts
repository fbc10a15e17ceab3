import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { fixturePath } from '../ingest/ingest-helpers.js';
import { TEST_ENGINE } from '../helpers/engines.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createKeyOnPage, getPage, postForm, sameSite, signIn } from './web-harness.js';

/**
 * What a walk through the account pages found: plurals, addresses that are not addresses, the
 * GET of a form's address, webhook refusals in words, ways back from a missing item, every
 * refused feed field at once, and refused fields tied to their inputs. On TEST_ENGINE.
 */

let t: TestApp;
let ann: string;
const TG4 = channelIdFor('tg4.ie');

beforeAll(async () => {
  // Strict webhook rules (no WEBHOOK_ALLOW_HTTP): loopback is refused, as in production.
  t = await createTestApp();
  await ingestXmltv(
    t.temp.store.ingest,
    { source: fixturePath('basic.xml') },
    { country: 'IE', assumeOffsetMinutes: 0, nowMs: t.clock.ms },
  );
  // A country of one channel.
  await ingestXmltv(
    t.temp.store.ingest,
    {
      name: 'one.xml',
      data: Buffer.from('<tv><channel id="one.us"><display-name>One</display-name></channel></tv>'),
    },
    { country: 'US', assumeOffsetMinutes: 0, nowMs: t.clock.ms },
  );
  ann = await signIn(t, 'ann@example.com');
});
afterAll(async () => {
  await t?.close();
});

/** Posts form fields in order, repeats allowed (checkboxes). */
function post(url: string, fields: [string, string][], cookie: string) {
  return t.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...sameSite(t) },
    payload: new URLSearchParams(fields).toString(),
  });
}

/** The page's text, tags dropped and spaces collapsed. */
const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** The opening tag of the element with that id. */
const tagOf = (body: string, id: string) =>
  new RegExp(`<[a-z]+[^>]*\\bid="${id}"[^>]*>`).exec(body)?.[0] ?? '';

describe(`account pages after the walkthrough (${TEST_ENGINE})`, () => {
  it('says 1 channel and 1 request, in the singular, and more in the plural', async () => {
    for (const url of ['/account/feeds/new', '/account/webhooks/new']) {
      const form = text((await getPage(t, url, ann)).body);
      expect(form, url).toContain('US (1 channel)');
      expect(form, url).not.toMatch(/\b1 channels\b/);
      expect(form, url).toMatch(/IE \(\d+ channels\)/);
    }
    const bob = await signIn(t, 'bob@example.com');
    const key = await createKeyOnPage(t, bob, 'one call');
    expect((await t.get('/api/v1/countries', key)).statusCode).toBe(200);
    await t.services.usage.flush();
    const account = text((await getPage(t, '/account', bob)).body);
    expect(account).toContain('Last 24 hours 1 request, 0 refused by the rate limit');
    expect(account).toContain('3 requests per second');
    expect(account).not.toMatch(/\b1 requests\b/);
  });

  it('refuses a sign-in address with markup: 400, the value kept as text, no mail', async () => {
    const sent = t.mail.length;
    for (const email of [
      '<script>alert(1)</script>@x.com',
      'ann smith@example.com',
      '"ann"@example.com',
      'a,b@example.com',
    ]) {
      const res = await postForm(t, '/signin', { email });
      expect(res.statusCode, email).toBe(400);
      expect(res.body, email).toContain('Please enter an e-mail address like ann@example.com.');
      expect(tagOf(res.body, 'email'), email).toContain('aria-invalid="true"');
      expect(tagOf(res.body, 'email'), email).toContain('aria-describedby="email-error"');
      expect(res.body, email).not.toContain('<script>alert');
    }
    const res = await postForm(t, '/signin', { email: '<script>alert(1)</script>@x.com' });
    expect(tagOf(res.body, 'email')).toContain(
      'value="&lt;script&gt;alert(1)&lt;/script&gt;@x.com"',
    );
    expect(t.mail.length).toBe(sent);
  });

  it('GET /signout shows the sign-out button; signed out, it goes to sign in', async () => {
    const cookie = await signIn(t, 'leaving@example.com');
    const shown = await getPage(t, '/signout', cookie);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain('<h1>Sign out?</h1>');
    expect(shown.body).toMatch(/<form method="post" action="\/signout" class="actions-row">/);
    // Showing it signed no one out.
    expect((await getPage(t, '/account', cookie)).statusCode).toBe(200);
    const away = await getPage(t, '/signout');
    expect(away.statusCode).toBe(303);
    expect(away.headers.location).toBe('/signin');
  });

  it('a GET of a form-only address goes to the page that holds the form', async () => {
    // A refused key name leaves /account/keys in the address bar.
    const refused = await postForm(t, '/account/keys', { name: ' ' }, { cookie: ann });
    expect(refused.statusCode).toBe(400);
    for (const [url, to] of [
      ['/account/keys', '/account#keys'],
      ['/account/feeds', '/account/feeds/new'],
      ['/account/webhooks', '/account/webhooks/new'],
    ] as const) {
      const res = await getPage(t, url, ann);
      expect(res.statusCode, url).toBe(303);
      expect(res.headers.location, url).toBe(to);
    }
    // An edited feed's POST address leads to its form; someone else's id is still not found.
    const saved = await post(
      '/account/feeds',
      [
        ['name', 'Kitchen'],
        ['days_back', '1'],
        ['days_ahead', '7'],
        ['lineup', 'country'],
        ['country', 'IE'],
      ],
      ann,
    );
    expect(saved.statusCode).toBe(303);
    const feedId = /\/account\/feeds\/([0-9a-f-]{36})\/address/.exec(
      String(saved.headers.location),
    )?.[1];
    const edit = await getPage(t, `/account/feeds/${feedId}`, ann);
    expect(edit.statusCode).toBe(303);
    expect(edit.headers.location).toBe(`/account/feeds/${feedId}/edit`);
    const other = await signIn(t, 'other@example.com');
    expect((await getPage(t, `/account/feeds/${feedId}`, other)).statusCode).toBe(404);
  });

  it('says why a webhook address is refused in words: the host as typed, no resolver code', async () => {
    const refused = async (url: string) => {
      const res = await post(
        '/account/webhooks',
        [
          ['url', url],
          ['filter', 'country'],
          ['country', 'IE'],
        ],
        ann,
      );
      expect(res.statusCode, url).toBe(400);
      return text(res.body);
    };
    const local = await refused('https://localhost/hook');
    expect(local).toMatch(
      /The address localhost \((127\.0\.0\.1|::1)\) is a loopback address \(this machine\): webhooks go to public addresses\./,
    );
    expect(local).not.toContain('Localhost');
    // `.invalid` never resolves (RFC 2606); without a name server the lookup fails otherwise.
    const nowhere = await refused('https://onair-test.invalid/hook');
    expect(nowhere).toMatch(
      /The host onair-test\.invalid could (not be found in DNS|not be looked up in DNS just now)/,
    );
    expect(nowhere).not.toMatch(/E[A-Z_]{4,}|cannot resolve/);
  });

  it('a missing key, feed or webhook leads back to the account, not to the start', async () => {
    for (const [url, title, back] of [
      ['/account/keys/nope/revoke', 'Key not found', '/account#keys'],
      ['/account/feeds/xyz/edit', 'Feed not found', '/account#feeds'],
      [
        '/account/webhooks/00000000-0000-4000-8000-000000000000',
        'Webhook not found',
        '/account#webhooks',
      ],
    ] as const) {
      const res = await getPage(t, url, ann);
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).toContain(`<h1>${title}</h1>`);
      expect(res.body, url).toMatch(new RegExp(`<a href="${back}">Back to your \\w+</a>`));
      expect(res.body, url).not.toContain('Back to the start');
    }
    // A refusal of the pages' error handler: signed in, back to the account; else to the start.
    const crossSite = (cookie?: string) =>
      t.inject({
        method: 'POST',
        url: '/account/keys',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'https://evil.example',
          'sec-fetch-site': 'cross-site',
          ...(cookie === undefined ? {} : { cookie }),
        },
        payload: 'name=x',
      });
    const signedIn = await crossSite(ann);
    expect(signedIn.statusCode).toBe(403);
    expect(signedIn.body).toContain('<a href="/account">Back to your account</a>');
    const anonymous = await crossSite();
    expect(anonymous.statusCode).toBe(403);
    expect(anonymous.body).toContain('<a href="/">Back to the start</a>');
  });

  it('reads forms only: another type of body is refused unread, with a page (400)', async () => {
    for (const [type, payload] of [
      ['application/json', JSON.stringify({ email: 'json@example.com', pad: 'x'.repeat(100_000) })],
      ['text/plain', 'email=text@example.com'],
    ]) {
      const res = await t.inject({
        method: 'POST',
        url: '/signin',
        headers: { 'content-type': type, ...sameSite(t) },
        payload,
      });
      expect(res.statusCode, type).toBe(400);
      expect(res.headers['content-type'], type).toMatch(/^text\/html/);
    }
    for (const email of ['json@example.com', 'text@example.com']) {
      expect(await t.temp.store.accounts.findAccountByEmail(email)).toBeNull();
    }
  });

  it('reports every refused feed field at once, each tied to its input', async () => {
    const res = await post(
      '/account/feeds',
      [
        ['name', '  '],
        ['days_back', '99'],
        ['days_ahead', '-1'],
        ['lineup', 'channels'],
      ],
      ann,
    );
    expect(res.statusCode).toBe(400);
    const fields = [
      ['feed-name', 'Give the feed a name.'],
      ['days-back', 'Days back must be a whole number from 0 to 7.'],
      ['days-ahead', 'Days ahead must be a whole number from 1 to 14.'],
    ] as const;
    for (const [id, message] of fields) {
      expect(tagOf(res.body, id), id).toContain('aria-invalid="true"');
      expect(tagOf(res.body, id), id).toContain(`aria-describedby="${id}-error"`);
      expect(res.body, id).toContain(
        `<p class="error field-error" id="${id}-error">${message}</p>`,
      );
      // The summary at the top links to the field.
      expect(res.body, id).toContain(`<li><a href="#${id}">${message}</a></li>`);
    }
    expect(tagOf(res.body, 'feed-channels')).toContain('aria-describedby="feed-channels-error"');
    expect(res.body).toContain('id="feed-channels-error">Pick at least one channel.</p>');
    expect(text(res.body)).toContain('The feed is not saved: 4 fields need a change.');
    expect(res.body).toContain('<title>Not saved: New guide feed · Onair</title>');
    // What was typed stays typed.
    expect(tagOf(res.body, 'days-back')).toContain('value="99"');
    // One refused field: only that one is marked.
    const one = await post(
      '/account/feeds',
      [
        ['name', 'Den'],
        ['days_back', '1'],
        ['days_ahead', '15'],
        ['lineup', 'channels'],
        ['channel', TG4],
      ],
      ann,
    );
    expect(one.statusCode).toBe(400);
    expect(text(one.body)).toContain('one field needs a change');
    expect(tagOf(one.body, 'days-ahead')).toContain('aria-invalid="true"');
    for (const id of ['feed-name', 'days-back']) {
      expect(tagOf(one.body, id), id).not.toContain('aria-invalid');
    }
  });

  it('ties the refused key name to its input', async () => {
    const res = await postForm(t, '/account/keys', { name: '   ' }, { cookie: ann });
    expect(res.statusCode).toBe(400);
    expect(tagOf(res.body, 'key-name-error')).toBe(
      '<p class="error" role="alert" id="key-name-error">',
    );
    expect(res.body).toContain('Give the key a name, e.g. production.');
    expect(tagOf(res.body, 'key-name')).toContain('aria-invalid="true"');
    expect(tagOf(res.body, 'key-name')).toContain('aria-describedby="key-name-error"');
    // Not marked on an ordinary view of the page.
    const page = await getPage(t, '/account', ann);
    expect(tagOf(page.body, 'key-name')).not.toContain('aria-invalid');
    expect(page.body).not.toContain('key-name-error');
  });
});
