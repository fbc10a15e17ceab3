import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/test-app.js';

/** Headers a browser sends with a form posted from the site itself. */
export function sameSite(t: TestApp): Record<string, string> {
  return { origin: t.services.site.origin, 'sec-fetch-site': 'same-origin' };
}

export function postForm(
  t: TestApp,
  url: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...sameSite(t),
      ...headers,
    },
    payload: new URLSearchParams(fields).toString(),
  });
}

/** The session cookie a response set, as a `Cookie` header value. */
export function sessionCookie(res: LightMyRequestResponse): string {
  const cookie = res.cookies.find((c) => c.name.endsWith('onair_session'));
  expect(cookie, 'a session cookie').toBeDefined();
  return `${cookie?.name}=${cookie?.value}`;
}

/** The token of the last sign-in link mailed to `email`. */
export function lastLinkToken(t: TestApp, email: string): string {
  const mail = t.mail.filter((m) => m.to === email).at(-1);
  expect(mail, `a mail to ${email}`).toBeDefined();
  const match = /\/signin\/confirm\?token=([A-Za-z0-9_-]+)/.exec(mail?.text ?? '');
  expect(match, 'a sign-in link in the mail').not.toBeNull();
  return match?.[1] ?? '';
}

/** Signs in through the pages as a browser would; returns the session cookie. */
export async function signIn(t: TestApp, email: string): Promise<string> {
  const asked = await postForm(t, '/signin', { email });
  expect(asked.statusCode).toBe(303);
  expect(asked.headers.location).toBe('/signin/sent');
  const token = lastLinkToken(t, email);
  const confirmed = await postForm(t, '/signin/confirm', { token });
  expect(confirmed.statusCode).toBe(303);
  expect(confirmed.headers.location).toBe('/account');
  return sessionCookie(confirmed);
}

export function getPage(t: TestApp, url: string, cookie?: string): Promise<LightMyRequestResponse> {
  return t.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
}

/** Posts a form and follows its 303 as a browser does; returns both answers. */
export async function postAndFollow(
  t: TestApp,
  url: string,
  fields: Record<string, string>,
  cookie: string,
): Promise<{ posted: LightMyRequestResponse; shown: LightMyRequestResponse }> {
  const posted = await postForm(t, url, fields, { cookie });
  expect(posted.statusCode, posted.body.slice(0, 500)).toBe(303);
  const shown = await getPage(t, String(posted.headers.location), cookie);
  return { posted, shown };
}

/** The secret shown once on a page, from the element of that id. */
export function shownSecret(body: string, id: 'new-key' | 'feed-url'): string {
  return new RegExp(`<code id="${id}" data-secret>([^<]+)</code>`).exec(body)?.[1] ?? '';
}

/** Creates a key on the account page and returns the secret shown once. */
export async function createKeyOnPage(t: TestApp, cookie: string, name: string): Promise<string> {
  const { posted, shown } = await postAndFollow(t, '/account/keys', { name }, cookie);
  expect(posted.headers.location).toMatch(/^\/account\/keys\/[0-9a-f-]{36}\/created$/);
  expect(shown.statusCode).toBe(200);
  const key = shownSecret(shown.body, 'new-key');
  expect(key, 'the new key on the page').toMatch(/^onair_[0-9A-Za-z]+$/);
  return key;
}
