import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { MAX_FEEDS_PER_ACCOUNT } from '../../src/domain/feed.js';
import { fixturePath } from '../ingest/ingest-helpers.js';
import { TEST_ENGINE } from '../helpers/engines.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { getPage, sameSite, signIn } from './web-harness.js';

/** The feed forms of the account page, on TEST_ENGINE (the suite runs on both). */

let t: TestApp;
let ann: string;
const TG4 = channelIdFor('tg4.ie');
const RTE = channelIdFor('rte1.ie');

beforeAll(async () => {
  t = await createTestApp();
  await ingestXmltv(
    t.temp.store.ingest,
    { source: fixturePath('basic.xml') },
    { country: 'IE', assumeOffsetMinutes: 0, nowMs: t.clock.ms },
  );
  ann = await signIn(t, 'ann@example.com');
});
afterAll(async () => {
  await t?.close();
});

/** Posts form fields in order, repeats allowed (checkboxes). */
function post(url: string, fields: [string, string][], cookie: string, headers = sameSite(t)) {
  return t.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

const feedForm = (name: string, lineup: [string, string][]): [string, string][] => [
  ['name', name],
  ['days_back', '1'],
  ['days_ahead', '7'],
  ...lineup,
];
const shownUrl = (body: string) => /<code id="feed-url">([^<]+)<\/code>/.exec(body)?.[1] ?? '';
const feedsOf = async (email: string) => {
  const account = await t.temp.store.accounts.findAccountByEmail(email);
  return t.temp.store.feeds.listFeeds(account?.id ?? '');
};

describe(`feed pages (${TEST_ENGINE})`, () => {
  it('creates a feed shown once, edits its lineup, gives a new URL and deletes it', async () => {
    const made = await post(
      '/account/feeds',
      feedForm('All of Ireland', [
        ['lineup', 'country'],
        ['country', 'IE'],
      ]),
      ann,
    );
    expect(made.statusCode).toBe(201);
    expect(made.headers['cache-control']).toBe('no-store');
    const url = shownUrl(made.body);
    expect(url).toMatch(new RegExp(`^${t.config.publicUrl}/feeds/[\\w-]{43}/guide\\.xml$`));
    const path = new URL(url).pathname;
    expect((await t.get(path)).body).toContain('<channel id="rte1.ie">');

    const account = await getPage(t, '/account', ann);
    expect(account.body).toContain('All of Ireland');
    expect(account.body).toContain('every channel of IE');
    expect(account.body).not.toContain(url);

    const [feed] = await feedsOf('ann@example.com');
    const edit = await getPage(t, `/account/feeds/${feed?.id}/edit`, ann);
    expect(edit.statusCode).toBe(200);
    expect(edit.body).toContain('value="All of Ireland"');
    // A search keeps the form as typed and lists what it finds.
    const search = await getPage(
      t,
      `/account/feeds/${feed?.id}/edit?name=Mine&lineup=channels&channel=${TG4}&q=rte`,
      ann,
    );
    expect(search.body).toContain('value="Mine"');
    expect(search.body).toMatch(new RegExp(`value="${TG4}"\\s+checked`));
    expect(search.body).toMatch(new RegExp(`value="${RTE}"\\s+/>`));

    const saved = await post(
      `/account/feeds/${feed?.id}`,
      feedForm('Mine', [
        ['lineup', 'channels'],
        ['channel', TG4],
        ['channel', RTE],
      ]),
      ann,
    );
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe('/account?notice=feed-saved#feeds');
    const channels = [...(await t.get(path)).body.matchAll(/<channel id="([^"]+)"/g)].map(
      (m) => m[1],
    );
    expect(channels).toEqual(['tg4.ie', 'rte1.ie']);

    const renewed = await post(`/account/feeds/${feed?.id}/token`, [], ann);
    expect(renewed.statusCode).toBe(200);
    const newPath = new URL(shownUrl(renewed.body)).pathname;
    expect((await t.get(path)).statusCode).toBe(404);
    expect((await t.get(newPath)).statusCode).toBe(200);

    const deleted = await post(`/account/feeds/${feed?.id}/delete`, [], ann);
    expect(deleted.headers.location).toBe('/account?notice=feed-deleted#feeds');
    expect((await t.get(newPath)).statusCode).toBe(404);
  });

  it('refuses bad settings with the form again, other sites, and other accounts’ feeds', async () => {
    const noName = await post(
      '/account/feeds',
      feedForm('', [
        ['lineup', 'country'],
        ['country', 'IE'],
      ]),
      ann,
    );
    expect(noName.statusCode).toBe(400);
    expect(noName.body).toContain('Give the feed a name.');
    const days = await post(
      '/account/feeds',
      [
        ['name', 'x'],
        ['days_back', '1'],
        ['days_ahead', '15'],
        ['lineup', 'country'],
        ['country', 'IE'],
      ],
      ann,
    );
    expect(days.statusCode).toBe(400);
    expect(days.body).toContain('Days ahead must be a whole number from 1 to 14.');
    // A full lineup of ids (about 45 kB) reaches the rules: unknown channels, not a body limit.
    const many = Array.from({ length: 1000 }, (): [string, string] => ['channel', randomUUID()]);
    const big = await post(
      '/account/feeds',
      feedForm('big', [['lineup', 'channels'], ...many]),
      ann,
    );
    expect(big.statusCode).toBe(400);
    expect(big.body).toContain('No channel with id');
    const crossSite = await post(
      '/account/feeds',
      feedForm('x', [
        ['lineup', 'country'],
        ['country', 'IE'],
      ]),
      ann,
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.statusCode).toBe(403);

    const bob = await signIn(t, 'bob@example.com');
    const made = await post(
      '/account/feeds',
      feedForm('Bob', [
        ['lineup', 'channels'],
        ['channel', TG4],
      ]),
      bob,
    );
    expect(made.statusCode).toBe(201);
    const [bobs] = await feedsOf('bob@example.com');
    expect((await getPage(t, `/account/feeds/${bobs?.id}/edit`, ann)).statusCode).toBe(404);
    expect((await post(`/account/feeds/${bobs?.id}/delete`, [], ann)).statusCode).toBe(404);
    expect((await post(`/account/feeds/${bobs?.id}/token`, [], ann)).statusCode).toBe(404);
    expect(await feedsOf('bob@example.com')).toHaveLength(1);

    for (let i = 1; i < MAX_FEEDS_PER_ACCOUNT; i++) {
      await post(
        '/account/feeds',
        feedForm(`Bob ${i}`, [
          ['lineup', 'channels'],
          ['channel', TG4],
        ]),
        bob,
      );
    }
    expect((await getPage(t, '/account', bob)).body).toContain(
      `You have ${MAX_FEEDS_PER_ACCOUNT} feeds, the most an account can hold.`,
    );
    const over = await post(
      '/account/feeds',
      feedForm('one more', [
        ['lineup', 'channels'],
        ['channel', TG4],
      ]),
      bob,
    );
    expect(over.statusCode).toBe(409);
    expect(over.body).toContain(`An account holds at most ${MAX_FEEDS_PER_ACCOUNT} feeds.`);
  });
});
