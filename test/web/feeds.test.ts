import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { MAX_FEEDS_PER_ACCOUNT } from '../../src/domain/feed.js';
import { fixturePath } from '../ingest/ingest-helpers.js';
import { TEST_ENGINE } from '../helpers/engines.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { getPage, sameSite, shownSecret, signIn } from './web-harness.js';

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
const shownUrl = (body: string) => shownSecret(body, 'feed-url');
/** Follows a POST's 303 to the page that shows the address once. */
const follow = async (posted: { statusCode: number; headers: Record<string, unknown> }) => {
  expect(posted.statusCode).toBe(303);
  return getPage(t, String(posted.headers.location), ann);
};
const feedsOf = async (email: string) => {
  const account = await t.temp.store.accounts.findAccountByEmail(email);
  return t.temp.store.feeds.listFeeds(account?.id ?? '');
};

describe(`feed pages (${TEST_ENGINE})`, () => {
  it('creates a feed shown once, edits its lineup, gives a new URL and deletes it', async () => {
    const posted = await post(
      '/account/feeds',
      feedForm('All of Ireland', [
        ['lineup', 'country'],
        ['country', 'IE'],
      ]),
      ann,
    );
    const [created] = await feedsOf('ann@example.com');
    expect(posted.headers.location).toBe(`/account/feeds/${created?.id}/address`);
    expect(posted.body).not.toContain('/feeds/');
    const made = await follow(posted);
    expect(made.statusCode).toBe(200);
    expect(made.headers['cache-control']).toBe('no-store');
    const url = shownUrl(made.body);
    expect(url).toMatch(new RegExp(`^${t.config.publicUrl}/feeds/[\\w-]{43}/guide\\.xml$`));
    const path = new URL(url).pathname;
    expect((await t.get(path)).body).toContain('<channel id="rte1.ie">');
    const token = path.split('/')[2] ?? '';
    expect(token).toHaveLength(43);

    // A reload shows the account, never the address, and makes no second feed.
    const reload = await getPage(t, String(posted.headers.location), ann);
    expect(reload.statusCode).toBe(303);
    expect(reload.headers.location).toBe('/account?notice=feed-address-shown#feeds');
    expect(reload.body).not.toContain(url);
    expect(await feedsOf('ann@example.com')).toHaveLength(1);

    const account = await getPage(t, '/account?notice=feed-address-shown', ann);
    expect(account.body).toContain('The address of a feed is shown only once');
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

    // A new URL asks first, naming the feed; asking changes nothing.
    const askNew = await getPage(t, `/account/feeds/${feed?.id}/token`, ann);
    expect(askNew.statusCode).toBe(200);
    expect(askNew.body).toContain('Replace the address of the feed “Mine”?');
    expect(askNew.body).toContain(`<form method="post" action="/account/feeds/${feed?.id}/token"`);
    expect((await t.get(path)).statusCode).toBe(200);
    const renewedPost = await post(`/account/feeds/${feed?.id}/token`, [], ann);
    expect(renewedPost.headers.location).toBe(`/account/feeds/${feed?.id}/address`);
    const renewed = await follow(renewedPost);
    expect(renewed.statusCode).toBe(200);
    const newPath = new URL(shownUrl(renewed.body)).pathname;
    expect(newPath).not.toBe(path);
    expect((await t.get(path)).statusCode).toBe(404);
    expect((await t.get(newPath)).statusCode).toBe(200);
    expect((await getPage(t, String(renewedPost.headers.location), ann)).statusCode).toBe(303);

    const askDelete = await getPage(t, `/account/feeds/${feed?.id}/delete`, ann);
    expect(askDelete.statusCode).toBe(200);
    expect(askDelete.body).toContain('Delete the feed “Mine”?');
    expect((await t.get(newPath)).statusCode).toBe(200);
    const deleted = await post(`/account/feeds/${feed?.id}/delete`, [], ann);
    expect(deleted.headers.location).toBe('/account?notice=feed-deleted#feeds');
    expect((await t.get(newPath)).statusCode).toBe(404);
    expect((await getPage(t, `/account/feeds/${feed?.id}/delete`, ann)).statusCode).toBe(404);
    // Neither address reached the log, though both were shown and fetched.
    expect(t.logs()).toMatch(/"url":"\/account\/feeds\/[^"]+\/address"/);
    for (const secret of [token, newPath.split('/')[2] ?? '']) {
      expect(t.logs()).not.toContain(secret);
    }
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
    expect(made.statusCode).toBe(303);
    const [bobs] = await feedsOf('bob@example.com');
    // Bob's address waits for Bob's page: Ann finds no feed there.
    expect((await getPage(t, String(made.headers.location), ann)).statusCode).toBe(404);
    expect((await getPage(t, `/account/feeds/${bobs?.id}/delete`, ann)).statusCode).toBe(404);
    expect((await getPage(t, `/account/feeds/${bobs?.id}/token`, ann)).statusCode).toBe(404);
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
