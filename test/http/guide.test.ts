import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { formatXmltvUtc } from '../../src/domain/xmltv-time.js';
import { TEST_ENGINE } from '../helpers/engines.js';
import { createTestApp, TEST_NOW, type TestApp } from '../helpers/test-app.js';

/**
 * GET /api/v1/guide and GET /api/v1/now over a guide with programmes around "now" (TEST_NOW,
 * 10:30 UTC): running at the window's start, ending exactly at it, starting exactly at its end,
 * zero-length, overlapping, longer than a day, with times that do not parse. The expected
 * answers are worked out here from the rules of docs/api.md, programme by programme.
 */

const H = 3_600_000;
const NOW = TEST_NOW;
const DAY_START = NOW - 10.5 * H; // 00:00 UTC
const at = (hour: number) => formatXmltvUtc(DAY_START + hour * H);
const A = channelIdFor('alpha.uk');
const B = channelIdFor('beta.uk');
const G = channelIdFor('gamma.uk');
const D = channelIdFor('delta.ie');

const programme = (channel: string, title: string, start: string, stop: string) =>
  `<programme start="${start}" stop="${stop}" channel="${channel}"><title>${title}</title>` +
  `<sub-title>${title} sub</sub-title></programme>`;

const GUIDE = `<?xml version="1.0" encoding="UTF-8"?>
<tv>
<channel id="alpha.uk"><display-name>Alpha</display-name><icon src="https://img.example/a.png"/></channel>
<channel id="beta.uk"><display-name>Beta</display-name></channel>
<channel id="gamma.uk"><display-name>Gamma</display-name></channel>
<channel id="delta.ie"><display-name>Delta</display-name></channel>
${programme('alpha.uk', 'early', at(8), at(10.25))}
${programme('alpha.uk', 'ends at from', at(9.5), at(10.5))}
${programme('alpha.uk', 'running', at(10), at(11))}
${programme('alpha.uk', 'overlapping', at(10 + 1 / 3), at(10.75))}
${programme('alpha.uk', 'zero', at(11.25), at(11.25))}
${programme('alpha.uk', 'eleven', at(11), at(12))}
${programme('alpha.uk', 'unparsed stop', at(12), 'later')}
${programme('alpha.uk', 'starts at to', at(13.5), at(14))}
${programme('alpha.uk', 'unparsed start', 'soon', at(15))}
${programme('beta.uk', 'marathon', at(-10.5), at(37))}
${programme('beta.uk', 'starts at from', at(10.5), at(11.5))}
${programme('delta.ie', 'irish news', at(10), at(11))}
</tv>`;

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp({}, NOW);
  await ingestXmltv(
    t.temp.store.ingest,
    { name: 'guide.xml', data: Buffer.from(GUIDE) },
    { country: null, assumeOffsetMinutes: 0, nowMs: NOW },
  );
  key = (await t.customer()).key;
});

afterAll(async () => {
  await t?.close();
});

interface Entry {
  id: string;
  title: string;
  start: string;
  stop: string;
  subTitle: string;
  channelId: string;
}
interface GuideChannel {
  channelId: string;
  name: string;
  icon: string;
  country: string;
  needsReview: boolean;
  programmes: Entry[];
}
interface NowChannel {
  channelId: string;
  now: Entry | null;
  next: Entry | null;
}

async function json<T>(url: string) {
  const res = await t.get(url, key);
  return { status: res.statusCode, body: res.json() as T, res };
}

const titles = (c: GuideChannel | undefined) => c?.programmes.map((p) => p.title);

describe(`GET /api/v1/guide (${TEST_ENGINE})`, () => {
  it('answers a country’s channels in list order with the programmes of the next 3 hours', async () => {
    const { status, body } = await json<{
      from: string;
      to: string;
      channels: GuideChannel[];
      missing: string[];
      next: number | null;
    }>('/api/v1/guide?country=uk');
    expect(status).toBe(200);
    expect(body.from).toBe('20260822103000 +0000');
    expect(body.to).toBe('20260822133000 +0000');
    expect(body.channels.map((c) => c.name)).toEqual(['Alpha', 'Beta', 'Gamma']);
    expect(body.channels[0]).toMatchObject({
      channelId: A,
      icon: 'https://img.example/a.png',
      country: 'UK',
      // Inferred from the XMLTV id, so flagged for review.
      needsReview: true,
    });
    // Running at from, overlapping, zero-length inside, in start order (then id); out: ended
    // before or exactly at from, starting exactly at to, a start or stop that does not parse.
    expect(titles(body.channels[0])).toEqual(['running', 'overlapping', 'eleven', 'zero']);
    expect(titles(body.channels[1])).toEqual(['marathon', 'starts at from']);
    expect(titles(body.channels[2])).toEqual([]);
    expect(body.missing).toEqual([]);
    expect(body.next).toBeNull();
    // Rich entries: the detail route's answer for the same programme.
    const entry = body.channels[0]?.programmes[0];
    const detail = await json<{ programme: unknown }>(
      `/api/v1/channels/${A}/programmes/${entry?.id}`,
    );
    expect(entry).toEqual(detail.body.programme);
    expect(entry?.subTitle).toBe('running sub');
  });

  it('answers listed channels in the order given, each once, and names the missing ones', async () => {
    const unknown = channelIdFor('nowhere.uk');
    const { status, body } = await json<{ channels: GuideChannel[]; missing: string[] }>(
      `/api/v1/guide?channels=${B},${D.toUpperCase()},${B},${unknown}&hours=1`,
    );
    expect(status).toBe(200);
    expect(body.channels.map((c) => c.channelId)).toEqual([B, D]);
    expect(body.missing).toEqual([unknown]);
    expect(titles(body.channels[1])).toEqual(['irish news']);
  });

  it('takes `from` in the XMLTV form or ISO 8601, and `hours`', async () => {
    const xmltv = await json<{ from: string; to: string; channels: GuideChannel[] }>(
      `/api/v1/guide?channels=${A}&from=${encodeURIComponent('20260822123000 +0200')}&hours=1`,
    );
    expect(xmltv.status).toBe(200);
    expect(xmltv.body.from).toBe('20260822103000 +0000');
    expect(xmltv.body.to).toBe('20260822113000 +0000');
    expect(titles(xmltv.body.channels[0])).toEqual(['running', 'overlapping', 'eleven', 'zero']);
    const iso = await json<{ from: string; channels: GuideChannel[] }>(
      `/api/v1/guide?channels=${A}&from=2026-08-22T11:00:00Z&hours=48`,
    );
    expect(iso.body.from).toBe('20260822110000 +0000');
    expect(titles(iso.body.channels[0])).toEqual(['eleven', 'zero', 'starts at to']);
  });

  it('pages a country with limit and offset', async () => {
    const first = await json<{ channels: GuideChannel[]; next: number | null }>(
      '/api/v1/guide?country=UK&limit=2',
    );
    expect(first.body.channels.map((c) => c.name)).toEqual(['Alpha', 'Beta']);
    expect(first.body.next).toBe(2);
    const last = await json<{ channels: GuideChannel[]; next: number | null }>(
      '/api/v1/guide?country=UK&limit=2&offset=2',
    );
    expect(last.body.channels.map((c) => c.name)).toEqual(['Gamma']);
    expect(last.body.next).toBeNull();
    const beyond = await json<{ channels: GuideChannel[]; next: number | null }>(
      '/api/v1/guide?country=UK&offset=9',
    );
    expect(beyond.body).toMatchObject({ channels: [], next: null });
    const nowhere = await json<{ channels: GuideChannel[] }>('/api/v1/guide?country=XX');
    expect(nowhere.status).toBe(200);
    expect(nowhere.body.channels).toEqual([]);
  });

  it('refuses a wrong selection or window with 400 and a code', async () => {
    const ids101 = Array.from({ length: 101 }, (_, i) => channelIdFor(`c${i}.uk`)).join(',');
    const cases: [string, string][] = [
      ['', 'INVALID_PARAMETERS'],
      [`country=UK&channels=${A}`, 'INVALID_PARAMETERS'],
      ['channels=not-a-uuid', 'INVALID_PARAMETERS'],
      [`channels=${A},`, 'INVALID_PARAMETERS'],
      [`channels=${ids101}`, 'INVALID_PARAMETERS'],
      ['country=U_K', 'INVALID_COUNTRY'],
      ['country=UK&hours=0', 'INVALID_PARAMETERS'],
      ['country=UK&hours=49', 'INVALID_PARAMETERS'],
      ['country=UK&hours=2.5', 'INVALID_PARAMETERS'],
      ['country=UK&from=yesterday', 'INVALID_PARAMETERS'],
      ['country=UK&from=2026-08-22T11:00:00', 'INVALID_PARAMETERS'],
      ['country=UK&limit=0', 'INVALID_PARAMETERS'],
      ['country=UK&limit=501', 'INVALID_PARAMETERS'],
      ['country=UK&country=IE', 'INVALID_PARAMETERS'],
    ];
    for (const [query, code] of cases) {
      const res = await t.get(`/api/v1/guide?${query}`, key);
      expect(res.statusCode, query).toBe(400);
      expect(res.json(), query).toMatchObject({ code });
    }
    const hours = await t.get('/api/v1/guide?country=UK&hours=49', key);
    expect((hours.json() as { error: string }).error).toMatch(/hours/);
    // Without a key the key is what is wrong.
    expect((await t.get('/api/v1/guide?country=UK', null)).statusCode).toBe(401);
  });

  it('moves with the clock: read once per programme boundary, the instant written every second', async () => {
    const url = `/api/v1/guide?channels=${A}&hours=1`;
    const reads = vi.spyOn(t.temp.store.catalogue, 'programmesBetween');
    try {
      const first = await json<{ from: string; channels: GuideChannel[] }>(url);
      t.clock.advance(1000);
      const second = await json<{ from: string; channels: GuideChannel[] }>(url);
      expect(second.body.from).toBe('20260822103001 +0000');
      expect(second.body.channels).toEqual(first.body.channels);
      expect(reads).toHaveBeenCalledTimes(1);
      // 10:45: "overlapping" has stopped; read again.
      t.clock.advance(15 * 60_000 - 1000);
      const later = await json<{ from: string; channels: GuideChannel[] }>(url);
      expect(later.body.from).toBe('20260822104500 +0000');
      expect(titles(later.body.channels[0])).not.toContain('overlapping');
      expect(reads).toHaveBeenCalledTimes(2);
    } finally {
      reads.mockRestore();
      t.clock.ms = NOW;
    }
  });

  it('has an ETag (304 when unchanged) and answers HEAD; other methods 405', async () => {
    const url = `/api/v1/guide?channels=${A}&from=20260822103000%20%2B0000`;
    const res = await t.get(url, key);
    const again = await t.get(url, key, { 'if-none-match': String(res.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    const head = await t.inject({ method: 'HEAD', url, headers: { 'x-api-key': key } });
    expect(head.statusCode).toBe(200);
    const post = await t.inject({ method: 'POST', url, headers: { 'x-api-key': key } });
    expect(post.statusCode).toBe(405);
  });
});

describe(`GET /api/v1/now (${TEST_ENGINE})`, () => {
  it('answers what runs at now (the latest start of overlapping ones) and what starts next', async () => {
    const { status, body } = await json<{ at: string; channels: NowChannel[]; missing: [] }>(
      '/api/v1/now?country=UK',
    );
    expect(status).toBe(200);
    expect(body.at).toBe('20260822103000 +0000');
    const [alpha, beta, gamma] = body.channels;
    expect(alpha?.now?.title).toBe('overlapping');
    expect(alpha?.next?.title).toBe('eleven');
    // Started exactly at `at`: on now, over the marathon that started the day before.
    expect(beta?.now?.title).toBe('starts at from');
    expect(beta?.next).toBeNull();
    expect(gamma).toMatchObject({ now: null, next: null });
  });

  it('takes `at`, and a programme stopping exactly at it is over', async () => {
    const { body } = await json<{ at: string; channels: NowChannel[] }>(
      `/api/v1/now?channels=${A},${B}&at=2026-08-22T10:45:00%2B00:00`,
    );
    expect(body.at).toBe('20260822104500 +0000');
    expect(body.channels[0]?.now?.title).toBe('running');
    expect(body.channels[1]?.now?.title).toBe('starts at from');
    const late = await json<{ channels: NowChannel[] }>(
      `/api/v1/now?channels=${B}&at=20260822113000%20%2B0000`,
    );
    // "starts at from" stopped at 11:30; the marathon still runs.
    expect(late.body.channels[0]?.now?.title).toBe('marathon');
    const bad = await t.get(`/api/v1/now?channels=${B}&at=soon`, key);
    expect(bad.statusCode).toBe(400);
    expect((bad.json() as { error: string }).error).toMatch(/\bat\b/);
  });

  it('counts one request against the budget, as every v1 route', async () => {
    const { key: limited } = await t.customer('budget@example.com', { rateLimit: 3 });
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await t.get('/api/v1/now?country=UK', limited)).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('places programmes the guide gave no stop until the next one, in now/next and the grid', async () => {
    const E = channelIdFor('epsilon.uk');
    const open = (title: string, start: string) =>
      `<programme start="${start}" channel="epsilon.uk"><title>${title}</title></programme>`;
    await ingestXmltv(
      t.temp.store.ingest,
      {
        name: 'epsilon.xml',
        data: Buffer.from(
          `<tv>${open('film', at(9))}${open('late show', at(11))}${open('last', at(13))}</tv>`,
        ),
      },
      { country: 'UK', assumeOffsetMinutes: 0, nowMs: NOW },
    );
    const now = await json<{ channels: NowChannel[] }>(`/api/v1/now?channels=${E}`);
    expect([now.body.channels[0]?.now?.title, now.body.channels[0]?.next?.title]).toEqual([
      'film',
      'late show',
    ]);
    // Its entry says what the guide said: no stop.
    expect(now.body.channels[0]?.now?.stop).toBe('');
    const grid = await json<{ channels: { programmes: { title: string }[] }[] }>(
      `/api/v1/guide?channels=${E}&from=${encodeURIComponent(at(10))}&hours=4`,
    );
    // The last has nothing to end at.
    expect(grid.body.channels[0]?.programmes.map((p) => p.title)).toEqual(['film', 'late show']);
  });

  it('sees a new ingest at once', async () => {
    const url = `/api/v1/now?channels=${G}`;
    expect((await json<{ channels: NowChannel[] }>(url)).body.channels[0]?.now).toBeNull();
    await ingestXmltv(
      t.temp.store.ingest,
      {
        name: 'gamma.xml',
        data: Buffer.from(`<tv>${programme('gamma.uk', 'fresh', at(10), at(12))}</tv>`),
      },
      { country: 'UK', assumeOffsetMinutes: 0, nowMs: NOW },
    );
    expect((await json<{ channels: NowChannel[] }>(url)).body.channels[0]?.now?.title).toBe(
      'fresh',
    );
  });
});
