import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/domain/api-key.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;

beforeEach(async () => {
  // Start 100 ms into a second so the window arithmetic is visible.
  t = await createTestApp({ AUTH_FAILURE_LIMIT: '5' }, Date.UTC(2026, 7, 22, 10, 30, 0, 100));
});

afterEach(async () => {
  await t.close();
});

const statuses = async (n: number, key: string | null, url = '/api/v1/countries') => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await t.get(url, key)).statusCode);
  return out;
};

describe('per-account rate limit', () => {
  it('admits 3 requests per 1-second window, then 429 RATE_LIMITED with Retry-After', async () => {
    const { key } = await t.customer(undefined, { rateLimit: null });
    expect(await statuses(3, key)).toEqual([200, 200, 200]);
    const limited = await t.get('/api/v1/countries', key);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: expect.any(String), code: 'RATE_LIMITED' });
    expect(limited.headers['retry-after']).toBe('1');
    t.clock.advance(899); // still the same window
    expect(await statuses(1, key)).toEqual([429]);
    t.clock.advance(1); // the next window starts on the second
    expect(await statuses(4, key)).toEqual([200, 200, 200, 429]);
  });

  it('sends RateLimit headers on authenticated answers', async () => {
    const { key } = await t.customer(undefined, { rateLimit: null });
    const res = await t.get('/api/v1/countries', key);
    expect(res.headers['ratelimit-policy']).toBe('3;w=1');
    expect(res.headers.ratelimit).toBe('limit=3, remaining=2, reset=1');
  });

  it('is shared by all keys of an account and separate between accounts', async () => {
    const { account, key } = await t.customer(undefined, { rateLimit: null });
    const second = await t.createKey(account);
    const { key: other } = await t.customer(undefined, { rateLimit: null });
    expect(await statuses(2, key)).toEqual([200, 200]);
    expect(await statuses(2, second)).toEqual([200, 429]);
    expect(await statuses(3, other)).toEqual([200, 200, 200]);
  });

  it('honours a per-account limit', async () => {
    const { key } = await t.customer(undefined, { rateLimit: 5 });
    expect(await statuses(6, key)).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('counts requests that end in 400 or 404', async () => {
    const { key } = await t.customer(undefined, { rateLimit: null });
    expect((await t.get('/api/v1/countries/U_K/channels', key)).statusCode).toBe(400);
    expect((await t.get('/api/v1/channels/nope/programmes', key)).statusCode).toBe(404);
    expect((await t.get('/api/v1/nowhere', key)).statusCode).toBe(404);
    expect(await statuses(1, key)).toEqual([429]);
  });

  it('does not count 401 or 403 against the account', async () => {
    const { account, key } = await t.customer(undefined, { rateLimit: null });
    await t.temp.store.accounts.updateAccount(account.id, { disabled: true }, t.clock.ms);
    expect(await statuses(5, key)).toEqual([403, 403, 403, 403, 403]);
    await t.temp.store.accounts.updateAccount(account.id, { disabled: false }, t.clock.ms);
    expect(await statuses(3, key)).toEqual([200, 200, 200]);
  });
});

describe('failed-auth limit per client IP', () => {
  it('answers 429 once an address exceeds its failed attempts, while valid keys still work', async () => {
    const { key } = await t.customer();
    expect(await statuses(5, generateApiKey())).toEqual([401, 401, 401, 401, 401]);
    const limited = await t.get('/api/v1/countries', 'garbage');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await t.get('/api/v1/countries', key)).statusCode).toBe(200);
    // Another address has its own budget.
    const elsewhere = await t.inject({
      method: 'GET',
      url: '/api/v1/countries',
      remoteAddress: '10.0.0.9',
    });
    expect(elsewhere.statusCode).toBe(401);
    t.clock.advance(10_000);
    expect(await statuses(1, null)).toEqual([401]);
  });
});
