import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Static } from 'typebox';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
// The server, from the repository's sources: the client is tested against the real thing.
import { issueApiKey } from '../../../src/accounts/account-service.js';
import { loadConfig } from '../../../src/config.js';
import { seedDemo } from '../../../src/demo-seed.js';
import { formatXmltvUtc } from '../../../src/domain/xmltv-time.js';
import type {
  GuideChannelEntry as ServerGuideChannel,
  GuideResponse as ServerGuide,
  NowChannelEntry as ServerNowChannel,
  NowResponse as ServerNow,
} from '../../../src/http/schemas.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import {
  OnairClient,
  OnairError,
  type GuideChannel,
  type GuideResponse,
  type NowChannel,
  type NowResponse,
  type OnairErrorCode,
} from '../src/index.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const UNKNOWN = '6a3c1e9f-0000-5000-8000-000000000000';

let dir: string;
let server: RunningServer;
let key: string;
let onair: OnairClient;
/** The UK channel ids in the order of the country's channel list (the demo has three). */
let uk: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'onair-client-guide-'));
  server = await startServer(
    loadConfig({ DATABASE_URL: join(dir, 'onair.db'), PORT: '0', LOG_LEVEL: 'warn' }),
    { beforeListen: async (store) => void (await seedDemo(store, Date.now())) },
  );
  const now = Date.now();
  const account = await server.store.accounts.createAccount(
    { email: 'grid@example.com', verifiedAt: now, accessUntil: null, rateLimit: 1000 },
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

/** The route's own answer to `path`, fetched without the client. */
async function raw(path: string): Promise<unknown> {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.status, path).toBe(200);
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

/**
 * Tomorrow at 10:00 UTC: inside the demo guide's fortnight, and daytime in every UK demo
 * schedule, whatever the hour the test runs at (Kelpie Kids shows one programme from 19:00 to
 * 06:00 London time, which a 3-hour grid from now, in the evening, would hold alone).
 */
const daytime = () => new Date((Math.floor(Date.now() / DAY_MS) + 1) * DAY_MS + 10 * HOUR_MS);

/** The instant in the XMLTV form with a +02:00 offset: its `+` must reach the server intact. */
function xmltvPlusTwo(instant: Date): string {
  const local = formatXmltvUtc(instant.getTime() + 2 * HOUR_MS);
  return local.replace(' +0000', ' +0200');
}

describe('guide()', () => {
  it("answers a country's grid as the route does: its channels in list order, the window's programmes", async () => {
    const from = daytime();
    const grid = await onair.guide({ country: 'uk', from });
    expect(grid).toEqual(await raw(`/guide?country=uk&from=${from.toISOString()}`));
    expect(grid.from).toBe(formatXmltvUtc(from.getTime()));
    expect(grid.to).toBe(formatXmltvUtc(from.getTime() + 3 * HOUR_MS));
    expect(grid.channels.map((c) => c.channelId)).toEqual(uk);
    expect([grid.missing, grid.next]).toEqual([[], null]);
    for (const channel of grid.channels) {
      // The demo schedules run without gaps: the one running at `from` comes first.
      expect(channel.programmes.length, channel.name).toBeGreaterThan(1);
      expect((channel.programmes[0]?.start ?? grid.to) <= grid.from).toBe(true);
      for (const p of channel.programmes) {
        // Fixed-width UTC times compare as text.
        expect(p.start < grid.to && p.stop > grid.from, p.title).toBe(true);
        expect(p.channelId).toBe(channel.channelId);
      }
      const starts = channel.programmes.map((p) => p.start);
      expect(starts).toEqual([...starts].sort());
    }
  });

  it('pages a country with limit and offset; next is the next offset, null on the last page', async () => {
    const from = daytime();
    const second = await onair.guide({ country: 'UK', limit: 1, offset: 1, from });
    expect(second.channels.map((c) => c.channelId)).toEqual([uk[1]]);
    expect(second.next).toBe(2);
    const rest = await onair.guide({ country: 'UK', limit: 2, offset: 2, from });
    expect(rest.channels.map((c) => c.channelId)).toEqual([uk[2]]);
    expect(rest.next).toBeNull();
    expect((await onair.guide({ country: 'ZZ', from })).channels).toEqual([]);
  });

  it('answers channels in the order given, each once, and lists the unknown ones', async () => {
    const [kids, news, one] = uk as [string, string, string];
    const grid = await onair.guide({ channels: [one, news, one.toUpperCase(), UNKNOWN, kids] });
    expect(grid.channels.map((c) => c.channelId)).toEqual([one, news, kids]);
    expect([grid.missing, grid.next]).toEqual([[UNKNOWN], null]);
  });

  it('takes from as a Date, ISO 8601 or XMLTV text alike, and hours for the length', async () => {
    const from = daytime();
    const channels = uk.slice(0, 2);
    const byDate = await onair.guide({ channels, from, hours: 5 });
    expect(byDate.to).toBe(formatXmltvUtc(from.getTime() + 5 * HOUR_MS));
    for (const text of [from.toISOString(), formatXmltvUtc(from.getTime()), xmltvPlusTwo(from)]) {
      expect(await onair.guide({ channels, from: text, hours: 5 }), text).toEqual(byDate);
    }
    // One hour is the start of twelve: on a channel a long programme may fill both (a film
    // in the evening), not on every channel at once.
    const short = await onair.guide({ channels, from, hours: 1 });
    const long = await onair.guide({ channels, from, hours: 12 });
    const count = (grid: typeof short) =>
      grid.channels.reduce((sum, channel) => sum + channel.programmes.length, 0);
    for (const [i, channel] of short.channels.entries()) {
      const longer = long.channels[i]?.programmes ?? [];
      expect(channel.programmes).toEqual(longer.slice(0, channel.programmes.length));
    }
    expect(count(short)).toBeLessThan(count(long));
  });

  it('without from, is the three hours from the time of the request', async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const grid = await onair.guide({ channels: [uk[0] ?? ''] });
    const after = Date.now();
    const from = grid.from;
    expect(from >= formatXmltvUtc(before) && from <= formatXmltvUtc(after), from).toBe(true);
    const fromMs = Date.UTC(
      Number(from.slice(0, 4)),
      Number(from.slice(4, 6)) - 1,
      Number(from.slice(6, 8)),
      Number(from.slice(8, 10)),
      Number(from.slice(10, 12)),
      Number(from.slice(12, 14)),
    );
    expect(grid.to).toBe(formatXmltvUtc(fromMs + 3 * HOUR_MS));
    expect(grid.channels[0]?.programmes.length).toBeGreaterThan(0);
  });
});

describe('now()', () => {
  it('answers what runs at `at` and what follows, as the route and the detail route do', async () => {
    const at = daytime();
    const answer = await onair.now({ country: 'UK', at });
    expect(answer).toEqual(await raw(`/now?country=UK&at=${at.toISOString()}`));
    expect(answer.at).toBe(formatXmltvUtc(at.getTime()));
    expect(answer.channels.map((c) => c.channelId)).toEqual(uk);
    expect([answer.missing, answer.next]).toEqual([[], null]);
    for (const channel of answer.channels) {
      const { now, next } = channel;
      if (now === null || next === null) throw new Error(`${channel.name}: nothing now or next`);
      expect(now.start <= answer.at && answer.at < now.stop, now.title).toBe(true);
      // The demo schedules run back to back: next starts where now stops.
      expect(next.start).toBe(now.stop);
      expect(await onair.getProgramme(channel.channelId, now.id)).toEqual(now);
      expect(await onair.getProgramme(channel.channelId, next.id)).toEqual(next);
    }
  });

  it('selects and pages as guide() does, with at in any form or now by default', async () => {
    const at = daytime();
    const [kids, news] = uk as [string, string];
    const picked = await onair.now({ channels: [news, UNKNOWN, kids], at });
    expect(picked.channels.map((c) => c.channelId)).toEqual([news, kids]);
    expect(picked.missing).toEqual([UNKNOWN]);
    expect(await onair.now({ channels: [news, UNKNOWN, kids], at: xmltvPlusTwo(at) })).toEqual(
      picked,
    );
    const page = await onair.now({ country: 'uk', limit: 2, at });
    expect(page.channels.map((c) => c.channelId)).toEqual(uk.slice(0, 2));
    expect(page.next).toBe(2);
    const current = await onair.now({ channels: [news] });
    expect(current.channels[0]?.now).not.toBeNull();
  });
});

describe('guide() and now() requests', () => {
  it('send one request each, with the selection and a Date as ISO 8601', async () => {
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
    await counting.guide({ channels: uk, from, hours: 2 });
    await counting.now({ country: 'UK', limit: 2, offset: 1, at: '20260822083000 +0100' });
    expect(sent.map((url) => [url.pathname, Object.fromEntries(url.searchParams)])).toEqual([
      ['/api/v1/guide', { channels: uk.join(','), from: '2026-08-22T08:30:15.250Z', hours: '2' }],
      ['/api/v1/now', { country: 'UK', limit: '2', offset: '1', at: '20260822083000 +0100' }],
    ]);
  });

  it('throw OnairError with the code of every refusal; an invalid Date before any request', async () => {
    const cases: [Promise<unknown>, number, OnairErrorCode][] = [
      // @ts-expect-error -- both selections: the types allow one.
      [onair.guide({ country: 'UK', channels: uk }), 400, 'INVALID_PARAMETERS'],
      // @ts-expect-error -- neither.
      [onair.now({}), 400, 'INVALID_PARAMETERS'],
      // @ts-expect-error -- paging is for a country.
      [onair.now({ channels: uk, limit: 1 }), 400, 'INVALID_PARAMETERS'],
      [onair.guide({ channels: ['not-a-channel'] }), 400, 'INVALID_PARAMETERS'],
      [onair.guide({ channels: [] }), 400, 'INVALID_PARAMETERS'],
      [onair.guide({ country: 'UK', hours: 49 }), 400, 'INVALID_PARAMETERS'],
      [onair.guide({ country: 'UK', from: '2026-08-22T08:30:00' }), 400, 'INVALID_PARAMETERS'],
      [onair.now({ country: 'UK', limit: 501 }), 400, 'INVALID_PARAMETERS'],
      [onair.now({ country: 'U$' }), 400, 'INVALID_COUNTRY'],
    ];
    for (const [call, status, code] of cases) {
      const error = await failure(call);
      expect({ status: error.status, code: error.code }).toEqual({ status, code });
    }
    let requests = 0;
    const counting = new OnairClient({
      baseUrl: server.url,
      apiKey: key,
      fetch: (input, init) => {
        requests += 1;
        return fetch(input, init);
      },
    });
    expect(() => counting.now({ country: 'UK', at: new Date(Number.NaN) })).toThrow(
      /at is an invalid Date/,
    );
    expect(() => counting.guide({ country: 'UK', from: new Date('soon') })).toThrow(RangeError);
    expect(requests).toBe(0);
  });
});

describe('guide and now/next types', () => {
  it("equal the server's response schemas (checked by tsc in npm run lint)", () => {
    expectTypeOf<GuideResponse>().toEqualTypeOf<Static<typeof ServerGuide>>();
    expectTypeOf<GuideChannel>().toEqualTypeOf<Static<typeof ServerGuideChannel>>();
    expectTypeOf<NowResponse>().toEqualTypeOf<Static<typeof ServerNow>>();
    expectTypeOf<NowChannel>().toEqualTypeOf<Static<typeof ServerNowChannel>>();
  });
});
