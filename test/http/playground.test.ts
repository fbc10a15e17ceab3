import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detailsOf, encodeDetails } from '../../src/domain/programme-details.js';
import { DAY_MS } from '../../src/domain/schedule-window.js';
import type { XmltvElement } from '../../src/domain/xmltv-element.js';
import {
  PREVIEW_HEADER,
  PREVIEW_NOTICE,
  PreviewChannelsResponse,
  PreviewCountriesResponse,
  PreviewGuideResponse,
  PreviewNowResponse,
  PreviewProgrammeResponse,
  PreviewProgrammeSearchResponse,
  PreviewProgrammesResponse,
  PreviewSearchResponse,
} from '../../src/http/playground/playground-routes.js';
import { seedCatalogue } from '../helpers/catalogue-fixture.js';
import { createTestApp, TEST_NOW, type TestApp } from '../helpers/test-app.js';

const TODAY = Date.UTC(2026, 7, 22);
const API = '/playground/api';
let t: TestApp;
let ids: Map<string, string>;
let key: string;

/** A programme on each day around now, and one whose start does not parse. */
function daysOf(channel: string) {
  return [
    { channel, startMs: TODAY - DAY_MS + 3_600_000, title: `${channel} yesterday` },
    { channel, startMs: TODAY + 3_600_000, title: `${channel} today early` },
    { channel, startMs: TODAY + 20 * 3_600_000, title: `${channel} today late` },
    { channel, startMs: TODAY + DAY_MS + 3_600_000, title: `${channel} tomorrow` },
    { channel, startMs: TODAY + 2 * DAY_MS + 3_600_000, title: `${channel} day after` },
    { channel, rawStart: 'sometime', title: `${channel} unparsed` },
  ];
}

const el = (
  name: string,
  text: string,
  attributes: [string, string][] = [],
  children: XmltvElement[] = [],
): XmltvElement => ({ name, text, attributes, children });

/** The rich data of "news.uk today early", as the ingest would store it. */
const RICH_TITLE = 'news.uk today early';
const richDetails = encodeDetails(
  detailsOf(
    [
      el('title', RICH_TITLE, [['lang', 'en']]),
      el('sub-title', 'The <Orchard> & "more"', [['lang', 'en']]),
      el(
        'credits',
        '',
        [],
        [el('presenter', 'Ada Moss'), el('actor', 'Nico', [['role', 'Reyes']])],
      ),
      el('episode-num', '2.4/13.', [['system', 'xmltv_ns']]),
      el('new', ''),
    ],
    (text) => text,
  ),
  { title: RICH_TITLE, desc: '', categories: [] },
);

beforeAll(async () => {
  t = await createTestApp({ PLAYGROUND_LIMIT: '1000' });
  ({ channelIds: ids } = await seedCatalogue(
    t.temp.store,
    [
      { xmltvId: 'news.uk', name: 'Onair News', country: 'UK' },
      { xmltvId: 'kids.uk', name: 'Kelpie Kids', country: 'UK' },
      { xmltvId: 'tele.fr', name: 'Télé Lumière', country: 'FR' },
      { xmltvId: 'hidden.uk', name: 'Hidden News', country: 'UK' },
    ],
    ['news.uk', 'kids.uk', 'tele.fr', 'hidden.uk']
      .flatMap(daysOf)
      .map((p) => (p.title === RICH_TITLE ? { ...p, details: richDetails } : p)),
  ));
  for (const xmltvId of ['news.uk', 'kids.uk', 'tele.fr']) {
    expect(await t.temp.store.playground.add(ids.get(xmltvId) ?? '', TEST_NOW)).toBe('added');
  }
  key = (await t.customer()).key;
});

afterAll(async () => {
  await t?.close();
});

const id = (xmltvId: string) => ids.get(xmltvId) ?? '';

/** A playground answer: checks the preview header on every one, and the body of every 200. */
async function preview(url: string, schema?: TSchema, remoteAddress = '127.0.0.1') {
  const res = await t.inject({ method: 'GET', url: `${API}${url}`, remoteAddress });
  expect(res.headers[PREVIEW_HEADER.toLowerCase()], url).toBe('true');
  const body = res.json();
  if (res.statusCode === 200) {
    expect(body).toMatchObject({ preview: true, notice: PREVIEW_NOTICE });
    if (schema !== undefined) expect(Value.Check(schema, body), url).toBe(true);
  }
  return { status: res.statusCode, body, headers: res.headers };
}

const titles = async (query: string, channel = 'news.uk') =>
  (
    await preview(`/channels/${id(channel)}/programmes${query}`, PreviewProgrammesResponse)
  ).body.programmes.map((p: { title: string }) => p.title);

describe('playground API', () => {
  it('needs no key, and lists only the countries of marked channels', async () => {
    const { status, body } = await preview('/countries', PreviewCountriesResponse);
    expect(status).toBe(200);
    expect(body.countries).toEqual([
      { country: 'FR', channelCount: 1 },
      { country: 'UK', channelCount: 2 },
    ]);
  });

  it("lists a country's marked channels in the v1 order and shape", async () => {
    const { body } = await preview('/countries/uk/channels', PreviewChannelsResponse);
    expect(body.country).toBe('UK');
    expect(body.channels.map((c: { name: string }) => c.name)).toEqual([
      'Kelpie Kids',
      'Onair News',
    ]);
    const v1 = (await t.get('/api/v1/countries/UK/channels', key)).json();
    const marked = new Set(body.channels.map((c: { id: string }) => c.id));
    expect(body.channels).toEqual(v1.channels.filter((c: { id: string }) => marked.has(c.id)));
    expect((await preview('/countries/DE/channels')).body.channels).toEqual([]);
    expect((await preview('/countries/U$/channels')).body).toEqual({
      error: expect.any(String),
      code: 'INVALID_COUNTRY',
    });
  });

  it('searches marked channels only, ignoring case and accents', async () => {
    const names = async (query: string) =>
      (await preview(`/channels/search?${query}`, PreviewSearchResponse)).body.results.map(
        (r: { name: string }) => r.name,
      );
    expect(await names('q=NEWS')).toEqual(['Onair News']); // not Hidden News
    expect(await names('q=tele')).toEqual(['Télé Lumière']);
    expect(await names('q=e')).toEqual(['Kelpie Kids', 'Onair News', 'Télé Lumière']);
    expect(await names('q=e&country=fr')).toEqual(['Télé Lumière']);
    expect(await names('q=%20%20')).toEqual([]);
    expect(await names('')).toEqual([]);
    expect((await preview('/channels/search?q=e&country=%24')).status).toBe(400);
    expect((await preview('/channels/search?q=a&q=b')).body.code).toBe('INVALID_PARAMETERS');
  });

  it('serves only today and tomorrow of a schedule, whatever the request', async () => {
    const today = ['news.uk today early', 'news.uk today late'];
    const both = [...today, 'news.uk tomorrow'];
    expect(await titles('?days=today')).toEqual(today);
    expect(await titles('?days=TOMORROW')).toEqual(['news.uk tomorrow']);
    expect(await titles('?days=yesterday')).toEqual([]);
    expect(await titles('')).toEqual(both);
    expect(await titles('?days=365')).toEqual(both);
    expect(await titles('?days=all')).toEqual(both);
    expect(await titles('?all=true')).toEqual(both);
    // The lookback still applies inside the preview: 10.5 hours before now is today 00:00.
    expect(await titles('?days=1')).toEqual(both);
  });

  it('answers with the same programme entries as v1', async () => {
    const mine = await preview(`/channels/${id('news.uk')}/programmes?days=today`);
    const v1 = (await t.get(`/api/v1/channels/${id('news.uk')}/programmes?days=today`, key)).json();
    expect(mine.body).toEqual({ preview: true, notice: PREVIEW_NOTICE, ...v1 });
  });

  it('refuses bad parameters and channels outside the preview like v1 does', async () => {
    const bad = await preview(`/channels/${id('news.uk')}/programmes?days=0`);
    expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_DAYS']);
    const both = await preview(`/channels/${id('news.uk')}/programmes?days=1&all=1`);
    expect([both.status, both.body.code]).toEqual([400, 'INVALID_PARAMETERS']);
    for (const channel of [id('hidden.uk'), '00000000-0000-5000-8000-000000000000', 'nope']) {
      const res = await preview(`/channels/${channel}/programmes`);
      expect([res.status, res.body.code]).toEqual([404, 'CHANNEL_NOT_FOUND']);
      expect(res.body.error).toMatch(/not in the preview/);
    }
    const unknown = await preview('/nothing/here');
    expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);
    const post = await t.inject({ method: 'POST', url: `${API}/countries` });
    expect([post.statusCode, post.json().code]).toEqual([405, 'METHOD_NOT_ALLOWED']);
  });

  it('follows the operator marking and unmarking channels at once', async () => {
    const before = await preview('/countries');
    await t.temp.store.playground.remove(id('tele.fr'));
    try {
      expect((await preview('/countries')).body.countries).toEqual([
        { country: 'UK', channelCount: 2 },
      ]);
      expect((await preview(`/channels/${id('tele.fr')}/programmes`)).status).toBe(404);
      expect((await preview('/channels/search?q=tele')).body.results).toEqual([]);
    } finally {
      await t.temp.store.playground.add(id('tele.fr'), TEST_NOW);
    }
    expect((await preview('/countries')).body).toEqual(before.body);
    expect((await preview(`/channels/${id('tele.fr')}/programmes?days=today`)).status).toBe(200);
  });

  /** Every programme of a channel by title, with its id, from the v1 schedule (`all`). */
  async function v1Ids(channel: string): Promise<Map<string, string>> {
    const v1 = (await t.get(`/api/v1/channels/${id(channel)}/programmes?days=all`, key)).json();
    return new Map(v1.programmes.map((p: { title: string; id: string }) => [p.title, p.id]));
  }

  it('gives the v1 detail answer of each programme the preview schedule lists, and only those', async () => {
    const listed = (await preview(`/channels/${id('news.uk')}/programmes?days=all`)).body
      .programmes as { id: string; title: string }[];
    expect(listed.map((p) => p.title)).toEqual([
      'news.uk today early',
      'news.uk today late',
      'news.uk tomorrow',
    ]);
    for (const programme of listed) {
      const url = `/channels/${id('news.uk')}/programmes/${programme.id}`;
      const mine = await preview(url, PreviewProgrammeResponse);
      expect(mine.status).toBe(200);
      const v1 = await t.get(`/api/v1${url}`, key);
      expect(v1.statusCode).toBe(200);
      expect(mine.body).toEqual({ preview: true, notice: PREVIEW_NOTICE, ...v1.json() });
    }
    // Outside today and tomorrow, or with a start that does not parse: v1 has it, not the preview.
    const ids = await v1Ids('news.uk');
    for (const title of ['news.uk yesterday', 'news.uk day after', 'news.uk unparsed']) {
      const url = `/channels/${id('news.uk')}/programmes/${ids.get(title)}`;
      expect((await t.get(`/api/v1${url}`, key)).statusCode, title).toBe(200);
      const res = await preview(url);
      expect([title, res.status, res.body.code]).toEqual([title, 404, 'PROGRAMME_NOT_FOUND']);
    }
  });

  it("shows a programme's rich data, the same as v1", async () => {
    const ids = await v1Ids('news.uk');
    const { body } = await preview(
      `/channels/${id('news.uk')}/programmes/${ids.get(RICH_TITLE)}`,
      PreviewProgrammeResponse,
    );
    expect(body.programme).toMatchObject({
      title: RICH_TITLE,
      channelId: id('news.uk'),
      subTitle: 'The <Orchard> & "more"',
      episodeNumber: { season: 3, episode: 5, episodes: 13, part: null, onScreen: null },
      credits: [
        { role: 'presenter', name: 'Ada Moss', character: '' },
        { role: 'actor', name: 'Nico', character: 'Reyes' },
      ],
      isNew: true,
      video: null,
    });
    const plain = await preview(
      `/channels/${id('news.uk')}/programmes/${ids.get('news.uk tomorrow')}`,
      PreviewProgrammeResponse,
    );
    expect(plain.body.programme).toMatchObject({ subTitle: '', episodeNumber: null, credits: [] });
  });

  it("refuses channels outside the preview, and ids that are not that channel's", async () => {
    const hidden = await v1Ids('hidden.uk');
    const kids = await v1Ids('kids.uk');
    const cases: [string, string, string][] = [
      [id('hidden.uk'), hidden.get('hidden.uk today early') ?? '', 'CHANNEL_NOT_FOUND'],
      ['00000000-0000-5000-8000-000000000000', '1000000000000000000', 'CHANNEL_NOT_FOUND'],
      ['nope', 'nope', 'CHANNEL_NOT_FOUND'],
      // Another preview channel's programme of today.
      [id('news.uk'), kids.get('kids.uk today early') ?? '', 'PROGRAMME_NOT_FOUND'],
      [id('news.uk'), '1000000000000000000', 'PROGRAMME_NOT_FOUND'],
      [id('news.uk'), 'abc', 'PROGRAMME_NOT_FOUND'],
      [id('news.uk'), '%20', 'PROGRAMME_NOT_FOUND'],
    ];
    for (const [channel, programme, code] of cases) {
      const res = await preview(`/channels/${channel}/programmes/${programme}`);
      expect([channel, programme, res.status, res.body.code]).toEqual([
        channel,
        programme,
        404,
        code,
      ]);
    }
    const hiddenRes = await preview(`/channels/${id('hidden.uk')}/programmes/1`);
    expect(hiddenRes.body.error).toMatch(/not in the preview/);
    const post = await t.inject({
      method: 'POST',
      url: `${API}/channels/${id('news.uk')}/programmes/${kids.get('kids.uk today early')}`,
    });
    expect([post.statusCode, post.json().code]).toEqual([405, 'METHOD_NOT_ALLOWED']);
  });

  it('follows the preview window as the days pass, with no change to the catalogue', async () => {
    const ids = await v1Ids('news.uk');
    const status = async (title: string) =>
      (await preview(`/channels/${id('news.uk')}/programmes/${ids.get(title)}`)).status;
    expect(await status('news.uk today early')).toBe(200);
    expect(await status('news.uk day after')).toBe(404);
    t.clock.advance(DAY_MS);
    try {
      expect(await status('news.uk today early')).toBe(404);
      expect(await status('news.uk day after')).toBe(200);
    } finally {
      t.clock.advance(-DAY_MS);
    }
    expect(await status('news.uk today early')).toBe(200);
  });

  it('searches programmes of the marked channels, today and tomorrow only', async () => {
    const from = encodeURIComponent(new Date(TODAY - 2 * DAY_MS).toISOString());
    const found = async (query: string) => {
      const res = await preview(`/programmes/search?${query}`, PreviewProgrammeSearchResponse);
      expect(res.status, query).toBe(200);
      return (res.body as { results: { programme: { title: string } }[] }).results.map(
        (r) => r.programme.title,
      );
    };
    expect(await found(`q=UK&from=${from}`)).toEqual([
      'kids.uk today early',
      'news.uk today early',
      'kids.uk today late',
      'news.uk today late',
      'kids.uk tomorrow',
      'news.uk tomorrow',
    ]);
    expect(await found(`q=tele%20tomo&from=${from}`)).toEqual(['tele.fr tomorrow']);
    expect(await found(`q=hidden&from=${from}`)).toEqual([]);
    expect(await found(`q=uk&channels=${id('hidden.uk')}&from=${from}`)).toEqual([]);
    expect(await found(`q=uk&channels=${id('kids.uk')},${id('hidden.uk')}`)).toEqual([
      'kids.uk today late',
      'kids.uk tomorrow',
    ]);
    const bad = await preview('/programmes/search?q=uk&limit=0');
    expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_PARAMETERS']);
  });

  it('sends ETags, and 304 while the answer is the same', async () => {
    const url = `${API}/channels/${id('kids.uk')}/programmes?days=tomorrow`;
    const first = await t.inject({ method: 'GET', url });
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/"/);
    const again = await t.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    // A v1 answer of the same window is another body, so another tag.
    const v1 = await t.get(`/api/v1/channels/${id('kids.uk')}/programmes?days=tomorrow`, key);
    expect(v1.headers.etag).not.toBe(etag);
  });
});

/**
 * /playground/api/guide and /now: the v1 parameters and answers, over the preview channels and
 * the programmes the preview schedule lists, and the one on air as today begins (UTC). The
 * choice for windows and instants outside today and tomorrow is the one `days=yesterday` makes
 * for a schedule: not an error, an empty answer. A guide window is clipped to the preview days
 * (its `from` and `to` say the part answered, empty at the nearer edge when it lies wholly
 * outside); `now` and `next` are those programmes, and an `at` outside has neither.
 */
describe('playground guide and now/next', () => {
  let g: TestApp;
  let gIds: Map<string, string>;
  let gKey: string;
  const HOUR = 3_600_000;
  const TOMORROW = TODAY + DAY_MS;
  const gid = (xmltvId: string) => gIds.get(xmltvId) ?? '';
  /** Times of day as the API writes them. */
  const utc = (ms: number) =>
    new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14) + ' +0000';

  beforeAll(async () => {
    g = await createTestApp({ PLAYGROUND_LIMIT: '1000' });
    const news = (title: string, startMs: number, durationMin: number) => ({
      channel: 'news.uk',
      title,
      startMs,
      durationMin,
    });
    ({ channelIds: gIds } = await seedCatalogue(
      g.temp.store,
      [
        { xmltvId: 'news.uk', name: 'Onair News', country: 'UK' },
        { xmltvId: 'kids.uk', name: 'Kelpie Kids', country: 'UK' },
        { xmltvId: 'tele.fr', name: 'Télé Lumière', country: 'FR' },
        { xmltvId: 'hidden.uk', name: 'Hidden News', country: 'UK' },
      ],
      [
        // Starts yesterday, runs into today: the preview schedule does not list it (it lists by
        // start, as v1 does), but it is on air as the preview begins, so its grid and now show it.
        news('before midnight', TODAY - HOUR, 180),
        news('morning', TODAY + 9 * HOUR, 60),
        news('on now', TODAY + 10 * HOUR, 60), // TEST_NOW is 10:30
        news('late morning', TODAY + 11 * HOUR, 60),
        news('noon', TODAY + 12 * HOUR, 90),
        news('afternoon', TODAY + 14 * HOUR, 60),
        news('tomorrow late', TOMORROW + 23 * HOUR, 120),
        news('day after', TOMORROW + DAY_MS + HOUR / 2, 30),
        { channel: 'news.uk', rawStart: 'sometime', title: 'unparsed' },
        // Ends as today begins: not on air in the preview.
        { channel: 'kids.uk', title: 'kids last night', startMs: TODAY - HOUR, durationMin: 60 },
        { channel: 'kids.uk', title: 'kids now', startMs: TODAY + 10.25 * HOUR, durationMin: 30 },
        { channel: 'kids.uk', title: 'kids next', startMs: TODAY + 11.5 * HOUR, durationMin: 30 },
        { channel: 'hidden.uk', title: 'hidden now', startMs: TODAY + 10 * HOUR, durationMin: 60 },
      ],
    ));
    for (const xmltvId of ['news.uk', 'kids.uk', 'tele.fr']) {
      expect(await g.temp.store.playground.add(gid(xmltvId), TEST_NOW)).toBe('added');
    }
    gKey = (await g.customer()).key;
  });

  afterAll(async () => {
    await g?.close();
  });

  async function ask(url: string, schema?: TSchema, headers: Record<string, string> = {}) {
    const res = await g.inject({ method: 'GET', url: `${API}${url}`, headers });
    expect(res.headers[PREVIEW_HEADER.toLowerCase()], url).toBe('true');
    const body = res.statusCode === 304 ? null : res.json();
    if (res.statusCode === 200) {
      expect(body).toMatchObject({ preview: true, notice: PREVIEW_NOTICE });
      if (schema !== undefined) expect(Value.Check(schema, body), url).toBe(true);
    }
    return { status: res.statusCode, body, headers: res.headers };
  }
  const guide = async (query: string) => (await ask(`/guide?${query}`, PreviewGuideResponse)).body;
  const now = async (query: string) => (await ask(`/now?${query}`, PreviewNowResponse)).body;
  /** Each channel's programme titles, by channel name. */
  const grid = (body: { channels: { name: string; programmes: { title: string }[] }[] }) =>
    Object.fromEntries(body.channels.map((c) => [c.name, c.programmes.map((p) => p.title)]));
  type Entry = { title: string } | null;
  /** Titles of now and next. */
  type Pair = [string | null, string | null];
  const nowNext = (body: { channels: { name: string; now: Entry; next: Entry }[] }) =>
    Object.fromEntries(
      body.channels.map((c) => [c.name, [c.now?.title ?? null, c.next?.title ?? null]]),
    );
  const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());

  it("answers a country's grid as v1 does, for its preview channels only", async () => {
    const body = await guide('country=uk');
    expect(body).toMatchObject({
      from: utc(TEST_NOW),
      to: utc(TEST_NOW + 3 * HOUR),
      missing: [],
      next: null,
    });
    expect(grid(body)).toEqual({
      'Kelpie Kids': ['kids now', 'kids next'],
      'Onair News': ['on now', 'late morning', 'noon'],
    });
    // The same entries, field for field, as the v1 grid of those channels.
    const v1 = (await g.get('/api/v1/guide?country=UK', gKey)).json();
    const marked = new Set(body.channels.map((c: { channelId: string }) => c.channelId));
    expect(v1.channels.length).toBe(3);
    expect(body.channels).toEqual(
      v1.channels.filter((c: { channelId: string }) => marked.has(c.channelId)),
    );
    expect(grid(await guide('country=FR&hours=48'))).toEqual({ 'Télé Lumière': [] });
    expect(await guide('country=DE')).toMatchObject({ channels: [], missing: [], next: null });
  });

  it('pages a country over its preview channels', async () => {
    const first = await guide('country=UK&limit=1');
    expect([first.channels.map((c: { name: string }) => c.name), first.next]).toEqual([
      ['Kelpie Kids'],
      1,
    ]);
    const second = await now('country=UK&limit=1&offset=1');
    expect([second.channels.map((c: { name: string }) => c.name), second.next]).toEqual([
      ['Onair News'],
      null,
    ]);
  });

  it('answers channels= in the order given; ids outside the preview are missing', async () => {
    const unknown = '00000000-0000-5000-8000-000000000000';
    const query = `channels=${gid('news.uk')},${gid('hidden.uk')},${unknown},${gid('kids.uk')},${gid('news.uk').toUpperCase()}`;
    for (const body of [await guide(query), await now(query)]) {
      expect(body.channels.map((c: { name: string }) => c.name)).toEqual([
        'Onair News',
        'Kelpie Kids',
      ]);
      expect(body.missing).toEqual([gid('hidden.uk'), unknown]);
      expect(body.next).toBeNull();
    }
    // v1 has the hidden channel.
    const v1 = (await g.get(`/api/v1/now?channels=${gid('hidden.uk')}`, gKey)).json();
    expect([v1.missing, v1.channels[0].now.title]).toEqual([[], 'hidden now']);
  });

  it('clips a guide window to today and tomorrow, and lists the programmes on air then', async () => {
    // Into the day after tomorrow: cut at its midnight; "day after" is v1's only.
    const late = await guide(`country=UK&from=${iso(TOMORROW + 22 * HOUR)}&hours=4`);
    expect([late.from, late.to]).toEqual([utc(TOMORROW + 22 * HOUR), utc(TOMORROW + DAY_MS)]);
    expect(grid(late)['Onair News']).toEqual(['tomorrow late']);
    const v1Late = (
      await g.get(`/api/v1/guide?country=UK&from=${iso(TOMORROW + 22 * HOUR)}&hours=4`, gKey)
    ).json();
    expect(grid(v1Late)['Onair News']).toEqual(['tomorrow late', 'day after']);

    // From yesterday evening: only today's part, with the programme still on air at midnight
    // but not one that ended then.
    const early = await guide(`country=UK&from=20260821220000%20%2B0000&hours=4`);
    expect([early.from, early.to]).toEqual([utc(TODAY), utc(TODAY + 2 * HOUR)]);
    expect(grid(early)).toEqual({ 'Kelpie Kids': [], 'Onair News': ['before midnight'] });
    const v1Early = (
      await g.get('/api/v1/guide?country=UK&from=20260821220000%20%2B0000&hours=4', gKey)
    ).json();
    expect(grid(v1Early)).toEqual({
      'Hidden News': [],
      'Kelpie Kids': ['kids last night'],
      'Onair News': ['before midnight'],
    });

    // Wholly outside (yesterday's 24 hours end where today begins): an empty window at the
    // nearer edge, channels listed, no programmes.
    for (const [from, edge] of [
      [TODAY - DAY_MS, TODAY],
      [TODAY + 3 * DAY_MS, TODAY + 2 * DAY_MS],
    ] as const) {
      const body = await guide(`country=UK&from=${iso(from)}&hours=24`);
      expect([body.from, body.to]).toEqual([utc(edge), utc(edge)]);
      expect(grid(body)).toEqual({ 'Kelpie Kids': [], 'Onair News': [] });
    }
    // The whole preview in one request: 48 hours from today's midnight.
    const all = await guide(`country=UK&from=${iso(TODAY)}&hours=48`);
    expect(grid(all)['Onair News']).toEqual([
      'before midnight',
      'morning',
      'on now',
      'late morning',
      'noon',
      'afternoon',
      'tomorrow late',
    ]);
  });

  it('answers now and next as v1 does, from the programmes the preview lists', async () => {
    const body = await now('country=UK');
    expect(body).toMatchObject({ at: utc(TEST_NOW), missing: [], next: null });
    expect(nowNext(body)).toEqual({
      'Kelpie Kids': ['kids now', 'kids next'],
      'Onair News': ['on now', 'late morning'],
    });
    const v1 = (await g.get('/api/v1/now?country=UK', gKey)).json();
    const marked = new Set(body.channels.map((c: { channelId: string }) => c.channelId));
    expect(body.channels).toEqual(
      v1.channels.filter((c: { channelId: string }) => marked.has(c.channelId)),
    );
    expect(nowNext(await now('country=FR'))).toEqual({ 'Télé Lumière': [null, null] });

    const cases: [at: number, preview: Pair, v1: Pair][] = [
      // Just after midnight: the programme from yesterday is still on.
      [TODAY + HOUR / 2, ['before midnight', 'morning'], ['before midnight', 'morning']],
      // Late tomorrow: the day after's programme is not the preview's `next`.
      [TOMORROW + 23.5 * HOUR, ['tomorrow late', null], ['tomorrow late', 'day after']],
      // Outside today and tomorrow: nothing of the preview.
      [TODAY - 12 * HOUR, [null, null], [null, 'before midnight']],
      [TOMORROW + DAY_MS + HOUR / 4, [null, null], ['tomorrow late', 'day after']],
    ];
    for (const [at, mine, theirs] of cases) {
      const query = `channels=${gid('news.uk')}&at=${iso(at)}`;
      const answer = await now(query);
      expect([utc(at), answer.at, nowNext(answer)['Onair News']]).toEqual([utc(at), utc(at), mine]);
      const v1Answer = (await g.get(`/api/v1/now?${query}`, gKey)).json();
      expect([utc(at), nowNext(v1Answer)['Onair News']]).toEqual([utc(at), theirs]);
    }
  });

  it('refuses bad parameters as v1 does', async () => {
    const cases: [string, string][] = [
      ['/guide', 'INVALID_PARAMETERS'],
      ['/now?country=UK&channels=' + gid('news.uk'), 'INVALID_PARAMETERS'],
      ['/guide?channels=nope', 'INVALID_PARAMETERS'],
      ['/guide?channels=' + gid('news.uk') + '&limit=1', 'INVALID_PARAMETERS'],
      ['/guide?country=UK&hours=49', 'INVALID_PARAMETERS'],
      ['/guide?country=UK&hours=0', 'INVALID_PARAMETERS'],
      ['/guide?country=UK&from=yesterday', 'INVALID_PARAMETERS'],
      ['/now?country=UK&at=2026-08-22T10:00:00', 'INVALID_PARAMETERS'],
      ['/now?country=UK&limit=501', 'INVALID_PARAMETERS'],
      ['/guide?country=UK&hours=1&hours=2', 'INVALID_PARAMETERS'],
      ['/guide?country=U$', 'INVALID_COUNTRY'],
      ['/now?country=U$', 'INVALID_COUNTRY'],
    ];
    for (const [url, code] of cases) {
      const res = await ask(url);
      expect([url, res.status, res.body.code]).toEqual([url, 400, code]);
      const v1 = await g.get(`/api/v1${url}`, gKey);
      expect([url, v1.statusCode, v1.json().code]).toEqual([url, 400, code]);
    }
    const missing = await ask('/guide?country=UK&hours=x');
    expect(missing.body.error).toMatch(/hours/);
    for (const path of ['/guide', '/now']) {
      const post = await g.inject({ method: 'POST', url: `${API}${path}?country=UK` });
      expect([path, post.statusCode, post.json().code]).toEqual([path, 405, 'METHOD_NOT_ALLOWED']);
    }
  });

  it('moves with the clock and with the preview days', async () => {
    const etag = String((await ask('/now?country=UK')).headers.etag);
    expect(etag).toMatch(/^W\/"/);
    expect((await ask('/now?country=UK', undefined, { 'if-none-match': etag })).status).toBe(304);
    g.clock.advance(31 * 60_000); // 11:01
    try {
      const moved = await ask('/now?country=UK', PreviewNowResponse);
      expect(moved.headers.etag).not.toBe(etag);
      expect(moved.body.at).toBe(utc(TEST_NOW + 31 * 60_000));
      expect(nowNext(moved.body)).toEqual({
        'Kelpie Kids': [null, 'kids next'],
        'Onair News': ['late morning', 'noon'],
      });
      // The grid kept at 10:30 is not reused: "on now" has ended, and "afternoon" (14:00) has
      // entered the three hours.
      const later = await guide('country=UK');
      expect([later.from, later.to, grid(later)['Onair News']]).toEqual([
        utc(TEST_NOW + 31 * 60_000),
        utc(TEST_NOW + 31 * 60_000 + 3 * HOUR),
        ['late morning', 'noon', 'afternoon'],
      ]);
    } finally {
      g.clock.advance(-31 * 60_000);
    }
    // A day on, the preview is tomorrow and the day after, for the same requests.
    const dayAfter = `channels=${gid('news.uk')}&from=${iso(TOMORROW + DAY_MS)}&hours=2`;
    expect(grid(await guide(dayAfter))['Onair News']).toEqual([]);
    g.clock.advance(DAY_MS);
    try {
      expect(grid(await guide(dayAfter))['Onair News']).toEqual(['tomorrow late', 'day after']);
      expect(nowNext(await now('country=UK'))['Onair News']).toEqual([null, 'tomorrow late']);
    } finally {
      g.clock.advance(-DAY_MS);
    }
    expect(grid(await guide(dayAfter))['Onair News']).toEqual([]);
    expect(nowNext(await now('country=UK'))['Onair News']).toEqual(['on now', 'late morning']);
  });

  it('follows the operator marking and unmarking channels at once', async () => {
    const query = `channels=${gid('kids.uk')},${gid('news.uk')}`;
    expect((await now(query)).missing).toEqual([]);
    await g.temp.store.playground.remove(gid('kids.uk'));
    try {
      expect((await now(query)).missing).toEqual([gid('kids.uk')]);
      expect(Object.keys(grid(await guide('country=UK')))).toEqual(['Onair News']);
    } finally {
      await g.temp.store.playground.add(gid('kids.uk'), TEST_NOW);
    }
    expect((await now(query)).missing).toEqual([]);
    expect(Object.keys(grid(await guide('country=UK')))).toEqual(['Kelpie Kids', 'Onair News']);
  });

  it("gives each grid programme's details from the preview detail route", async () => {
    const body = await guide(`country=UK&from=${iso(TODAY)}&hours=48`);
    for (const channel of body.channels as { channelId: string; programmes: { id: string }[] }[]) {
      for (const programme of channel.programmes) {
        const url = `/channels/${channel.channelId}/programmes/${programme.id}`;
        const detail = await ask(url, PreviewProgrammeResponse);
        expect([url, detail.status]).toEqual([url, 200]);
        expect(detail.body.programme).toEqual(programme);
      }
    }
    // "before midnight" is in that grid; a programme that ended as today began is v1's only.
    expect(grid(body)['Onair News']?.[0]).toBe('before midnight');
    const v1 = (await g.get(`/api/v1/channels/${gid('kids.uk')}/programmes?days=all`, gKey)).json();
    const ended = v1.programmes.find((p: { title: string }) => p.title === 'kids last night');
    const url = `/channels/${gid('kids.uk')}/programmes/${ended.id}`;
    expect((await g.get(`/api/v1${url}`, gKey)).statusCode).toBe(200);
    expect((await ask(url)).body.code).toBe('PROGRAMME_NOT_FOUND');
  });
});

describe('playground rate limit', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ PLAYGROUND_LIMIT: '3' });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('allows PLAYGROUND_LIMIT requests a minute per client address, then 429 with Retry-After', async () => {
    const get = (remoteAddress: string) =>
      limited.inject({ method: 'GET', url: `${API}/countries`, remoteAddress });
    for (let i = 0; i < 3; i++) expect((await get('192.0.2.1')).statusCode).toBe(200);
    const refused = await get('192.0.2.1');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      error: expect.stringMatching(/playground/),
      code: 'RATE_LIMITED',
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers[PREVIEW_HEADER.toLowerCase()]).toBe('true');
    // Another address has its own budget; and the customer API is not affected.
    expect((await get('192.0.2.2')).statusCode).toBe(200);
    limited.clock.advance(60_000);
    expect((await get('192.0.2.1')).statusCode).toBe(200);
  });

  it('counts the guide and now/next against the same budget', async () => {
    const get = (path: string) =>
      limited.inject({ method: 'GET', url: `${API}${path}`, remoteAddress: '192.0.2.5' });
    expect((await get('/guide?country=UK')).statusCode).toBe(200);
    expect((await get('/now?country=UK')).statusCode).toBe(200);
    expect((await get('/countries')).statusCode).toBe(200);
    for (const path of ['/guide?country=UK', '/now?country=UK']) {
      const refused = await get(path);
      expect([path, refused.statusCode, refused.json().code]).toEqual([path, 429, 'RATE_LIMITED']);
      expect(refused.headers[PREVIEW_HEADER.toLowerCase()]).toBe('true');
    }
  });

  it('counts nothing against a customer, and a key does not lift it', async () => {
    const { key: customerKey } = await limited.customer();
    for (let i = 0; i < 3; i++) {
      await limited.inject({
        method: 'GET',
        url: `${API}/countries`,
        remoteAddress: '192.0.2.9',
        headers: { authorization: `Bearer ${customerKey}` },
      });
    }
    const refused = await limited.inject({
      method: 'GET',
      url: `${API}/countries`,
      remoteAddress: '192.0.2.9',
      headers: { authorization: `Bearer ${customerKey}` },
    });
    expect(refused.statusCode).toBe(429);
    expect((await limited.get('/api/v1/countries', customerKey)).statusCode).toBe(200);
  });
});
