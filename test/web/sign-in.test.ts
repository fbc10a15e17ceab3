import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TRIAL_MS } from '../../src/domain/access.js';
import { formatInstant } from '../../src/web/views/format.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  getPage,
  lastLinkToken,
  postForm,
  sameSite,
  sessionCookie,
  signIn,
} from './web-harness.js';
import { outboxFiles } from '../helpers/outbox.js';

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

describe('sign-in by e-mail link', () => {
  it('answers the same for a known and an unknown address, and mails a link to both', async () => {
    await t.createAccount('known@example.com');
    const sentPage = async (email: string) => {
      const posted = await postForm(t, '/signin', { email });
      expect(posted.statusCode).toBe(303);
      expect(posted.headers.location).toBe('/signin/sent');
      const kept = posted.cookies.find((c) => c.name === 'onair_link_sent');
      expect(kept).toMatchObject({ path: '/signin/sent', httpOnly: true, sameSite: 'Lax' });
      const page = await getPage(t, '/signin/sent', `onair_link_sent=${kept?.value}`);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`<strong>${email}</strong>`);
      return page;
    };
    const known = await sentPage('known@example.com');
    const unknown = await sentPage('new@example.com');
    const strip = (body: string) => body.replace(/known@example\.com|new@example\.com/g, 'X');
    expect(strip(known.body)).toBe(strip(unknown.body));
    expect(t.mail.map((m) => m.to)).toEqual(['known@example.com', 'new@example.com']);
    expect(t.mail[0]?.text).toContain(`${t.services.site.url}/signin/confirm?token=`);
  });

  it('answers the form with a redirect: reloading the page after it sends no other link', async () => {
    const posted = await postForm(t, '/signin', { email: 'ann@example.com' });
    expect(posted.statusCode).toBe(303);
    // The address is in no URL (URLs are logged), only in the browser's own cookie.
    expect(String(posted.headers.location)).not.toContain('ann');
    for (let i = 0; i < 3; i++) {
      const page = await getPage(t, '/signin/sent');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('If that address can receive mail');
    }
    expect(t.mail).toHaveLength(1);
    // A cookie that is no address is not shown.
    const odd = await getPage(t, '/signin/sent', 'onair_link_sent=%3Cb%3Ex');
    expect(odd.body).toContain('If that address can receive mail');
    expect(odd.body).not.toContain('<b>x');
  });

  it('stores only a hash of the link token', async () => {
    await postForm(t, '/signin', { email: 'ann@example.com' });
    const token = lastLinkToken(t, 'ann@example.com');
    const rows = await t.temp.sql('SELECT * FROM sign_in_links');
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows).toHaveLength(1);
  });

  it('opening the link does not use it up; the button does, once', async () => {
    await postForm(t, '/signin', { email: 'ann@example.com' });
    const token = lastLinkToken(t, 'ann@example.com');
    for (let i = 0; i < 3; i++) {
      const opened = await getPage(t, `/signin/confirm?token=${token}`);
      expect(opened.statusCode).toBe(200);
      expect(opened.body).toContain('ann@example.com');
      expect(opened.body).toMatch(/<form method="post" action="\/signin\/confirm"/);
    }
    const confirmed = await postForm(t, '/signin/confirm', { token });
    expect(confirmed.statusCode).toBe(303);
    const again = await postForm(t, '/signin/confirm', { token });
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain('cannot be used');
    expect((await getPage(t, `/signin/confirm?token=${token}`)).statusCode).toBe(400);
  });

  it('creates, verifies and starts the trial at the first sign-in; later sign-ins never restart it', async () => {
    const firstAt = t.clock.ms;
    await signIn(t, 'ann@example.com');
    let account = await t.temp.store.accounts.findAccountByEmail('ann@example.com');
    expect(account?.verifiedAt).toBe(firstAt);
    t.clock.advance(3 * 86_400_000);
    await signIn(t, 'ann@example.com');
    account = await t.temp.store.accounts.findAccountByEmail('ann@example.com');
    expect(account?.verifiedAt).toBe(firstAt);
    const page = await getPage(t, '/account', await signIn(t, 'ann@example.com'));
    expect(page.body).toContain('You can call the API');
    expect(page.body.replace(/\s+/g, ' ')).toContain(
      `until ${formatInstant(firstAt + TRIAL_MS)} (trial)`,
    );
  });

  it('verifies an account the operator created unverified', async () => {
    await t.createAccount('ops-made@example.com', { verifiedAt: null });
    await signIn(t, 'ops-made@example.com');
    const account = await t.temp.store.accounts.findAccountByEmail('ops-made@example.com');
    expect(account?.verifiedAt).toBe(t.clock.ms);
    const audit = await t.temp.store.accounts.listAudit(account?.id ?? '');
    expect(audit.map((e) => e.action)).toContain('email.verified');
  });

  it('refuses an expired link (15 minutes)', async () => {
    await postForm(t, '/signin', { email: 'ann@example.com' });
    const token = lastLinkToken(t, 'ann@example.com');
    t.clock.advance(15 * 60_000);
    expect((await getPage(t, `/signin/confirm?token=${token}`)).statusCode).toBe(400);
    expect((await postForm(t, '/signin/confirm', { token })).statusCode).toBe(400);
    expect(await t.temp.store.accounts.findAccountByEmail('ann@example.com')).toBeNull();
  });

  it('refuses a token made for another purpose', async () => {
    await postForm(t, '/signin', { email: 'ann@example.com' });
    const token = lastLinkToken(t, 'ann@example.com');
    await t.temp.sql("UPDATE sign_in_links SET purpose = 'change-email'");
    expect((await getPage(t, `/signin/confirm?token=${token}`)).statusCode).toBe(400);
    expect((await postForm(t, '/signin/confirm', { token })).statusCode).toBe(400);
  });

  it('refuses garbage tokens and bad addresses clearly', async () => {
    for (const token of ['', 'x', 'a'.repeat(43), `${'a'.repeat(43)}&x`]) {
      expect((await postForm(t, '/signin/confirm', { token })).statusCode, token).toBe(400);
    }
    const bad = await postForm(t, '/signin', { email: 'not an address' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Please enter an e-mail address');
    expect(bad.body).toContain('value="not an address"');
    expect(t.mail).toEqual([]);
  });

  it('limits link requests per address and per client IP', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await postForm(t, '/signin', { email: 'ann@example.com' })).statusCode).toBe(303);
    }
    const limited = await postForm(t, '/signin', { email: 'ANN@example.com' });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(t.mail).toHaveLength(5);
    // Another address from the same client still works, up to the per-IP budget.
    let status = 303;
    let sent = 0;
    for (let i = 0; status === 303 && i < 100; i++) {
      status = (await postForm(t, '/signin', { email: `user${i}@example.com` })).statusCode;
      if (status === 303) sent++;
    }
    expect(status).toBe(429);
    expect(sent).toBe(30 - 6);
    // A new window opens after 15 minutes.
    t.clock.advance(15 * 60_000);
    expect((await postForm(t, '/signin', { email: 'ann@example.com' })).statusCode).toBe(303);
  });

  it('sets an HttpOnly, SameSite=Lax session cookie, not Secure on http', async () => {
    await postForm(t, '/signin', { email: 'ann@example.com' });
    const res = await postForm(t, '/signin/confirm', {
      token: lastLinkToken(t, 'ann@example.com'),
    });
    const cookie = res.cookies.find((c) => c.name === 'onair_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie?.secure).toBeUndefined();
    expect(sessionCookie(res)).toMatch(/^onair_session=[A-Za-z0-9_-]{43}$/);
  });

  it('signs out, and sign out everywhere ends every session of the account', async () => {
    const a = await signIn(t, 'ann@example.com');
    const b = await signIn(t, 'ann@example.com');
    const other = await signIn(t, 'bob@example.com');
    const out = await postForm(t, '/signout', {}, { cookie: a });
    expect(out.statusCode).toBe(303);
    expect((await getPage(t, '/account', a)).statusCode).toBe(303);
    expect((await getPage(t, '/account', b)).statusCode).toBe(200);
    const c = await signIn(t, 'ann@example.com');
    // Asked first, on a page whose form does it; opening that page ends nothing.
    const ask = await getPage(t, '/account/sessions/end-all', c);
    expect(ask.statusCode).toBe(200);
    expect(ask.body).toContain('Sign out everywhere?');
    expect(ask.body).toContain('<form method="post" action="/account/sessions/end-all"');
    expect((await getPage(t, '/account', b)).statusCode).toBe(200);
    expect((await getPage(t, '/account', c)).statusCode).toBe(200);
    const everywhere = await postForm(t, '/account/sessions/end-all', {}, { cookie: c });
    expect(everywhere.statusCode).toBe(303);
    expect(everywhere.headers.location).toBe('/signin?notice=signed-out-everywhere');
    expect((await getPage(t, '/account', b)).statusCode).toBe(303);
    expect((await getPage(t, '/account', c)).statusCode).toBe(303);
    expect((await getPage(t, '/account', other)).statusCode).toBe(200);
  });

  it('expires sessions after 30 days, and says so on the way to sign in', async () => {
    const cookie = await signIn(t, 'ann@example.com');
    t.clock.advance(30 * 86_400_000);
    const res = await getPage(t, '/account', cookie);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/signin?notice=session-ended');
    // The dead cookie goes.
    expect(String(res.headers['set-cookie'])).toMatch(/^onair_session=;.*Expires=Thu, 01 Jan 1970/);
    const page = await getPage(t, String(res.headers.location));
    expect(page.body).toContain('Your session has ended');
    // A form sent with it is refused the same way, nothing saved.
    const posted = await postForm(t, '/account/keys', { name: 'late' }, { cookie });
    expect([posted.statusCode, posted.headers.location]).toEqual([
      303,
      '/signin?notice=session-ended',
    ]);
    // Without any session cookie, the sign-in page has nothing to say.
    expect((await getPage(t, '/account')).headers.location).toBe('/signin');
  });

  it('uses a __Host- Secure cookie when PUBLIC_URL is https', async () => {
    const secure = await createTestApp({ PUBLIC_URL: 'https://onair.example' });
    try {
      await postForm(secure, '/signin', { email: 'ann@example.com' });
      const res = await postForm(secure, '/signin/confirm', {
        token: lastLinkToken(secure, 'ann@example.com'),
      });
      const cookie = res.cookies.find((c) => c.name === '__Host-onair_session');
      expect(cookie).toMatchObject({ secure: true, httpOnly: true, path: '/' });
      expect(res.headers['strict-transport-security']).toMatch(/max-age=/);
      expect(secure.mail[0]?.text).toContain('https://onair.example/signin/confirm?token=');
      expect(sameSite(secure).origin).toBe('https://onair.example');
    } finally {
      await secure.close();
    }
  });
});

describe('sign-in mail delivery', () => {
  it('through SMTP when it fails: the page still answers, the error is logged, the mail is kept', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const app = await createTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}` }, Date.now(), {
      realMailer: true,
    });
    try {
      const res = await postForm(app, '/signin', { email: 'ann@example.com' });
      expect(res.statusCode).toBe(303);
      expect((await getPage(app, String(res.headers.location))).body).toContain('Check your inbox');
      await expect
        .poll(() => app.logs(), { timeout: 5_000 })
        .toContain('SMTP did not take the mail');
      const outbox = join(app.temp.dir, 'outbox');
      const kept = outboxFiles(outbox);
      expect(kept).toHaveLength(1);
      expect(kept[0]).toMatch(/^failed-/);
      // The log names the recipient but never carries the link.
      const token = /token=([\w-]+)/.exec(readFileSync(join(outbox, kept[0] ?? ''), 'utf8'))?.[1];
      expect(token).toBeDefined();
      expect(app.logs()).not.toContain(token);
    } finally {
      await app.close();
    }
  });

  it('without SMTP_URL: an .eml and its text in the outbox; the log names the file, never the link', async () => {
    const app = await createTestApp({}, Date.now(), { realMailer: true });
    try {
      await postForm(app, '/signin', { email: 'ann@example.com' });
      const outbox = join(app.temp.dir, 'outbox');
      await expect.poll(() => outboxFiles(outbox)).toHaveLength(1);
      const emlPath = join(outbox, outboxFiles(outbox)[0] ?? '');
      expect(readFileSync(emlPath, 'utf8')).toMatch(/^To: ann@example\.com$/m);
      // The text beside it holds the link whole on a line of its own, ready to copy.
      const textPath = emlPath.replace(/\.eml$/, '.txt');
      const link = /^https?:\/\/\S+\/signin\/confirm\?token=([\w-]{43})$/m.exec(
        readFileSync(textPath, 'utf8'),
      );
      expect(link).not.toBeNull();
      await expect.poll(() => app.logs()).toContain('mail written to the outbox');
      expect(app.logs()).toContain(textPath);
      expect(app.logs()).not.toContain(link?.[1] ?? 'no token');
      expect(app.logs()).not.toContain('token=');
    } finally {
      await app.close();
    }
  });
});
