import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/domain/api-key.js';
import { seedCatalogue } from '../helpers/catalogue-fixture.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const DAY = 86_400_000;
let t: TestApp;
let channelId: string;

/** Every v1 route, so each auth rule is proven on all of them. */
const routes = () => [
  '/api/v1/countries',
  '/api/v1/countries/UK/channels',
  '/api/v1/channels/search?q=one',
  `/api/v1/channels/${channelId}/programmes`,
];

beforeEach(async () => {
  t = await createTestApp();
  channelId = (
    await seedCatalogue(t.temp.store, [{ xmltvId: 'one.uk', name: 'One', country: 'UK' }])
  ).channelIds.get('one.uk') as string;
});

afterEach(async () => {
  await t.close();
});

function expectError(res: { statusCode: number; json(): unknown }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(res.json()).toEqual({ error: expect.any(String), code });
}

describe('API keys', () => {
  it('accepts Bearer (any case of the scheme) and X-API-Key on every route', async () => {
    const { key } = await t.customer();
    for (const url of routes()) {
      for (const headers of [
        { authorization: `Bearer ${key}` },
        { authorization: `bearer ${key}` },
        { authorization: `BEARER   ${key}` },
        { 'x-api-key': key },
        { authorization: `Bearer ${key}`, 'x-api-key': key },
      ]) {
        const res = await t.inject({ method: 'GET', url, headers });
        expect(res.statusCode, `${url} ${Object.keys(headers).join(',')}`).toBe(200);
      }
    }
  });

  it('a missing key → 401 UNAUTHORIZED on every route', async () => {
    for (const url of routes()) expectError(await t.get(url), 401, 'UNAUTHORIZED');
  });

  it('says how to authenticate on every 401 of the API, and only there', async () => {
    const { key } = await t.customer();
    const everyRoute = [
      ...routes(),
      `/api/v1/channels/${channelId}/programmes/1000000000000000000`,
      `/api/v1/guide?channels=${channelId}`,
      `/api/v1/now?channels=${channelId}`,
      '/api/v1/programmes/search?q=one',
      '/api/v1/no-such-route',
    ];
    for (const url of everyRoute) {
      for (const headers of [{}, { authorization: 'Bearer nonsense' }]) {
        const res = await t.inject({ method: 'GET', url, headers });
        expect(res.statusCode, url).toBe(401);
        expect(res.headers['www-authenticate'], url).toBe('Bearer realm="onair"');
      }
      const admitted = await t.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
      expect(admitted.statusCode, url).not.toBe(401);
      expect(admitted.headers['www-authenticate'], url).toBeUndefined();
    }
  });

  it('refuses malformed, unknown, foreign-scheme and conflicting keys with 401', async () => {
    const { key } = await t.customer();
    const { key: other } = await t.customer();
    const cases: Record<string, string>[] = [
      { authorization: 'Bearer nonsense' },
      { authorization: `Bearer ${generateApiKey()}` }, // well-formed, never issued
      { authorization: `Bearer ${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}` }, // bad checksum
      { authorization: `Basic ${Buffer.from(`x:${key}`).toString('base64')}` },
      { authorization: key },
      { authorization: 'Bearer' },
      { authorization: '' },
      { 'x-api-key': '' },
      { 'x-api-key': `${key} ` + 'x' },
      { authorization: `Bearer ${key}`, 'x-api-key': other },
    ];
    for (const url of routes()) {
      for (const headers of cases) {
        expectError(await t.inject({ method: 'GET', url, headers }), 401, 'UNAUTHORIZED');
      }
    }
  });

  it('ignores a key in the query string', async () => {
    const { key } = await t.customer();
    expectError(await t.get(`/api/v1/countries?api_key=${key}&key=${key}`), 401, 'UNAUTHORIZED');
  });

  it('a revoked key is refused on the next request, with the same body as an unknown key', async () => {
    const { account, key } = await t.customer();
    const second = await t.createKey(account, 'second');
    expect((await t.get('/api/v1/countries', key)).statusCode).toBe(200);
    // Both keys share a creation time, so pick the first key by its name, not by list order.
    const keys = await t.temp.store.accounts.listApiKeys(account.id);
    const record = keys.find((k) => k.name === 'test');
    expect(record).toBeDefined();
    await t.temp.store.accounts.revokeApiKey(record?.id ?? '', t.clock.ms);
    const revoked = await t.get('/api/v1/countries', key);
    const unknown = await t.get('/api/v1/countries', generateApiKey());
    expectError(revoked, 401, 'UNAUTHORIZED');
    expect(revoked.body).toBe(unknown.body);
    expect((await t.get('/api/v1/countries', second)).statusCode).toBe(200);
  });
});

describe('access', () => {
  it('an unverified account → 403 EMAIL_NOT_VERIFIED', async () => {
    const { key } = await t.customer(undefined, { verifiedAt: null });
    for (const url of routes()) expectError(await t.get(url, key), 403, 'EMAIL_NOT_VERIFIED');
  });

  it('the trial lasts 7 days from verification, then 403 ACCESS_EXPIRED', async () => {
    const { key } = await t.customer();
    t.clock.advance(7 * DAY - 1);
    expect((await t.get('/api/v1/countries', key)).statusCode).toBe(200);
    t.clock.advance(1);
    for (const url of routes()) expectError(await t.get(url, key), 403, 'ACCESS_EXPIRED');
  });

  it('a future access_until gives access after the trial; the longer of the two decides', async () => {
    const { key } = await t.customer(undefined, {
      verifiedAt: t.clock.ms - 30 * DAY,
      accessUntil: t.clock.ms + DAY,
    });
    expect((await t.get('/api/v1/countries', key)).statusCode).toBe(200);
    const { key: trialLonger } = await t.customer(undefined, { accessUntil: t.clock.ms - DAY });
    expect((await t.get('/api/v1/countries', trialLonger)).statusCode).toBe(200);
    t.clock.advance(DAY);
    expectError(await t.get('/api/v1/countries', key), 403, 'ACCESS_EXPIRED');
  });

  it('access_until does not stand in for a verified e-mail', async () => {
    const { key } = await t.customer(undefined, {
      verifiedAt: null,
      accessUntil: t.clock.ms + DAY,
    });
    expectError(await t.get('/api/v1/countries', key), 403, 'EMAIL_NOT_VERIFIED');
  });

  it('a disabled account → 403 ACCOUNT_DISABLED at once, and back when re-enabled', async () => {
    const { account, key } = await t.customer();
    await t.temp.store.accounts.updateAccount(account.id, { disabled: true }, t.clock.ms);
    expectError(await t.get('/api/v1/countries', key), 403, 'ACCOUNT_DISABLED');
    await t.temp.store.accounts.updateAccount(account.id, { disabled: false }, t.clock.ms);
    expect((await t.get('/api/v1/countries', key)).statusCode).toBe(200);
  });

  it('checks the key before anything else: bad parameters without a key → 401', async () => {
    expectError(await t.get('/api/v1/countries/U_K/channels'), 401, 'UNAUTHORIZED');
    expectError(await t.get('/api/v1/channels/nope/programmes?days=0'), 401, 'UNAUTHORIZED');
    const { key } = await t.customer(undefined, { verifiedAt: null });
    expectError(await t.get('/api/v1/countries/U_K/channels', key), 403, 'EMAIL_NOT_VERIFIED');
  });
});
