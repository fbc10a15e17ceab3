import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/accounts/account-service.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/deps.js';
import { generateApiKey } from '../../src/domain/api-key.js';
import { createLogger } from '../../src/logger.js';
import type { AccountStore } from '../../src/storage/account-store.js';
import type { Store } from '../../src/storage/store.js';
import { seedCatalogue } from '../helpers/catalogue-fixture.js';
import { TEST_ENGINE, openEngineStore, type EngineStore } from '../helpers/engines.js';
import { rawRequest } from '../helpers/raw-http.js';

/**
 * Keys are compared by hash lookup only: the plaintext key never reaches the store, whatever
 * the request. Unknown, revoked, malformed and missing keys get byte-identical 401 answers.
 * Every kind of response carries the security headers.
 */

let engine: EngineStore;
let app: FastifyInstance;
let services: Services;
/** Every argument the account store was called with, as JSON. */
const storeCalls: string[] = [];
let key: string;
let revokedKey: string;
let channelId: string;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The account store, recording what it is asked. */
function recording(accounts: AccountStore): AccountStore {
  return new Proxy(accounts, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        storeCalls.push(`${String(name)} ${JSON.stringify(args)}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

beforeAll(async () => {
  const now = Date.now();
  engine = await openEngineStore(TEST_ENGINE, now);
  channelId = (
    await seedCatalogue(engine.store, [{ xmltvId: 'one.uk', name: 'One', country: 'UK' }])
  ).channelIds.get('one.uk') as string;
  const account = await engine.store.accounts.createAccount(
    { email: 'k@example.com', verifiedAt: now, accessUntil: null, rateLimit: 100_000 },
    now,
  );
  key = (await issueApiKey(engine.store.accounts, account.id, 'live', now)).key;
  const revoked = await issueApiKey(engine.store.accounts, account.id, 'old', now);
  revokedKey = revoked.key;
  await engine.store.accounts.revokeApiKey(revoked.record.id, now);

  const store: Store = { ...engine.store, accounts: recording(engine.store.accounts) };
  const config = loadConfig({ DATABASE_URL: engine.databaseUrl, AUTH_FAILURE_LIMIT: '100000' });
  const logger = createLogger('warn', new Writable({ write: (_c, _e, done) => done() }));
  services = await createServices(config, store, logger);
  app = await buildApp({ config, store, now: () => Date.now(), ...services }, logger);
  await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app?.close();
  await services?.close();
  await engine?.dispose();
});

const get = (url: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url, headers });

describe('API keys are compared by hash lookup only', () => {
  it('the store never sees a key, only its SHA-256, whatever the key and wherever it is sent', async () => {
    storeCalls.length = 0;
    const other = generateApiKey();
    for (const [k, url] of [
      [key, '/api/v1/countries'],
      [revokedKey, '/api/v1/countries'],
      [other, '/api/v1/countries'],
      [key, `/api/v1/countries?api_key=${key}`],
      [key, `/api/v1/channels/search?q=${key}`],
      [key, `/api/v1/channels/${key}/programmes`],
    ] as const) {
      await get(url, { authorization: `Bearer ${k}` });
      await get(url, { 'x-api-key': k });
    }
    await services.usage.flush();
    const calls = storeCalls.join('\n');
    for (const secret of [key, revokedKey, other]) {
      expect(calls).not.toContain(secret);
      expect(calls).not.toContain(secret.slice(6, -4));
    }
    const lookups = storeCalls.filter((c) => c.startsWith('findKeyOwner '));
    expect(lookups).toContain(`findKeyOwner ${JSON.stringify([sha256(key)])}`);
    expect(lookups).toContain(`findKeyOwner ${JSON.stringify([sha256(revokedKey)])}`);
    expect(lookups).toContain(`findKeyOwner ${JSON.stringify([sha256(other)])}`);
    // One lookup per distinct key (the key-owner cache answers the repeats), and no other way in.
    expect(lookups).toHaveLength(3);
  });

  it('stores only the hash, the prefix and the last four characters', async () => {
    const rows = await engine.sql('SELECT * FROM api_keys');
    const row = rows.find((r) => r['key_hash'] === sha256(key));
    expect(row).toMatchObject({ prefix: key.slice(0, 10), last_four: key.slice(-4) });
    expect(JSON.stringify(rows)).not.toContain(key.slice(10, -4));
  });
});

describe('refused keys look alike', () => {
  it('unknown, revoked, malformed and missing keys: the same status, headers and bytes', async () => {
    const refused: Record<string, string>[] = [
      { authorization: `Bearer ${generateApiKey()}` },
      { authorization: `Bearer ${revokedKey}` },
      { 'x-api-key': revokedKey },
      { authorization: 'Bearer nonsense' },
      // The real key with its last character changed (never to the same one).
      { authorization: `Bearer ${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}` },
      {},
    ];
    const answers = await Promise.all(refused.map((headers) => get('/api/v1/countries', headers)));
    const shape = (res: (typeof answers)[number]) => {
      const headers = { ...res.headers };
      delete headers.date;
      return { status: res.statusCode, headers, body: res.body };
    };
    const first = shape(answers[0] as (typeof answers)[number]);
    expect(first.status).toBe(401);
    for (const answer of answers) expect(shape(answer)).toEqual(first);
  });
});

describe('security headers on every response', () => {
  function expectSecurityHeaders(headers: Record<string, unknown>, what: string) {
    expect(headers['x-content-type-options'], what).toBe('nosniff');
    expect(String(headers['content-security-policy']), what).toMatch(/frame-ancestors 'none'/);
    expect(headers['x-frame-options'], what).toMatch(/^(DENY|SAMEORIGIN)$/);
    expect(headers['referrer-policy'], what).toMatch(/^(no-referrer|same-origin)$/);
  }

  it('API answers of every status, ops endpoints, pages and assets', async () => {
    const bearer = { authorization: `Bearer ${key}` };
    const countries = await get('/api/v1/countries', bearer);
    const cases: [
      string,
      { method?: 'GET' | 'POST' | 'HEAD'; headers?: Record<string, string> },
      number,
    ][] = [
      ['/api/v1/countries', { headers: bearer }, 200],
      [
        '/api/v1/countries',
        { headers: { ...bearer, 'if-none-match': String(countries.headers.etag) } },
        304,
      ],
      ['/api/v1/countries', { method: 'HEAD', headers: bearer }, 200],
      [
        `/api/v1/channels/${channelId}/programmes?days=all`,
        { headers: { ...bearer, 'accept-encoding': 'br' } },
        200,
      ],
      ['/api/v1/countries', {}, 401],
      ['/api/v1/countries/U_K/channels', { headers: bearer }, 400],
      ['/api/v1/countries/%E0%A4%A/channels', { headers: bearer }, 400],
      ['/api/v1/channels/nope/programmes', { headers: bearer }, 404],
      ['/api/v1/countries', { method: 'POST', headers: bearer }, 405],
      ['/nowhere', {}, 404],
      ['/healthz', {}, 200],
      ['/readyz', {}, 200],
      ['/metrics', {}, 200],
      ['/', {}, 200],
      ['/signin', {}, 200],
      ['/account', {}, 303],
      ['/assets/onair.css', {}, 200],
    ];
    for (const [url, options, status] of cases) {
      const res = await app.inject({
        method: options.method ?? 'GET',
        url,
        headers: options.headers,
      });
      expect(res.statusCode, url).toBe(status);
      expectSecurityHeaders(res.headers, `${options.method ?? 'GET'} ${url}`);
    }
  });

  it('answers written on the raw socket (malformed request, oversized headers)', async () => {
    const port = (app.server.address() as AddressInfo).port;
    const malformed = await rawRequest(
      port,
      Buffer.from('GET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n'),
    );
    expect(malformed.status).toBe(400);
    expectSecurityHeaders(malformed.headers, 'malformed');
    const oversized = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/', headers: { 'x-big': 'x'.repeat(100_000) } },
        (res) => {
          res.resume();
          expect(res.statusCode).toBe(431);
          resolve(res.headers);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expectSecurityHeaders(oversized, 'oversized');
  });
});
