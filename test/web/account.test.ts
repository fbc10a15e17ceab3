import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_ACTIVE_KEYS } from '../../src/web/web-routes.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createKeyOnPage, getPage, postForm, signIn } from './web-harness.js';

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

  it('creates a key shown once, never cached, that works on the API at once', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    const res = await postForm(t, '/account/keys', { name: 'production' }, { cookie });
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const key = /<code id="new-key">(onair_\w+)<\/code>/.exec(res.body)?.[1] ?? '';
    expect(res.body).toContain('data-copy-target="new-key"');
    expect((await t.get('/api/v1/countries', key)).statusCode).toBe(200);

    const account = await getPage(t, '/account', cookie);
    expect(account.headers['cache-control']).toBe('no-store');
    expect(account.body).not.toContain(key);
    expect(account.body).toContain(`${key.slice(0, 10)}…${key.slice(-4)}`);
    expect(text(account.body)).toContain('production');
  });

  it('revokes a key at once', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    const key = await createKeyOnPage(t, cookie, 'laptop');
    expect((await t.get('/api/v1/countries', key)).statusCode).toBe(200);
    const [record] = await t.temp.store.accounts.listApiKeys(
      (await t.temp.store.accounts.findAccountByEmail('ann@example.com'))?.id ?? '',
    );
    const revoked = await postForm(t, `/account/keys/${record?.id}/revoke`, {}, { cookie });
    expect(revoked.statusCode).toBe(303);
    expect(revoked.headers.location).toBe('/account?notice=key-revoked');
    expect((await t.get('/api/v1/countries', key)).statusCode).toBe(401);
    const page = await getPage(t, '/account?notice=key-revoked', cookie);
    expect(page.body).toContain('The key is revoked');
    expect(page.body).not.toContain('laptop');
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
    const created = await postForm(
      t,
      '/account/keys',
      { name: '<script>alert(1)</script>' },
      { cookie },
    );
    expect(created.body).not.toContain('<script>alert(1)</script>');
    expect(created.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const page = await getPage(t, '/account', cookie);
    expect(page.body).not.toContain('<script>alert(1)</script>');
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
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
