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
  PreviewProgrammeResponse,
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
