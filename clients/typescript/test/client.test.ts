import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Static } from 'typebox';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
// The server, from the repository's sources: the client is tested against the real thing.
import { issueApiKey } from '../../../src/accounts/account-service.js';
import { loadConfig } from '../../../src/config.js';
import { seedDemo } from '../../../src/demo-seed.js';
import type { ApiErrorCode } from '../../../src/http/openapi/operation-docs.js';
import type {
  ChannelsResponse as ServerChannels,
  CountriesResponse as ServerCountries,
  ProgrammeResponse as ServerProgramme,
  ProgrammesResponse as ServerProgrammes,
  RichProgrammeEntry as ServerRichProgramme,
  SearchResponse as ServerSearch,
} from '../../../src/http/schemas.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import type { Store } from '../../../src/storage/store.js';
import {
  OnairClient,
  OnairError,
  type ChannelsResponse,
  type CountriesResponse,
  type OnairErrorCode,
  type ProgrammeResponse,
  type ProgrammesResponse,
  type RetryInfo,
  type RichProgramme,
  type SearchResponse,
} from '../src/index.js';

let dir: string;
/** Two deployments of one service: their own base URLs, the same database and keys. */
let deploymentA: RunningServer;
let deploymentB: RunningServer;
let key: string;
let channelId: string;

async function customerKey(store: Store, email: string, rateLimit: number | null, verified = true) {
  const now = Date.now();
  const account = await store.accounts.createAccount(
    { email, verifiedAt: verified ? now : null, accessUntil: null, rateLimit },
    now,
  );
  return (await issueApiKey(store.accounts, account.id, 'client test', now)).key;
}

function start(name: string): Promise<RunningServer> {
  return startServer(
    loadConfig({ DATABASE_URL: join(dir, 'onair.db'), PORT: '0', LOG_LEVEL: 'warn' }),
    {
      beforeListen: async (store) => void (name === 'A' ? await seedDemo(store, Date.now()) : null),
    },
  );
}

/** Resolves just after the next whole second, when a fresh 1-second rate window opens. */
const nextRateWindow = () =>
  new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'onair-client-'));
  deploymentA = await start('A');
  deploymentB = await start('B');
  key = await customerKey(deploymentA.store, 'client@example.com', 1000);
  const uk = await (
    await fetch(`${deploymentA.url}/api/v1/countries/UK/channels`, {
      headers: { authorization: `Bearer ${key}` },
    })
  ).json();
  channelId = (uk as ServerChannelsBody).channels[0]?.id ?? '';
});

afterAll(async () => {
  await deploymentA?.close();
  await deploymentB?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type ServerChannelsBody = Static<typeof ServerChannels>;

async function raw(base: string, path: string): Promise<unknown> {
  const res = await fetch(`${base}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return res.json();
}

/** The failure a call ends with. */
async function failure(call: Promise<unknown>): Promise<OnairError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OnairError);
  return error as OnairError;
}

describe('OnairClient', () => {
  it('calls the four routes and returns their answers as they are', async () => {
    const onair = new OnairClient({ baseUrl: deploymentA.url, apiKey: key });
    expect(await onair.listCountries()).toEqual(await raw(deploymentA.url, '/countries'));
    const uk = await onair.listChannels('uk');
    expect(uk).toEqual(await raw(deploymentA.url, '/countries/uk/channels'));
    expect(uk.channels.map((c) => c.name)).toContain('Onair News');
    const found = await onair.searchChannels('télé', { country: 'FR' });
    expect(found.results.map((r) => r.name)).toEqual(['Télé Lumière']);
    expect(await onair.searchChannels('  ')).toEqual({ results: [] });
    for (const days of [undefined, 1, 'today', 'tomorrow', 'yesterday', 'all'] as const) {
      const schedule = await onair.listProgrammes(channelId, { days });
      const query = days === undefined ? '' : `?days=${days}`;
      expect(schedule).toEqual(
        await raw(deploymentA.url, `/channels/${channelId}/programmes${query}`),
      );
    }
    expect(
      (await onair.listProgrammes(channelId, { days: 'today' })).programmes.length,
    ).toBeGreaterThan(5);
  });

  it("gets a programme in full: the detail route's entry, its schedule fields unchanged", async () => {
    const onair = new OnairClient({ baseUrl: deploymentA.url, apiKey: key });
    const { programmes } = await onair.listProgrammes(channelId, { days: 'today' });
    for (const entry of programmes) {
      const programme = await onair.getProgramme(channelId, entry.id);
      const route = `/channels/${channelId}/programmes/${entry.id}`;
      expect({ programme }).toEqual(await raw(deploymentA.url, route));
      expect(programme).toMatchObject({ ...entry, channelId });
    }
    // The demo guide's richest show: its details come through typed.
    const { programmes: all } = await onair.listProgrammes(channelId, { days: 'all' });
    const garden = all.find((p) => p.title === 'Garden Rescue');
    expect(garden).toBeDefined();
    const rich: RichProgramme = await onair.getProgramme(channelId, garden?.id ?? '');
    expect(rich.episodeNumber).toMatchObject({ season: 3, episodes: 13, part: null });
    expect(rich.episodeNumber?.episode).toBeGreaterThanOrEqual(1);
    expect(rich.credits).toEqual([
      { role: 'presenter', name: 'Ada Moss', character: '' },
      { role: 'guest', name: 'Ben Thorn', character: '' },
    ]);
    expect(rich.images).toEqual(['https://img.onair.example/garden-rescue.jpg']);
    expect(rich.lengthSeconds).toBe(3600);
    expect(rich.ratings).toEqual([{ system: 'BBFC', value: 'U' }]);
  });

  it('encodes the ids it is given, so any text reaches the route as one segment', async () => {
    const onair = new OnairClient({ baseUrl: deploymentA.url, apiKey: key });
    const { programmes } = await onair.listProgrammes(channelId, { days: 'all' });
    const first = programmes[0]?.id ?? '';
    // "a/b" and "?x" would be another path or a query if sent as they are.
    for (const programmeId of ['a/b', '?x', '../programmes', `${first}/`, ' ']) {
      const error = await failure(onair.getProgramme(channelId, programmeId));
      expect([programmeId, error.status, error.code]).toEqual([
        programmeId,
        404,
        'PROGRAMME_NOT_FOUND',
      ]);
    }
  });

  it('works the same with either deployment, and either way of writing its base URL', async () => {
    const a = new OnairClient({ baseUrl: deploymentA.url, apiKey: key });
    for (const baseUrl of [deploymentB.url, `${deploymentB.url}/`, `${deploymentB.url}/api/v1/`]) {
      const b = new OnairClient({ baseUrl, apiKey: key });
      expect(b.baseUrl).toBe(deploymentB.url);
      expect(await b.listCountries()).toEqual(await a.listCountries());
      expect(await b.listProgrammes(channelId, { days: 'all' })).toEqual(
        await a.listProgrammes(channelId, { days: 'all' }),
      );
    }
    expect(deploymentB.url).not.toBe(deploymentA.url);
  });

  it('sends the key as X-API-Key when asked', async () => {
    const onair = new OnairClient({ baseUrl: deploymentB.url, apiKey: key, auth: 'x-api-key' });
    expect((await onair.listCountries()).countries.length).toBeGreaterThan(0);
  });

  it('throws OnairError with the status and code of every refusal', async () => {
    const onair = new OnairClient({ baseUrl: deploymentA.url, apiKey: key });
    const cases: [Promise<unknown>, number, OnairErrorCode][] = [
      [
        new OnairClient({ baseUrl: deploymentA.url, apiKey: 'onair_nope' }).listCountries(),
        401,
        'UNAUTHORIZED',
      ],
      [onair.listChannels('U$'), 400, 'INVALID_COUNTRY'],
      [onair.listProgrammes(channelId, { days: 0 }), 400, 'INVALID_DAYS'],
      [onair.listProgrammes('6a3c1e9f-0000-5000-8000-000000000000'), 404, 'CHANNEL_NOT_FOUND'],
      [onair.searchChannels('a', { country: 'x'.repeat(17) }), 400, 'INVALID_COUNTRY'],
      [onair.getProgramme('6a3c1e9f-0000-5000-8000-000000000000', '1'), 404, 'CHANNEL_NOT_FOUND'],
      [onair.getProgramme(channelId, '1'), 404, 'PROGRAMME_NOT_FOUND'],
      [onair.getProgramme(channelId, 'not-an-id'), 404, 'PROGRAMME_NOT_FOUND'],
    ];
    for (const [call, status, code] of cases) {
      const error = await failure(call);
      expect({ status: error.status, code: error.code }).toEqual({ status, code });
      expect(error.message.length).toBeGreaterThan(0);
      expect(error.name).toBe('OnairError');
    }
    const unverified = await customerKey(deploymentA.store, 'new@example.com', null, false);
    const refused = await failure(
      new OnairClient({ baseUrl: deploymentB.url, apiKey: unverified }).listCountries(),
    );
    expect([refused.status, refused.code]).toEqual([403, 'EMAIL_NOT_VERIFIED']);
  });

  it('without retry, a 429 is thrown with its Retry-After', async () => {
    const slowKey = await customerKey(deploymentA.store, 'slow@example.com', 1);
    const onair = new OnairClient({ baseUrl: deploymentA.url, apiKey: slowKey });
    await nextRateWindow();
    await onair.listCountries();
    const limited = await failure(onair.listCountries());
    expect([limited.status, limited.code]).toEqual([429, 'RATE_LIMITED']);
    expect(limited.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('keeps the budget the last answer told (its RateLimit header), a 429 included', async () => {
    const pacedKey = await customerKey(deploymentA.store, 'paced@example.com', 2);
    const onair = new OnairClient({ baseUrl: deploymentA.url, apiKey: pacedKey });
    expect(onair.rateLimit).toBeNull();
    await nextRateWindow();
    const before = Date.now();
    await onair.listCountries();
    expect(onair.rateLimit).toMatchObject({ limit: 2, remaining: 1 });
    expect(onair.rateLimit?.resetSeconds).toBeGreaterThanOrEqual(0);
    expect(onair.rateLimit?.resetSeconds).toBeLessThanOrEqual(1);
    expect(onair.rateLimit?.receivedAt).toBeGreaterThanOrEqual(before);
    await onair.listCountries();
    expect(onair.rateLimit).toMatchObject({ limit: 2, remaining: 0 });
    expect((await failure(onair.listCountries())).code).toBe('RATE_LIMITED');
    expect(onair.rateLimit).toMatchObject({ limit: 2, remaining: 0 });
  });

  it('with retry, waits as Retry-After says and then succeeds; on either deployment', async () => {
    const slowKey = await customerKey(deploymentA.store, 'patient@example.com', 1);
    const retries: RetryInfo[] = [];
    const onair = new OnairClient({
      baseUrl: deploymentB.url,
      apiKey: slowKey,
      retry: { retries: 2, onRetry: (info) => retries.push(info) },
    });
    await nextRateWindow();
    await onair.listCountries();
    const answer = await onair.listCountries();
    expect(answer.countries.length).toBeGreaterThan(0);
    expect(retries.length).toBe(1);
    expect(retries[0]?.error.code).toBe('RATE_LIMITED');
    // Retry-After's wait, and up to a second more at random (its window): clients refused
    // together do not all come back at once.
    const told = (retries[0]?.error.retryAfterSeconds ?? 0) * 1000;
    expect(retries[0]?.delayMs).toBeGreaterThanOrEqual(told);
    expect(retries[0]?.delayMs).toBeLessThanOrEqual(told + 1000);
  });

  it('spreads a Retry-After wait by up to a second, never past maxDelayMs', async () => {
    const slowKey = await customerKey(deploymentA.store, 'spread@example.com', 1);
    const waits: number[] = [];
    const onair = new OnairClient({
      baseUrl: deploymentA.url,
      apiKey: slowKey,
      retry: { retries: 1, maxDelayMs: 1000, onRetry: (info) => waits.push(info.delayMs) },
    });
    await nextRateWindow();
    await Promise.all(Array.from({ length: 6 }, () => onair.listCountries().catch(() => null)));
    // Five were refused with Retry-After: 1 and waited, each at most maxDelayMs.
    expect(waits.length).toBeGreaterThan(0);
    for (const wait of waits) expect(wait).toBeLessThanOrEqual(1000);
  });

  it('spreads its waits at random unless told not to', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const delays = async (jitter: boolean) => {
      const seen: number[] = [];
      const onair = new OnairClient({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: key,
        retry: { retries: 1, jitter, onRetry: (info) => seen.push(info.delayMs) },
      });
      await failure(onair.listCountries());
      return seen[0] ?? Number.NaN;
    };
    // A back-off of 250 ms taken between its half and its whole; not the same every time.
    const spread = await Promise.all(Array.from({ length: 8 }, () => delays(true)));
    for (const delay of spread) {
      expect(delay).toBeGreaterThanOrEqual(125);
      expect(delay).toBeLessThanOrEqual(250);
    }
    expect(new Set(spread).size).toBeGreaterThan(1);
    expect(await delays(false)).toBe(250);
  });

  it('does not wait longer than maxDelayMs: it throws instead', async () => {
    const slowKey = await customerKey(deploymentA.store, 'hurried@example.com', 1);
    const retries: RetryInfo[] = [];
    const onair = new OnairClient({
      baseUrl: deploymentA.url,
      apiKey: slowKey,
      retry: { retries: 3, maxDelayMs: 500, onRetry: (info) => retries.push(info) },
    });
    await nextRateWindow();
    await onair.listCountries();
    expect((await failure(onair.listCountries())).code).toBe('RATE_LIMITED');
    expect(retries).toEqual([]);
  });

  it('retries a failed connection, then reports NETWORK_ERROR', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const retries: RetryInfo[] = [];
    const onair = new OnairClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: key,
      retry: { retries: 2, jitter: false, onRetry: (info) => retries.push(info) },
    });
    const error = await failure(onair.listCountries());
    expect([error.status, error.code]).toEqual([0, 'NETWORK_ERROR']);
    expect(retries.map((r) => r.delayMs)).toEqual([250, 500]);
  });

  describe('with a server that is not Onair', () => {
    let other: Server;
    let url: string;
    beforeAll(async () => {
      other = createServer((request, response) => {
        if (request.url?.includes('slow')) return; // never answers
        if (request.url?.includes('stalls') || request.url?.includes('cut')) {
          // Headers and the start of a body, then nothing more, or the connection dropped.
          response.writeHead(200, { 'content-type': 'application/json', 'content-length': 100 });
          response.write('{"countries":[');
          if (request.url.includes('cut')) setTimeout(() => response.destroy(), 20);
          return;
        }
        response.writeHead(502, { 'content-type': 'text/html', 'retry-after': '7' });
        response.end('<h1>Bad gateway</h1>');
      });
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    });
    afterAll(async () => {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    });

    it('reports an answer that is not the API JSON as UNEXPECTED_RESPONSE', async () => {
      const error = await failure(new OnairClient({ baseUrl: url, apiKey: key }).listCountries());
      expect([error.status, error.code, error.retryAfterSeconds]).toEqual([
        502,
        'UNEXPECTED_RESPONSE',
        7,
      ]);
      expect(error.message).toContain('Bad gateway');
    });

    it('gives up after timeoutMs with TIMEOUT, and stops at once when the caller aborts', async () => {
      const onair = new OnairClient({ baseUrl: `${url}/slow`, apiKey: key, timeoutMs: 200 });
      const error = await failure(onair.listCountries());
      expect([error.status, error.code]).toEqual([0, 'TIMEOUT']);
      const controller = new AbortController();
      const call = new OnairClient({ baseUrl: `${url}/slow`, apiKey: key }).listCountries({
        signal: controller.signal,
      });
      controller.abort(new Error('caller gave up'));
      await expect(call).rejects.toThrow('caller gave up');
    });

    it('reports a body that stalls as TIMEOUT and one cut short as NETWORK_ERROR, retried', async () => {
      const stalled = await failure(
        new OnairClient({ baseUrl: `${url}/stalls`, apiKey: key, timeoutMs: 200 }).listCountries(),
      );
      expect([stalled.status, stalled.code]).toEqual([0, 'TIMEOUT']);
      expect(stalled.message).toMatch(/^No complete answer from .* within 200 ms$/);
      const retries: RetryInfo[] = [];
      const cut = await failure(
        new OnairClient({
          baseUrl: `${url}/cut`,
          apiKey: key,
          retry: { retries: 1, onRetry: (info) => retries.push(info) },
        }).listCountries(),
      );
      expect([cut.status, cut.code]).toEqual([0, 'NETWORK_ERROR']);
      expect(cut.message).toMatch(/^The answer from .* was cut short$/);
      expect(retries).toHaveLength(1);
    });
  });

  it('refuses a base URL that is not http(s), and a missing key', () => {
    expect(() => new OnairClient({ baseUrl: 'api.example.com', apiKey: key })).toThrow(TypeError);
    expect(() => new OnairClient({ baseUrl: 'ftp://example.com', apiKey: key })).toThrow(
      /http\(s\)/,
    );
    expect(() => new OnairClient({ baseUrl: deploymentA.url, apiKey: ' ' })).toThrow(/apiKey/);
  });

  it('is what the package exports once built', async () => {
    const built = await import('@onair/client');
    expect(typeof built.OnairClient).toBe('function');
    expect(new built.OnairClient({ baseUrl: deploymentA.url, apiKey: key })).toBeInstanceOf(
      built.OnairClient,
    );
  });
});

describe('client types', () => {
  it("match the server's response schemas and error codes (checked by tsc in npm run lint)", () => {
    expectTypeOf<CountriesResponse>().toEqualTypeOf<Static<typeof ServerCountries>>();
    expectTypeOf<ChannelsResponse>().toEqualTypeOf<Static<typeof ServerChannels>>();
    expectTypeOf<SearchResponse>().toEqualTypeOf<Static<typeof ServerSearch>>();
    expectTypeOf<ProgrammesResponse>().toEqualTypeOf<Static<typeof ServerProgrammes>>();
    expectTypeOf<ProgrammeResponse>().toEqualTypeOf<Static<typeof ServerProgramme>>();
    expectTypeOf<RichProgramme>().toEqualTypeOf<Static<typeof ServerRichProgramme>>();
    expectTypeOf<ApiErrorCode>().toExtend<OnairErrorCode>();
  });
});
