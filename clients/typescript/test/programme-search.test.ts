import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Static } from 'typebox';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
// The server, from the repository's sources: the client is tested against the real thing.
import { issueApiKey } from '../../../src/accounts/account-service.js';
import { loadConfig } from '../../../src/config.js';
import { seedDemo } from '../../../src/demo-seed.js';
import type { ProgrammeSearchResponse as ServerSearch } from '../../../src/http/schemas.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import {
  OnairClient,
  OnairError,
  type OnairErrorCode,
  type ProgrammeSearchResponse,
} from '../src/index.js';

let dir: string;
let server: RunningServer;
let key: string;
let onair: OnairClient;
let uk: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'onair-client-search-'));
  server = await startServer(
    loadConfig({ DATABASE_URL: join(dir, 'onair.db'), PORT: '0', LOG_LEVEL: 'warn' }),
    { beforeListen: async (store) => void (await seedDemo(store, Date.now())) },
  );
  const now = Date.now();
  const account = await server.store.accounts.createAccount(
    { email: 'search@example.com', verifiedAt: now, accessUntil: null, rateLimit: 1000 },
    now,
  );
  key = (await issueApiKey(server.store.accounts, account.id, 'client test', now)).key;
  onair = new OnairClient({ baseUrl: server.url, apiKey: key });
  uk = (await onair.listChannels('UK')).channels.map((c) => c.id);
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A whole minute near now, inside the demo guide's fortnight. */
const aMinuteAgo = () => new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000);

describe('searchProgrammes()', () => {
  it('answers as the route does: matches by word, by start, each a full programme', async () => {
    const from = aMinuteAgo();
    const answer = await onair.searchProgrammes('GARDEN res', { from, limit: 5 });
    const res = await fetch(
      `${server.url}/api/v1/programmes/search?q=GARDEN%20res&from=${from.toISOString()}&limit=5`,
      { headers: { authorization: `Bearer ${key}` } },
    );
    expect(answer).toEqual(await res.json());
    expect(answer.results).toHaveLength(5);
    for (const { channel, programme } of answer.results) {
      expect(programme.title).toBe('Garden Rescue');
      expect(programme.channelId).toBe(channel.channelId);
    }
    const starts = answer.results.map((r) => r.programme.start);
    expect(starts).toEqual([...starts].sort());
    expect(answer.next).toEqual(expect.any(String));
  });

  it('pages with next as cursor: the pages join up to one longer answer', async () => {
    const from = aMinuteAgo();
    const options = { country: 'uk', from, to: new Date(from.getTime() + 2 * 86_400_000) };
    const whole = await onair.searchProgrammes('news', { ...options, limit: 6 });
    const first = await onair.searchProgrammes('news', { ...options, limit: 3 });
    const second = await onair.searchProgrammes('news', {
      ...options,
      limit: 3,
      cursor: first.next ?? '',
    });
    expect([...first.results, ...second.results]).toEqual(whole.results);
    const picked = await onair.searchProgrammes('news', { ...options, channels: uk.slice(0, 1) });
    expect(new Set(picked.results.map((r) => r.channel.channelId))).toEqual(
      new Set(uk.slice(0, 1)),
    );
    expect(await onair.searchProgrammes('   ')).toEqual({ results: [], next: null });
  });

  it('sends the options as the route reads them, in one request', async () => {
    const sent: URL[] = [];
    const counting = new OnairClient({
      baseUrl: server.url,
      apiKey: key,
      fetch: (input, init) => {
        sent.push(new URL(String(input)));
        return fetch(input, init);
      },
    });
    const from = new Date(Date.UTC(2026, 7, 22, 8, 30, 15, 250));
    await counting.searchProgrammes('star tre', {
      country: 'UK',
      channels: uk,
      from,
      to: '20260823083000 +0100',
      limit: 7,
    });
    expect(sent.map((url) => [url.pathname, Object.fromEntries(url.searchParams)])).toEqual([
      [
        '/api/v1/programmes/search',
        {
          q: 'star tre',
          country: 'UK',
          channels: uk.join(','),
          from: '2026-08-22T08:30:15.250Z',
          to: '20260823083000 +0100',
          limit: '7',
        },
      ],
    ]);
  });

  it('throws OnairError with the code of every refusal', async () => {
    const cases: [Promise<unknown>, OnairErrorCode][] = [
      [onair.searchProgrammes('news', { country: 'U$' }), 'INVALID_COUNTRY'],
      [onair.searchProgrammes('news', { limit: 0 }), 'INVALID_PARAMETERS'],
      [onair.searchProgrammes('news', { cursor: 'nope' }), 'INVALID_PARAMETERS'],
      [onair.searchProgrammes('news', { to: '2026-08-22T08:30:00' }), 'INVALID_PARAMETERS'],
    ];
    for (const [call, code] of cases) {
      const error = await call.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OnairError);
      expect({ status: (error as OnairError).status, code: (error as OnairError).code }).toEqual({
        status: 400,
        code,
      });
    }
  });

  it("has the server's response type (checked by tsc in npm run lint)", () => {
    expectTypeOf<ProgrammeSearchResponse>().toEqualTypeOf<Static<typeof ServerSearch>>();
  });
});
