import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { seedCatalogue } from '../helpers/catalogue-fixture.js';
import { createTestApp, TEST_NOW, type TestApp } from '../helpers/test-app.js';

// Cross-origin calls of the API (src/http/cors.ts). The tests speak HTTP to a listening server:
// only then does the fast lane beneath Fastify answer repeated requests, and both paths must
// carry the same CORS headers.

interface Answer {
  status: number;
  headers: Record<string, string>;
  /** Header names as sent, in order, repeats kept. */
  names: string[];
  body: string;
}

const LISTED = 'http://localhost:5173';
const OTHER = 'https://elsewhere.example';

let t: TestApp | undefined;
let port: number;
let channelId: string;
let programmeId: string;

function send(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) flat[name] = String(value);
        resolve({
          status: res.statusCode ?? 0,
          headers: flat,
          names: res.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()),
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const preflight = (path: string, origin: string) =>
  send(
    path,
    {
      origin,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization',
    },
    'OPTIONS',
  );

/** The CORS headers of an answer (Vary apart). */
const corsOf = (answer: Answer) =>
  Object.fromEntries(
    Object.entries(answer.headers).filter(([name]) => name.startsWith('access-control-')),
  );

function app(): TestApp {
  if (t === undefined) throw new Error('start() the app first');
  return t;
}

async function repeatAnswers(): Promise<number> {
  const metric = await app()
    .services.metrics.registry.getSingleMetric('onair_http_repeat_answers_total')
    ?.get();
  return metric?.values[0]?.value ?? 0;
}

/** Builds the app with `env` over a small catalogue and listens on a free port. */
async function start(env: Record<string, string> = {}): Promise<TestApp> {
  t = await createTestApp(env);
  const seeded = await seedCatalogue(
    t.temp.store,
    Array.from({ length: 30 }, (_, i) => ({
      xmltvId: `uk${i}.uk`,
      name: `UK Channel ${i}`,
      country: 'UK',
    })),
    [{ channel: 'uk0.uk', startMs: TEST_NOW - 600_000, title: 'On now' }],
  );
  channelId = seeded.channelIds.get('uk0.uk') ?? '';
  await t.temp.store.playground.add(channelId, TEST_NOW);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
  const key = (await t.customer()).key;
  const schedule = await send(`/api/v1/channels/${channelId}/programmes?days=all`, {
    'x-api-key': key,
  });
  programmeId = (JSON.parse(schedule.body) as { programmes: { id: string }[] }).programmes[0]
    ?.id as string;
  return t;
}

afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Every API path a page may call: each v1 route, an unknown one, and the playground's. */
function apiPaths(): string[] {
  return [
    '/api/v1/countries',
    '/api/v1/countries/uk/channels',
    '/api/v1/channels/search?q=uk',
    `/api/v1/channels/${channelId}/programmes?days=today`,
    `/api/v1/channels/${channelId}/programmes/${programmeId}`,
    '/api/v1/guide?country=UK',
    '/api/v1/now?country=UK',
    '/api/v1/programmes/search?q=now',
    '/api/v1/nothing-here',
    '/playground/api/countries',
  ];
}

describe('without CORS_ORIGINS (the default)', () => {
  it('answers exactly as before: no CORS header, no Vary: Origin, a preflight is a keyless request', async () => {
    const a = await start();
    const { key } = await a.customer();
    const headers = { 'x-api-key': key, origin: LISTED };
    const routed = await send('/api/v1/countries', headers);
    const repeated = await send('/api/v1/countries', headers);
    expect(await repeatAnswers()).toBe(1);
    for (const answer of [routed, repeated]) {
      expect(answer.status).toBe(200);
      expect([...answer.names].sort()).toEqual([
        'cache-control',
        'connection',
        'content-length',
        'content-security-policy',
        'content-type',
        'date',
        'etag',
        'keep-alive',
        'ratelimit',
        'ratelimit-policy',
        'referrer-policy',
        'vary',
        'x-content-type-options',
        'x-frame-options',
      ]);
      expect(answer.headers.vary).toBe('Accept-Encoding');
    }

    const refused = await send('/api/v1/countries', { origin: LISTED });
    expect(refused.status).toBe(401);
    expect(corsOf(refused)).toEqual({});
    expect(refused.headers.vary).toBeUndefined();

    // No preflight is answered: OPTIONS is a v1 request without a key, as it always was.
    const options = await preflight('/api/v1/countries', LISTED);
    expect(options.status).toBe(401);
    expect(JSON.parse(options.body)).toEqual({
      error: 'Missing or invalid API key',
      code: 'UNAUTHORIZED',
    });
    expect(corsOf(options)).toEqual({});
    expect(options.headers.vary).toBeUndefined();

    const playground = await send('/playground/api/countries', { origin: LISTED });
    expect(playground.status).toBe(200);
    expect(corsOf(playground)).toEqual({});
    expect(playground.headers.vary).toBe('Accept-Encoding');
  });
});

describe('with listed origins (CORS_ORIGINS)', () => {
  const env = { CORS_ORIGINS: `https://app.example.com, ${LISTED}` };

  it('answers a listed origin’s preflight 204 without a key, on every API path', async () => {
    await start(env);
    for (const path of apiPaths()) {
      const answer = await preflight(path, LISTED);
      expect(answer.status, path).toBe(204);
      expect(answer.body).toBe('');
      expect(corsOf(answer), path).toEqual({
        'access-control-allow-origin': LISTED,
        'access-control-allow-methods': 'GET, HEAD',
        'access-control-allow-headers': 'Authorization, X-API-Key, If-None-Match',
        'access-control-max-age': '7200',
      });
      expect(answer.headers.vary).toBe('Origin');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('gives an unlisted origin’s preflight no permission, and leaves other OPTIONS alone', async () => {
    await start(env);
    const unlisted = await preflight('/api/v1/countries', OTHER);
    expect(unlisted.status).toBe(204);
    expect(corsOf(unlisted)).toEqual({});
    expect(unlisted.headers.vary).toBe('Origin');
    // The listed form is exact: another scheme or port is another origin.
    expect(corsOf(await preflight('/api/v1/countries', 'https://localhost:5173'))).toEqual({});

    // Not a preflight (no Access-Control-Request-Method): a v1 request like any other.
    const plain = await send('/api/v1/countries', { origin: LISTED }, 'OPTIONS');
    expect(plain.status).toBe(401);
    // Not an API path: pages and feeds are not for other sites' scripts.
    for (const path of ['/signin', '/feeds/x/guide.xml']) {
      const page = await preflight(path, LISTED);
      expect(page.status, path).not.toBe(204);
      expect(corsOf(page), path).toEqual({});
    }
  });

  for (const encoding of [null, 'br']) {
    it(`names a listed origin in a cached answer, routed and from the fast lane alike (${encoding ?? 'identity'})`, async () => {
      const a = await start(env);
      const { key } = await a.customer();
      const headers = {
        'x-api-key': key,
        origin: LISTED,
        ...(encoding === null ? {} : { 'accept-encoding': encoding }),
      };
      for (const path of [
        '/api/v1/countries/uk/channels',
        `/api/v1/channels/${channelId}/programmes?all=1`,
      ]) {
        const before = await repeatAnswers();
        const routed = await send(path, headers);
        const repeated = await send(path, headers);
        expect(await repeatAnswers(), path).toBe(before + 1);
        for (const answer of [routed, repeated]) {
          expect(answer.status).toBe(200);
          expect(corsOf(answer), path).toEqual({
            'access-control-allow-origin': LISTED,
            'access-control-expose-headers': 'RateLimit, RateLimit-Policy, Retry-After, ETag',
          });
          expect(answer.headers.vary).toBe('Accept-Encoding, Origin');
          // One Vary line, not two.
          expect(answer.names.filter((n) => n === 'vary')).toHaveLength(1);
        }
        expect(repeated.body).toBe(routed.body);
      }
    });
  }

  it('varies by Origin for an unlisted origin or none, on both paths, without CORS headers', async () => {
    const a = await start(env);
    const { key } = await a.customer();
    for (const origin of [{ origin: OTHER }, {}] as Record<string, string>[]) {
      const headers = { 'x-api-key': key, ...origin };
      const path = `/api/v1/countries?o=${Object.keys(origin).length}`;
      const before = await repeatAnswers();
      const routed = await send(path, headers);
      const repeated = await send(path, headers);
      expect(await repeatAnswers()).toBe(before + 1);
      for (const answer of [routed, repeated]) {
        expect(answer.status).toBe(200);
        expect(corsOf(answer)).toEqual({});
        expect(answer.headers.vary).toBe('Accept-Encoding, Origin');
      }
    }
  });

  it('gives every answer of every API path to a listed origin, errors and 304s included', async () => {
    const a = await start(env);
    const { key } = await a.customer();
    for (const path of apiPaths()) {
      const answer = await send(path, { 'x-api-key': key, origin: LISTED });
      expect(answer.status, path).toBe(path.includes('nothing-here') ? 404 : 200);
      expect(answer.headers['access-control-allow-origin'], path).toBe(LISTED);
      expect(answer.headers.vary, path).toMatch(/(^|, )Origin$/);
    }
    const tagged = await send('/api/v1/countries', { 'x-api-key': key, origin: LISTED });
    const notModified = await send('/api/v1/countries', {
      'x-api-key': key,
      origin: LISTED,
      'if-none-match': tagged.headers.etag ?? '',
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers['access-control-allow-origin']).toBe(LISTED);
    for (const path of [
      '/api/v1/channels/search?q=a&q=b', // 400 from the route
      '/api/v1/countries/%E0%A4%A/channels', // 400 before the router
      `/api/v1/channels/${channelId.replace(/.$/, '0')}/programmes`, // 404
    ]) {
      const error = await send(path, { 'x-api-key': key, origin: LISTED });
      expect(error.status, path).toBeGreaterThanOrEqual(400);
      expect(error.headers['access-control-allow-origin'], path).toBe(LISTED);
    }
  });

  it('lets a listed origin read a 401 and a 429 (with Retry-After), and an unlisted one not', async () => {
    const a = await start(env);
    for (const [origin, allowed] of [
      [LISTED, true],
      [OTHER, false],
    ] as const) {
      const expected = allowed
        ? {
            'access-control-allow-origin': origin,
            'access-control-expose-headers': 'RateLimit, RateLimit-Policy, Retry-After, ETag',
          }
        : {};
      const unauthorized = await send('/api/v1/countries', { origin });
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.headers['www-authenticate']).toBe('Bearer realm="onair"');
      expect(corsOf(unauthorized)).toEqual(expected);
      expect(unauthorized.headers.vary).toBe('Origin');

      // A budget of one: the first is routed and remembered, the second reaches the fast lane,
      // which passes the refusal on to the guard.
      const { key } = await a.customer(undefined, { rateLimit: 1 });
      const path = `/api/v1/countries?for=${encodeURIComponent(origin)}`;
      expect((await send(path, { 'x-api-key': key, origin })).status).toBe(200);
      const limited = await send(path, { 'x-api-key': key, origin });
      expect(limited.status).toBe(429);
      expect(JSON.parse(limited.body)).toMatchObject({ code: 'RATE_LIMITED' });
      expect(limited.headers['retry-after']).toBe('1');
      expect(limited.headers.ratelimit).toBe('limit=1, remaining=0, reset=1');
      expect(corsOf(limited)).toEqual(expected);
      expect(limited.headers.vary).toBe('Origin');
    }
  });

  it('keeps pages, feeds and the OpenAPI document as they were', async () => {
    await start(env);
    const page = await send('/signin', { origin: LISTED });
    expect(corsOf(page)).toEqual({});
    expect(page.headers.vary ?? '').not.toMatch(/Origin/);
    const feed = await send('/feeds/x/guide.xml', { origin: LISTED });
    expect(feed.status).toBe(404);
    expect(corsOf(feed)).toEqual({});
    // Public to every site, as before.
    const openapi = await send('/openapi.json', { origin: LISTED });
    expect(corsOf(openapi)).toEqual({ 'access-control-allow-origin': '*' });
  });
});

describe('with CORS_ORIGINS=*', () => {
  it('lets any page read every answer, which then does not vary by Origin', async () => {
    const a = await start({ CORS_ORIGINS: '*' });
    const { key } = await a.customer();
    const allowed = await preflight('/api/v1/guide?country=UK', OTHER);
    expect(allowed.status).toBe(204);
    expect(corsOf(allowed)).toEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD',
      'access-control-allow-headers': 'Authorization, X-API-Key, If-None-Match',
      'access-control-max-age': '7200',
    });
    expect(allowed.headers.vary).toBe('Origin');

    const every = {
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'RateLimit, RateLimit-Policy, Retry-After, ETag',
    };
    for (const origin of [{ origin: OTHER }, {}] as Record<string, string>[]) {
      const headers = { 'x-api-key': key, ...origin };
      const path = `/api/v1/countries?o=${Object.keys(origin).length}`;
      const before = await repeatAnswers();
      const routed = await send(path, headers);
      const repeated = await send(path, headers);
      expect(await repeatAnswers()).toBe(before + 1);
      for (const answer of [routed, repeated]) {
        expect(corsOf(answer)).toEqual(every);
        expect(answer.headers.vary).toBe('Accept-Encoding');
      }
    }
    const refused = await send('/api/v1/countries', { origin: OTHER });
    expect(refused.status).toBe(401);
    expect(corsOf(refused)).toEqual(every);
    expect(refused.headers.vary).toBeUndefined();
  });
});
