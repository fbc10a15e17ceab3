import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/domain/api-key.js';
import { seedCatalogue } from '../helpers/catalogue-fixture.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Repeated requests of the cached v1 routes are answered beneath Fastify
// (src/http/answers/fast-lane.ts). Only a listening server takes that path (inject() calls
// Fastify's handler directly), so these tests speak HTTP to a real port and tell the two paths
// apart by the counter of such answers.

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Bytes of the answer on the wire: status line, headers, body. */
  wireBytes: number;
  /** The header lines as sent, in their order and case. */
  lines: string[];
}

let t: TestApp | undefined;
let port: number;

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) flat[name] = String(value);
        const body = Buffer.concat(chunks);
        let head = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n`;
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          head += `${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}\r\n`;
        }
        const wireBytes = Buffer.byteLength(`${head}\r\n`) + body.length;
        const lines = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        }
        resolve({ status: res.statusCode ?? 0, headers: flat, body, wireBytes, lines });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The app of the running test. */
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

/** The headers of two answers that may differ: the date, and the budget left. */
function comparable(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => name !== 'date' && name !== 'ratelimit'),
  );
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MIDNIGHT = Date.UTC(2026, 7, 22); // the UTC day TEST_NOW falls in
let channelId: string;

/** Every cached v1 route, and whether its body is long enough to be compressed (1 KB). */
/**
 * The cached routes' URLs; `again`: a search, whose answer is kept (and so answered here) only
 * once it is asked a second time (cached-answers.ts, Keeping).
 */
function cachedRoutes(): { path: string; long: boolean; again?: true }[] {
  const programmes = `/api/v1/channels/${channelId}/programmes`;
  return [
    { path: '/api/v1/countries', long: false },
    { path: '/api/v1/countries/UK/channels', long: true },
    { path: '/api/v1/countries/uk/channels', long: true },
    { path: '/api/v1/channels/search?q=channel', long: true, again: true },
    { path: '/api/v1/channels/search?q=channel&country=FR', long: false, again: true },
    { path: programmes, long: true },
    { path: `${programmes}?days=today`, long: true },
    { path: `${programmes}?days=tomorrow`, long: false },
    { path: `${programmes}?days=2`, long: true },
    { path: `${programmes}?days=all`, long: true },
    { path: `${programmes}?all=1`, long: true },
    { path: `/api/v1/channels/${channelId.toUpperCase()}/programmes?days=today`, long: true },
  ];
}

/** Builds the app (with `env`) over a seeded catalogue and listens on a free port. */
async function start(env: Record<string, string> = {}): Promise<TestApp> {
  t = await createTestApp(env);
  // Enough channels and programmes that the longer bodies pass the compression threshold.
  const seeded = await seedCatalogue(
    t.temp.store,
    [
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
    ],
    [
      // Today hourly, one tomorrow, one two days back, one whose start does not parse.
      ...Array.from({ length: 24 }, (_, h) => ({
        channel: 'uk0.uk',
        startMs: MIDNIGHT + h * HOUR,
        title: `Today at ${h}`,
        desc: 'A programme long enough to matter. '.repeat(2),
      })),
      { channel: 'uk0.uk', startMs: MIDNIGHT + DAY, title: 'Tomorrow' },
      { channel: 'uk0.uk', startMs: MIDNIGHT - 36 * HOUR, title: 'Two days back' },
      { channel: 'uk0.uk', rawStart: 'garbage', title: 'Unparseable start' },
    ],
  );
  channelId = seeded.channelIds.get('uk0.uk') ?? '';
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
  return t;
}

afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Header lines with the date and the budget left blanked. */
const sameLines = (lines: string[]) =>
  lines.map((line) => line.replace(/^(Date: ).*/, '$1…').replace(/remaining=\d+/, 'remaining=…'));

/** The budget left in a `RateLimit` header. */
const remaining = (h: Record<string, string>) =>
  Number(/remaining=(\d+)/.exec(h.ratelimit ?? '')?.[1]);

describe('repeated requests of cached routes answered beneath the router', () => {
  for (const encoding of [null, 'gzip', 'br']) {
    it(`answer with the route's status, headers and bytes (${encoding ?? 'identity'})`, async () => {
      const { key } = await (await start()).customer();
      const headers = {
        'x-api-key': key,
        ...(encoding === null ? {} : { 'accept-encoding': encoding }),
      };
      for (const { path, long, again } of cachedRoutes()) {
        const before = await repeatAnswers();
        // Asked once, a search's answer is made and not kept: the route answers it again.
        if (again) await get(path, headers);
        const routed = await get(path, headers);
        // The route has compressed the body by now (its answer waited for it).
        expect(await repeatAnswers(), path).toBe(before);
        const repeated = await get(path, headers);
        expect(await repeatAnswers(), path).toBe(before + 1);

        expect(routed.status, path).toBe(200);
        expect(repeated.status).toBe(200);
        expect(comparable(repeated.headers), path).toEqual(comparable(routed.headers));
        // The same header lines in the same order and case: the answers differ only in the date
        // and the budget left.
        expect(sameLines(repeated.lines), path).toEqual(sameLines(routed.lines));
        expect(repeated.body.equals(routed.body), path).toBe(true);
        expect(remaining(repeated.headers)).toBe(remaining(routed.headers) - 1);
        expect(repeated.headers['x-content-type-options']).toBe('nosniff');
        if (encoding !== null) {
          expect(repeated.headers['content-encoding'], path).toBe(long ? encoding : undefined);
        }
      }
    });
  }

  // CORS headers join the answer's (a Vary merged into its own): the same lines on both paths.
  for (const [origins, origin] of [
    ['*', 'https://any.example.net'],
    ['https://app.example.com', 'https://app.example.com'],
    ['https://app.example.com', 'https://other.example.net'],
  ]) {
    it(`answer with the route's header lines under CORS_ORIGINS=${origins}, from ${origin}`, async () => {
      const { key } = await (await start({ CORS_ORIGINS: origins ?? '' })).customer();
      const headers = { 'x-api-key': key, origin: origin ?? '', 'accept-encoding': 'gzip' };
      for (const { path, again } of cachedRoutes()) {
        if (again) await get(path, headers);
        const routed = await get(path, headers);
        const before = await repeatAnswers();
        const repeated = await get(path, headers);
        expect(await repeatAnswers(), path).toBe(before + 1);
        expect(sameLines(repeated.lines), path).toEqual(sameLines(routed.lines));
        expect(repeated.body.equals(routed.body), path).toBe(true);
      }
    });
  }

  it('answer the window of the moment: a schedule moves with the clock, as the route', async () => {
    const a = await start();
    const { key } = await a.customer();
    const today = `/api/v1/channels/${channelId}/programmes?days=today`;
    const titles = (answer: Answer) =>
      (JSON.parse(answer.body.toString()) as { programmes: { title: string }[] }).programmes.map(
        (p) => p.title,
      );
    await get(today, { 'x-api-key': key });
    const repeated = await get(today, { 'x-api-key': key });
    expect(await repeatAnswers()).toBe(1);
    expect(titles(repeated)).toHaveLength(24);

    // A day later "today" is another window: the kept answer of yesterday's is not sent.
    a.clock.advance(DAY);
    const nextDay = await get(today, { 'x-api-key': key });
    expect(await repeatAnswers()).toBe(1);
    expect(titles(nextDay)).toEqual(['Tomorrow']);
    expect(nextDay.headers.etag).not.toBe(repeated.headers.etag);
    const again = await get(today, { 'x-api-key': key });
    expect(await repeatAnswers()).toBe(2);
    expect(again.body.equals(nextDay.body)).toBe(true);
    // The route's own answer (inject() never takes the fast lane) is the same.
    const routed = await a.get(today, key);
    expect(routed.rawPayload.equals(again.body)).toBe(true);
    expect(routed.headers.etag).toBe(again.headers.etag);
  });

  it('send a long streamed schedule compressed once the route has compressed it', async () => {
    const a = await start();
    const { key } = await a.customer();
    const seeded = await seedCatalogue(
      a.temp.store,
      [{ xmltvId: 'big.uk', name: 'Big', country: 'UK' }],
      Array.from({ length: 3000 }, (_, i) => ({
        channel: 'big.uk',
        startMs: MIDNIGHT - i * HOUR,
        title: `Programme ${i}`,
        desc: `${i} `.repeat(150),
      })),
    );
    const path = `/api/v1/channels/${seeded.channelIds.get('big.uk')}/programmes?days=all`;
    // Whole and uncompressed it is streamed from the kept parts by the route, each time.
    const plain = await get(path, { 'x-api-key': key });
    expect(plain.body.length).toBeGreaterThan(1024 * 1024);
    const plainAgain = await get(path, { 'x-api-key': key });
    expect(plainAgain.body.equals(plain.body)).toBe(true);
    expect(await repeatAnswers()).toBe(0);
    const br = { 'x-api-key': key, 'accept-encoding': 'br' };
    const routed = await get(path, br);
    const repeated = await get(path, br);
    expect(await repeatAnswers()).toBe(1);
    expect(comparable(repeated.headers)).toEqual(comparable(routed.headers));
    expect(repeated.body.equals(routed.body)).toBe(true);
  });

  it('count every request once against the account, and leave the 429 to the route', async () => {
    const { key } = await (await start()).customer(undefined, { rateLimit: 3 });
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

  it('count a request passed on to the route once, when its answer is not kept', async () => {
    const a = await start();
    const { key } = await a.customer(undefined, { rateLimit: 4 });
    const countries = () => get('/api/v1/countries', { 'x-api-key': key });
    const first = await countries();
    expect(remaining(first.headers)).toBe(3);
    expect(remaining((await countries()).headers)).toBe(2);
    expect(await repeatAnswers()).toBe(1);
    // A new catalogue: the kept body is stale, the fast lane authorises and passes on.
    await seedCatalogue(a.temp.store, [{ xmltvId: 'eins.de', name: 'Das Erste', country: 'DE' }]);
    const passedOn = await countries();
    expect(await repeatAnswers()).toBe(1);
    expect(passedOn.status).toBe(200);
    expect(remaining(passedOn.headers)).toBe(1);
    expect(remaining((await countries()).headers)).toBe(0);
    expect(await repeatAnswers()).toBe(2);
    expect((await countries()).status).toBe(429);
  });

  it('count a failed key once per request against the address, on either path', async () => {
    const a = await start({ AUTH_FAILURE_LIMIT: '3' });
    const { key } = await a.customer();
    // The URL is now answered beneath the router for valid keys.
    await get('/api/v1/countries', { 'x-api-key': key });
    for (const bad of ['onair_nonsense', generateApiKey()]) {
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        statuses.push((await get('/api/v1/countries', { 'x-api-key': bad })).status);
      }
      // Counted twice, the second request would already be over the limit of 3.
      expect(statuses, bad).toEqual([401, 401, 401, 429]);
      a.clock.advance(10_000); // the next failed-auth window
    }
    expect(await repeatAnswers()).toBe(0);
  });

  it('count failed keys per forwarded address behind a trusted proxy, on either path', async () => {
    const a = await start({ AUTH_FAILURE_LIMIT: '2', TRUST_PROXY: 'true' });
    const { key } = await a.customer();
    // As the proxy sends it: what the client wrote (a new forged entry each time), then the
    // client's address as the proxy saw it.
    let forged = 0;
    const countries = (apiKey: string, from: string) =>
      get('/api/v1/countries', {
        'x-api-key': apiKey,
        'x-forwarded-for': `203.0.113.${++forged}, ${from}`,
      });
    await countries(key, '192.0.2.1');
    expect((await countries(key, '192.0.2.1')).status).toBe(200);
    expect(await repeatAnswers()).toBe(1);
    const bad = generateApiKey();
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await countries(bad, '192.0.2.7')).status);
    expect(statuses).toEqual([401, 401, 429]);
    expect((await countries(bad, '192.0.2.8')).status).toBe(401);
    // The route (inject) counts the same address.
    const routed = await a.inject({
      method: 'GET',
      url: '/api/v1/countries',
      headers: { 'x-api-key': bad, 'x-forwarded-for': '192.0.2.8' },
    });
    expect(routed.statusCode).toBe(401);
    expect((await countries(bad, '192.0.2.8')).status).toBe(429);
  });

  it('look the key up once when the store fails, and answer 503 as the route does', async () => {
    const a = await start();
    const { key } = await a.customer();
    await get('/api/v1/countries', { 'x-api-key': key });
    const store = a.temp.store;
    const versions = store.versions.bind(store);
    let reads = 0;
    store.versions = async () => {
      reads += 1;
      throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    };
    const failed = await get('/api/v1/countries', { 'x-api-key': key });
    store.versions = versions;
    expect(failed.status).toBe(503);
    expect(JSON.parse(failed.body.toString()).code).toBe('SERVICE_UNAVAILABLE');
    expect(failed.headers['retry-after']).toBe('1');
    expect(reads).toBe(1);
    expect((await get('/api/v1/countries', { 'x-api-key': key })).status).toBe(200);
    expect(await repeatAnswers()).toBe(1);
  });

  it('see a revoked key, a disabled account and a new catalogue on the next request', async () => {
    const a = await start();
    const { account, key } = await a.customer();
    const other = await a.createKey(account, 'second');
    const countries = async (k: string) => get('/api/v1/countries', { 'x-api-key': k });
    await countries(key);
    expect((await countries(key)).status).toBe(200);
    expect(await repeatAnswers()).toBe(1);

    const keys = await a.temp.store.accounts.listApiKeys(account.id);
    const first = keys.find((k) => k.name === 'test');
    if (first === undefined) throw new Error('the first key is missing');
    await a.temp.store.accounts.revokeApiKey(first.id, a.clock.ms);
    const revoked = await countries(key);
    expect(revoked.status).toBe(401);
    expect(JSON.parse(revoked.body.toString()).code).toBe('UNAUTHORIZED');
    expect((await countries(other)).status).toBe(200);
    expect(await repeatAnswers()).toBe(2);

    await seedCatalogue(a.temp.store, [{ xmltvId: 'eins.de', name: 'Das Erste', country: 'DE' }]);
    const changed = await countries(other);
    expect(JSON.parse(changed.body.toString()).countries).toContainEqual({
      country: 'DE',
      channelCount: 1,
    });
    expect(await repeatAnswers()).toBe(2);
    expect((await countries(other)).body.equals(changed.body)).toBe(true);
    expect(await repeatAnswers()).toBe(3);

    await a.temp.store.accounts.updateAccount(account.id, { disabled: true }, a.clock.ms);
    const disabled = await countries(other);
    expect(disabled.status).toBe(403);
    expect(JSON.parse(disabled.body.toString()).code).toBe('ACCOUNT_DISABLED');
    expect(await repeatAnswers()).toBe(3);
  });

  it('leave conditional, HEAD and keyless requests to the route', async () => {
    const { key } = await (await start()).customer();
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

  it('log one line per request on either path, with the same fields, never the key', async () => {
    const a = await start();
    const { account, key } = await a.customer();
    const answers = [
      await get('/api/v1/countries', { authorization: `Bearer ${key}` }),
      await get('/api/v1/countries', { authorization: `Bearer ${key}` }),
    ];
    expect(await repeatAnswers()).toBe(1);
    const lines = a
      .logs()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.req !== undefined || line.msg === 'incoming request');
    // The route's answer, then the one beneath it.
    expect(lines).toHaveLength(2);
    const [routed, repeated] = lines;
    expect(Object.keys(repeated ?? {}).sort()).toEqual(Object.keys(routed ?? {}).sort());
    for (const line of lines) {
      expect(line).toMatchObject({
        msg: 'request completed',
        level: 30,
        reqId: expect.stringMatching(/^req-/),
        req: { method: 'GET', url: '/api/v1/countries', remoteAddress: '127.0.0.1' },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
        accountId: account.id,
      });
    }
    // The route that answered, and the bytes sent (headers and body) on either path.
    expect(lines.map((line) => (line.req as { route?: string }).route)).toEqual([
      '/api/v1/countries',
      '/api/v1/countries',
    ]);
    expect(lines.map((line) => (line.res as { bytes: number }).bytes)).toEqual(
      answers.map((answer) => answer.wireBytes),
    );
    expect(repeated?.reqId).not.toBe(routed?.reqId);
    expect(a.logs()).not.toContain(key);
  });
});
