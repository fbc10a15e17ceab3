import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  createKeyOnPage,
  getPage,
  lastLinkToken,
  postForm,
  sessionCookie,
  signIn,
} from './web-harness.js';

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

describe('account pages: security', () => {
  it('refuses a cross-site POST, and one that says nothing of its origin', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    const cases: Record<string, string>[] = [
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: '', 'sec-fetch-site': '' },
    ];
    for (const headers of cases) {
      const res = await t.inject({
        method: 'POST',
        url: '/account/keys',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
        payload: 'name=stolen',
      });
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.body).toContain('sent from another site');
    }
    const bare = await t.inject({
      method: 'POST',
      url: '/signin',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=ann@example.com',
    });
    expect(bare.statusCode).toBe(403);
    const account = await t.temp.store.accounts.findAccountByEmail('ann@example.com');
    expect(await t.temp.store.accounts.listApiKeys(account?.id ?? '')).toEqual([]);
  });

  it("account A cannot revoke account B's key", async () => {
    const bob = await signIn(t, 'bob@example.com');
    const bobKey = await createKeyOnPage(t, bob, 'bob');
    const bobAccount = await t.temp.store.accounts.findAccountByEmail('bob@example.com');
    const [bobRecord] = await t.temp.store.accounts.listApiKeys(bobAccount?.id ?? '');
    const ann = await signIn(t, 'ann@example.com');
    const res = await postForm(t, `/account/keys/${bobRecord?.id}/revoke`, {}, { cookie: ann });
    expect(res.statusCode).toBe(404);
    const unknown = await postForm(
      t,
      '/account/keys/00000000-0000-4000-8000-000000000000/revoke',
      {},
      { cookie: ann },
    );
    expect(unknown.statusCode).toBe(404);
    expect(res.body).toBe(unknown.body);
    expect((await t.get('/api/v1/countries', bobKey)).statusCode).toBe(200);
  });

  it('never carries a session from before sign-in over (session fixation)', async () => {
    const planted = await signIn(t, 'mallory@example.com');
    await postForm(t, '/signin', { email: 'ann@example.com' });
    const confirmed = await postForm(
      t,
      '/signin/confirm',
      { token: lastLinkToken(t, 'ann@example.com') },
      { cookie: planted },
    );
    const fresh = sessionCookie(confirmed);
    expect(fresh).not.toBe(planted);
    expect((await getPage(t, '/account', planted)).statusCode).toBe(303);
    expect((await getPage(t, '/account', fresh)).body).toContain('ann@example.com');
    // A made-up cookie value is never adopted either.
    const madeUp = `onair_session=${'A'.repeat(43)}`;
    expect((await getPage(t, '/account', madeUp)).statusCode).toBe(303);
  });

  it('keeps the key secret out of logs, lists, pages and the database after creation', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    const key = await createKeyOnPage(t, cookie, 'secret-check');
    await t.get('/api/v1/countries', key);
    await t.inject({ method: 'GET', url: '/api/v1/countries', headers: { 'x-api-key': key } });
    await t.services.usage.flush();
    const account = await t.temp.store.accounts.findAccountByEmail('ann@example.com');
    const keys = await t.temp.store.accounts.listApiKeys(account?.id ?? '');
    const audit = await t.temp.store.accounts.listAudit(account?.id ?? '');
    const tables = [
      'accounts',
      'api_keys',
      'sign_in_links',
      'sessions',
      'audit_events',
      'usage_hourly',
    ];
    const dump = (await Promise.all(tables.map((table) => t.temp.sql(`SELECT * FROM ${table}`))))
      .map((rows) => JSON.stringify(rows))
      .join('\n');
    expect(dump).toContain('secret-check'); // the dump does hold the key's row
    for (const place of [
      t.logs(),
      JSON.stringify(keys),
      JSON.stringify(audit),
      (await getPage(t, '/account', cookie)).body,
      dump,
    ]) {
      expect(place).not.toContain(key);
      expect(place).not.toContain(key.slice(10, -4));
    }
    expect(t.logs()).toContain('/api/v1/countries');
  });

  it('keeps sign-in tokens and session ids out of the log', async () => {
    await postForm(t, '/signin', { email: 'ann@example.com' });
    const token = lastLinkToken(t, 'ann@example.com');
    await getPage(t, `/signin/confirm?token=${token}`);
    const confirmed = await postForm(t, '/signin/confirm', { token });
    const cookie = sessionCookie(confirmed);
    await getPage(t, '/account', cookie);
    expect(t.logs()).toContain('/signin/confirm?token=[redacted]');
    expect(t.logs()).not.toContain(token);
    expect(t.logs()).not.toContain(cookie.split('=')[1]);
  });

  it('sends a Content-Security-Policy without inline scripts, and other protective headers', async () => {
    for (const url of ['/', '/signin', '/account']) {
      const res = await getPage(t, url, await signIn(t, 'ann@example.com'));
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('same-origin');
    }
    const page = (await getPage(t, '/account', await signIn(t, 'ann@example.com'))).body;
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(page).not.toMatch(/\son[a-z]+=/i);
  });

  it('a disabled account is refused by the API at once', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    const key = await createKeyOnPage(t, cookie, 'k');
    expect((await t.get('/api/v1/countries', key)).statusCode).toBe(200);
    const account = await t.temp.store.accounts.findAccountByEmail('ann@example.com');
    await t.temp.store.accounts.updateAccount(account?.id ?? '', { disabled: true }, t.clock.ms);
    const res = await t.get('/api/v1/countries', key);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('ACCOUNT_DISABLED');
  });
});
