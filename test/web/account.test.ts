import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_ACTIVE_KEYS } from '../../src/web/web-routes.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  createKeyOnPage,
  getPage,
  postAndFollow,
  postForm,
  shownSecret,
  signIn,
} from './web-harness.js';

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

const text = (body: string) => body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

describe('the account page', () => {
  it('sends a visitor without a session to sign in', async () => {
    const res = await getPage(t, '/account');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/signin');
  });

  it('shows the address, verification, trial end, access_until and access in plain words', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    const account = await t.temp.store.accounts.findAccountByEmail('ann@example.com');
    await t.temp.store.accounts.updateAccount(
      account?.id ?? '',
      { accessUntil: Date.UTC(2027, 0, 31, 12, 0) },
      t.clock.ms,
    );
    const page = text((await getPage(t, '/account', cookie)).body);
    expect(page).toContain('E-mail ann@example.com');
    expect(page).toContain('Verified 22 Aug 2026, 10:30 UTC');
    expect(page).toContain('Trial ends 29 Aug 2026, 10:30 UTC');
    expect(page).toContain('Paid access until 31 Jan 2027, 12:00 UTC');
    expect(page).toContain('You can call the API until 31 Jan 2027, 12:00 UTC (paid access)');
    expect(page).toContain('Rate limit 3 requests per second');
  });

  it('says when the API refuses the account', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    t.clock.advance(8 * 86_400_000);
    let page = text((await getPage(t, '/account', cookie)).body);
    expect(page).toContain('The API refuses this account');
    expect(page).toContain('Access ended 29 Aug 2026, 10:30 UTC');
    const account = await t.temp.store.accounts.findAccountByEmail('ann@example.com');
    await t.temp.store.accounts.updateAccount(account?.id ?? '', { disabled: true }, t.clock.ms);
    page = text((await getPage(t, '/account', cookie)).body);
    expect(page).toContain('This account is disabled');
  });

  it('creates a key by POST-redirect-GET: shown once, never cached, working on the API at once', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    const account = await t.temp.store.accounts.findAccountByEmail('ann@example.com');
    const keyCount = async () =>
      (await t.temp.store.accounts.listApiKeys(account?.id ?? '')).length;
    const res = await postForm(t, '/account/keys', { name: 'production' }, { cookie });
    // The POST answers with a redirect only: no secret in it, nothing a reload could resend.
    expect(res.statusCode).toBe(303);
    expect(res.body).not.toMatch(/onair_\w{38}/);
    const [record] = await t.temp.store.accounts.listApiKeys(account?.id ?? '');
    expect(res.headers.location).toBe(`/account/keys/${record?.id}/created`);

    const shown = await getPage(t, String(res.headers.location), cookie);
    expect(shown.statusCode).toBe(200);
    expect(shown.headers['cache-control']).toBe('no-store');
    const key = shownSecret(shown.body, 'new-key');
    expect(key).toMatch(/^onair_\w{38}$/);
    expect(key.slice(-4)).toBe(record?.lastFour);
    expect(shown.body).toContain('data-copy-target="new-key"');
    expect((await t.get('/api/v1/countries', key)).statusCode).toBe(200);

    // A reload (or back, or another tab) shows the account, never the key, and makes nothing.
    for (let i = 0; i < 2; i++) {
      const again = await getPage(t, String(res.headers.location), cookie);
      expect(again.statusCode).toBe(303);
      expect(again.headers.location).toBe('/account?notice=key-shown');
      expect(again.body).not.toContain(key);
    }
    const account2 = await getPage(t, '/account?notice=key-shown', cookie);
    expect(account2.headers['cache-control']).toBe('no-store');
    expect(account2.body).not.toContain(key);
    expect(text(account2.body)).toContain('A new key is shown only once');
    expect(account2.body).toContain(`${key.slice(0, 10)}…${key.slice(-4)}`);
    expect(text(account2.body)).toContain('production');
    expect(await keyCount()).toBe(1);
  });

  it('shows each of two keys made at once in two tabs on its own page, and to no one else', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    const first = await postForm(t, '/account/keys', { name: 'tab one' }, { cookie });
    const second = await postForm(t, '/account/keys', { name: 'tab two' }, { cookie });
    // Another session of the same account, and another account, find nothing held there.
    const otherSession = await signIn(t, 'ann@example.com');
    const other = await getPage(t, String(first.headers.location), otherSession);
    expect(other.statusCode).toBe(303);
    expect(other.headers.location).toBe('/account?notice=key-shown');
    const bob = await signIn(t, 'bob@example.com');
    expect((await getPage(t, String(second.headers.location), bob)).statusCode).toBe(404);

    const one = await getPage(t, String(first.headers.location), cookie);
    const two = await getPage(t, String(second.headers.location), cookie);
    expect(one.body).toContain('Your new key “tab one”');
    expect(two.body).toContain('Your new key “tab two”');
    expect(shownSecret(one.body, 'new-key')).not.toBe(shownSecret(two.body, 'new-key'));
    // Shown once: the first tab's page, opened again, shows the account.
    expect((await getPage(t, String(first.headers.location), cookie)).statusCode).toBe(303);
  });

  it('never shows a key not yet shown to the next session, after sign-out', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    const res = await postForm(t, '/account/keys', { name: 'unseen' }, { cookie });
    await postForm(t, '/signout', {}, { cookie });
    const again = await signIn(t, 'ann@example.com');
    const shown = await getPage(t, String(res.headers.location), again);
    expect(shown.statusCode).toBe(303);
    expect(shown.body).not.toMatch(/onair_\w{38}/);
  });

  it('asks before revoking a key, naming it and its last four characters; then revokes it at once', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    const key = await createKeyOnPage(t, cookie, 'laptop');
    expect((await t.get('/api/v1/countries', key)).statusCode).toBe(200);
    const [record] = await t.temp.store.accounts.listApiKeys(
      (await t.temp.store.accounts.findAccountByEmail('ann@example.com'))?.id ?? '',
    );
    // The account page links to the confirm step; opening it changes nothing.
    const account = await getPage(t, '/account', cookie);
    expect(account.body).toContain(`href="/account/keys/${record?.id}/revoke"`);
    expect(account.body).not.toMatch(/<form[^>]+action="\/account\/keys\/[^"]+\/revoke"/);
    const confirm = await getPage(t, `/account/keys/${record?.id}/revoke`, cookie);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain(
      `Revoke the key “laptop” (ending <code>${key.slice(-4)}</code>)`,
    );
    expect(confirm.body).toMatch(
      new RegExp(`<form method="post" action="/account/keys/${record?.id}/revoke"`),
    );
    expect(confirm.body).toContain('href="/account"');
    expect((await t.get('/api/v1/countries', key)).statusCode).toBe(200);

    const revoked = await postForm(t, `/account/keys/${record?.id}/revoke`, {}, { cookie });
    expect(revoked.statusCode).toBe(303);
    expect(revoked.headers.location).toBe(`/account?notice=key-revoked&key=${record?.id}`);
    expect((await t.get('/api/v1/countries', key)).statusCode).toBe(401);
    const page = await getPage(t, String(revoked.headers.location), cookie);
    expect(text(page.body)).toContain(
      `The key “laptop” (ending ${key.slice(-4)}) is revoked. Requests made with it are refused`,
    );
    expect(page.body).not.toContain(`href="/account/keys/${record?.id}/revoke"`);
    // Sent again (a reload of the confirm step's answer): the same answer, nothing else.
    const twice = await postForm(t, `/account/keys/${record?.id}/revoke`, {}, { cookie });
    expect(twice.headers.location).toBe(revoked.headers.location);
    // The confirm step of a revoked key says it is revoked.
    const late = await getPage(t, `/account/keys/${record?.id}/revoke`, cookie);
    expect(late.headers.location).toBe(revoked.headers.location);
    // A made-up or foreign id in the notice names no key.
    const madeUp = await getPage(t, '/account?notice=key-revoked&key=nope', cookie);
    expect(text(madeUp.body)).toContain('The key is revoked.');
  });

  it('caps the keys of an account and refuses a nameless key', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    for (let i = 0; i < MAX_ACTIVE_KEYS; i++) await createKeyOnPage(t, cookie, `key ${i}`);
    const refused = await postForm(t, '/account/keys', { name: 'one too many' }, { cookie });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain(`An account can hold ${MAX_ACTIVE_KEYS} active keys`);
    const nameless = await postForm(t, '/account/keys', { name: '   ' }, { cookie });
    expect(nameless.statusCode).toBe(400);
  });

  it('shows last use (written at most once a minute) and the last 24 hours of usage', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    const key = await createKeyOnPage(t, cookie, 'cron');
    const firstUse = t.clock.ms;
    for (let i = 0; i < 5; i++) await t.get('/api/v1/countries', key); // 3 pass, 2 get 429
    t.clock.advance(30_000);
    await t.get('/api/v1/countries', key);
    await t.services.usage.flush();
    let keys = await t.temp.store.accounts.listApiKeys(
      (await t.temp.store.accounts.findAccountByEmail('ann@example.com'))?.id ?? '',
    );
    expect(keys[0]?.lastUsedAt).toBe(firstUse);
    t.clock.advance(31_000);
    await t.get('/api/v1/countries', key);
    await t.services.usage.flush();
    keys = await t.temp.store.accounts.listApiKeys(keys[0]?.accountId ?? '');
    expect(keys[0]?.lastUsedAt).toBe(firstUse + 61_000);
    const page = text((await getPage(t, '/account', cookie)).body);
    expect(page).toContain('Last 24 hours 7 requests, 2 refused by the rate limit');
  });

  it('shows a key name with markup as text', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    const { shown: created } = await postAndFollow(
      t,
      '/account/keys',
      { name: '<script>alert(1)</script>' },
      cookie,
    );
    const [record] = await t.temp.store.accounts.listApiKeys(
      (await t.temp.store.accounts.findAccountByEmail('ann@example.com'))?.id ?? '',
    );
    for (const page of [
      created,
      await getPage(t, '/account', cookie),
      await getPage(t, `/account/keys/${record?.id}/revoke`, cookie),
    ]) {
      expect(page.body).not.toContain('<script>alert(1)</script>');
      expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });

  it('serves its stylesheet and script from this site, and a home page', async () => {
    const css = await getPage(t, '/assets/onair.css');
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/text\/css/);
    expect((await getPage(t, '/assets/account.js')).statusCode).toBe(200);
    expect((await getPage(t, '/assets/../package.json')).statusCode).toBe(404);
    const home = await getPage(t, '/');
    expect(home.statusCode).toBe(200);
    expect(home.body).toContain('href="/signin"');
  });
});
