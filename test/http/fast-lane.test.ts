import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedCatalogue } from '../helpers/catalogue-fixture.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Repeated list requests are answered beneath Fastify (src/http/answers/fast-lane.ts). Only a
// listening server takes that path (inject() calls Fastify's handler directly), so these
// tests speak HTTP to a real port and tell the two paths apart by the counter of such answers.

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

let t: TestApp;
let port: number;

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) flat[name] = String(value);
        resolve({ status: res.statusCode ?? 0, headers: flat, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function repeatAnswers(): Promise<number> {
  const metric = await t.services.metrics.registry
    .getSingleMetric('onair_http_repeat_answers_total')
    ?.get();
  return metric?.values[0]?.value ?? 0;
}

/** The headers of two answers that may differ: the date, and the budget left. */
function comparable(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => name !== 'date' && name !== 'ratelimit'),
  );
}

const LISTS = [
  '/api/v1/countries',
  '/api/v1/countries/UK/channels',
  '/api/v1/countries/uk/channels',
  '/api/v1/channels/search?q=channel',
  '/api/v1/channels/search?q=channel&country=FR',
];

beforeEach(async () => {
  t = await createTestApp();
  // Enough channels that the longer bodies pass the compression threshold (1 KB).
  await seedCatalogue(t.temp.store, [
    ...Array.from({ length: 30 }, (_, i) => ({
      xmltvId: `uk${i}.uk`,
      name: `UK Channel ${i}`,
      country: 'UK',
    })),
    ...Array.from({ length: 5 }, (_, i) => ({
      xmltvId: `fr${i}.fr`,
      name: `Channel France ${i}`,
      country: 'FR',
    })),
  ]);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});

afterEach(async () => {
  await t.close();
});

describe('repeated list requests answered beneath the router', () => {
  for (const encoding of [null, 'gzip', 'br']) {
    it(`answer with the route's status, headers and bytes (${encoding ?? 'identity'})`, async () => {
      const { key } = await t.customer();
      const headers = {
        'x-api-key': key,
        ...(encoding === null ? {} : { 'accept-encoding': encoding }),
      };
      for (const path of LISTS) {
        const before = await repeatAnswers();
        const routed = await get(path, headers);
        // The route has compressed the body by now (its answer waited for it).
        expect(await repeatAnswers()).toBe(before);
        const repeated = await get(path, headers);
        expect(await repeatAnswers(), path).toBe(before + 1);

        expect(repeated.status).toBe(200);
        expect(routed.status).toBe(200);
        expect(comparable(repeated.headers)).toEqual(comparable(routed.headers));
        expect(repeated.body.equals(routed.body)).toBe(true);
        const remaining = (h: Record<string, string>) =>
          Number(/remaining=(\d+)/.exec(h.ratelimit ?? '')?.[1]);
        expect(remaining(repeated.headers)).toBe(remaining(routed.headers) - 1);
        expect(repeated.headers['x-content-type-options']).toBe('nosniff');
        if (encoding !== null && routed.body.length > 0) {
          const long = path !== '/api/v1/countries' && !path.includes('country=FR');
          expect(repeated.headers['content-encoding']).toBe(long ? encoding : undefined);
        }
      }
    });
  }

  it('count every request once against the account, and leave the 429 to the route', async () => {
    const { key } = await t.customer(undefined, { rateLimit: 3 });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get('/api/v1/countries', { 'x-api-key': key }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers.ratelimit)).toEqual([
      'limit=3, remaining=2, reset=1',
      'limit=3, remaining=1, reset=1',
      'limit=3, remaining=0, reset=1',
      'limit=3, remaining=0, reset=1',
    ]);
    const limited = answers[3];
    expect(JSON.parse(limited?.body.toString() ?? '')).toEqual({
      error: expect.any(String),
      code: 'RATE_LIMITED',
    });
    expect(limited?.headers['retry-after']).toBe('1');
    expect(await repeatAnswers()).toBe(2);
  });

  it('see a revoked key, a disabled account and a new catalogue on the next request', async () => {
    const { account, key } = await t.customer();
    const other = await t.createKey(account, 'second');
    const countries = async (k: string) => get('/api/v1/countries', { 'x-api-key': k });
    await countries(key);
    expect((await countries(key)).status).toBe(200);
    expect(await repeatAnswers()).toBe(1);

    const keys = await t.temp.store.accounts.listApiKeys(account.id);
    const first = keys.find((k) => k.name === 'test');
    if (first === undefined) throw new Error('the first key is missing');
    await t.temp.store.accounts.revokeApiKey(first.id, t.clock.ms);
    const revoked = await countries(key);
    expect(revoked.status).toBe(401);
    expect(JSON.parse(revoked.body.toString()).code).toBe('UNAUTHORIZED');
    expect((await countries(other)).status).toBe(200);
    expect(await repeatAnswers()).toBe(2);

    await seedCatalogue(t.temp.store, [{ xmltvId: 'eins.de', name: 'Das Erste', country: 'DE' }]);
    const changed = await countries(other);
    expect(JSON.parse(changed.body.toString()).countries).toContainEqual({
      country: 'DE',
      channelCount: 1,
    });
    expect(await repeatAnswers()).toBe(2);
    expect((await countries(other)).body.equals(changed.body)).toBe(true);
    expect(await repeatAnswers()).toBe(3);

    await t.temp.store.accounts.updateAccount(account.id, { disabled: true }, t.clock.ms);
    const disabled = await countries(other);
    expect(disabled.status).toBe(403);
    expect(JSON.parse(disabled.body.toString()).code).toBe('ACCOUNT_DISABLED');
    expect(await repeatAnswers()).toBe(3);
  });

  it('leave conditional, HEAD and keyless requests to the route', async () => {
    const { key } = await t.customer();
    const first = await get('/api/v1/countries', { 'x-api-key': key });
    const etag = first.headers.etag ?? '';
    const conditional = await get('/api/v1/countries', { 'x-api-key': key, 'if-none-match': etag });
    expect(conditional.status).toBe(304);
    expect(conditional.body.length).toBe(0);
    const head = await get('/api/v1/countries', { 'x-api-key': key }, 'HEAD');
    expect(head.status).toBe(200);
    expect((await get('/api/v1/countries')).status).toBe(401);
    expect((await get('/api/v1/countries', { 'x-api-key': 'onair_nonsense' })).status).toBe(401);
    expect(await repeatAnswers()).toBe(0);
  });

  it('log each answer at info as the route does, with the URL, never the key', async () => {
    const { key } = await t.customer();
    await get('/api/v1/countries', { authorization: `Bearer ${key}` });
    await get('/api/v1/countries', { authorization: `Bearer ${key}` });
    expect(await repeatAnswers()).toBe(1);
    const lines = t
      .logs()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'request completed');
    // Fastify logs the request in a line of its own; the answer beneath it, in this one.
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.res).toEqual({ statusCode: 200 });
    expect(lines[1]?.req).toMatchObject({ method: 'GET', url: '/api/v1/countries' });
    expect(t.logs()).not.toContain(key);
  });
});
