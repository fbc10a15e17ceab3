import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fastJson from 'fast-json-stringify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { fixturePath } from '../ingest/ingest-helpers.js';
import { GuideResponse, NowResponse } from '../../src/http/schemas.js';
import { TEST_ENGINE } from '../helpers/engines.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * GET /api/v1/channels/{channelId}/programmes/{programmeId} on a guide with every `<programme>`
 * child of the XMLTV DTD (test/fixtures/xmltv/rich.xml), on TEST_ENGINE (the suite runs on
 * both): each field of the answer, the route's errors in the v1 order, and the four v1 routes
 * answering exactly as they do for the same guide without its rich elements.
 */

const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);
const RICH = fixturePath('rich.xml');
const DRAMA = channelIdFor('drama.uk');
const SPORT = channelIdFor('sport.de');

/** The guide without its rich elements: the lines the v1 fields are not read from. */
function strippedGuide(): string {
  const kept = readFileSync(RICH, 'utf8')
    .split('\n')
    .filter((line) => {
      const tag = /^\s*<\/?([\w-]+)/.exec(line)?.[1];
      return (
        tag === undefined ||
        ['tv', 'channel', 'display-name', 'programme', 'title', 'desc', 'category'].includes(tag)
      );
    });
  return kept.join('\n');
}

interface Entry {
  id: string;
  title: string;
  [field: string]: unknown;
}

let rich: TestApp;
let plain: TestApp;
let key: string;
let plainKey: string;

async function ingestInto(t: TestApp, path: string) {
  return ingestXmltv(
    t.temp.store.ingest,
    { source: path },
    { country: null, assumeOffsetMinutes: 0, nowMs: NOW },
  );
}

beforeAll(async () => {
  rich = await createTestApp({}, NOW);
  plain = await createTestApp({}, NOW);
  await ingestInto(rich, RICH);
  const strippedPath = join(plain.temp.dir, 'stripped.xml');
  writeFileSync(strippedPath, strippedGuide());
  await ingestInto(plain, strippedPath);
  key = (await rich.customer()).key;
  plainKey = (await plain.customer()).key;
});

afterAll(async () => {
  await rich?.close();
  await plain?.close();
});

async function schedule(channelId: string): Promise<Entry[]> {
  const res = await rich.get(`/api/v1/channels/${channelId}/programmes?days=all`, key);
  expect(res.statusCode).toBe(200);
  return (res.json() as { programmes: Entry[] }).programmes;
}

async function detail(channelId: string, title: string) {
  const entry = (await schedule(channelId)).find((p) => p.title === title);
  if (entry === undefined) throw new Error(`no programme ${title}`);
  const res = await rich.get(`/api/v1/channels/${channelId}/programmes/${entry.id}`, key);
  expect(res.statusCode).toBe(200);
  const body = res.json() as { programme: Entry };
  return { entry, programme: body.programme };
}

/** What a programme without rich elements answers beyond its v1 fields. */
const NOTHING_RICH = {
  subTitle: '',
  subTitles: [],
  episodeNumber: null,
  episodeIds: [],
  keywords: [],
  images: [],
  urls: [],
  credits: [],
  date: '',
  productionCountries: [],
  language: '',
  originalLanguage: '',
  lengthSeconds: null,
  ratings: [],
  starRatings: [],
  isNew: false,
  premiere: false,
  lastChance: false,
  previouslyShown: null,
  video: null,
  audio: null,
  subtitles: [],
};

describe(`the programme detail route (${TEST_ENGINE})`, () => {
  it('answers every rich element of the guide, field by field, after the v1 fields', async () => {
    const { entry, programme } = await detail(DRAMA, 'The Long Night');
    expect(programme).toStrictEqual({
      ...entry,
      channelId: DRAMA,
      subTitle: 'Part One: Dusk',
      titles: [
        { value: 'The Long Night', lang: 'en' },
        { value: 'Die lange Nacht', lang: 'de' },
        { value: 'Night', lang: '' },
      ],
      subTitles: [
        { value: 'Part One: Dusk', lang: 'en' },
        { value: 'Teil eins', lang: 'de' },
      ],
      descs: [
        { value: 'A storm cuts off a village.', lang: 'en' },
        { value: 'Ein Sturm.', lang: 'de' },
      ],
      episodeNumber: {
        season: 3,
        episode: 5,
        part: 1,
        seasons: null,
        episodes: 13,
        parts: 1,
        onScreen: 'S3 E5',
      },
      episodeIds: [
        { system: 'xmltv_ns', value: '2.4/13.0/1' },
        { system: 'onscreen', value: 'S3 E5' },
        { system: 'dd_progid', value: 'EP01234567.0012' },
      ],
      categories: ['Drama', 'Thriller'],
      keywords: ['storm', 'village'],
      images: [
        'https://img.example/long-night.jpg',
        'https://img.example/long-night-small.jpg',
        'https://img.example/long-night-poster.jpg',
      ],
      urls: ['https://example.com/title/tt001', 'https://example.com/long-night'],
      credits: [
        { role: 'director', name: 'Ines Varga', character: '' },
        { role: 'director', name: 'Tom Heald', character: '' },
        { role: 'actor', name: 'Nico Aldana', character: 'Captain Reyes' },
        { role: 'actor', name: 'June Park', character: '' },
        { role: 'actor', name: 'Sam  Hill', character: 'Dr. Hale' },
        { role: 'writer', name: 'Mara Ellison', character: '' },
        { role: 'adapter', name: 'Ola Berg', character: '' },
        { role: 'producer', name: 'Hal Pemberton', character: '' },
        { role: 'composer', name: 'Oskar Veit', character: '' },
        { role: 'editor', name: 'Rita Lux', character: '' },
        { role: 'presenter', name: 'Ada Moss', character: '' },
        { role: 'commentator', name: 'Gus Okafor', character: '' },
        { role: 'guest', name: 'Ben Thorn', character: '' },
      ],
      date: '2019',
      productionCountries: ['UK', 'FR'],
      language: 'en',
      originalLanguage: 'French',
      lengthSeconds: 5400,
      ratings: [
        { system: 'BBFC', value: '15' },
        { system: '', value: 'adult' },
      ],
      starRatings: [
        { system: 'IMDB', value: '7.4/10' },
        { system: '', value: '3/4' },
      ],
      isNew: true,
      premiere: true,
      lastChance: true,
      // 19:00 at -05:00 is midnight UTC.
      previouslyShown: { start: '20260221000000 +0000', channel: 'drama.uk' },
      video: { colour: false, aspect: '16:9', quality: 'HDTV' },
      audio: { stereo: 'dolby digital' },
      subtitles: [
        { type: 'teletext', language: 'en' },
        { type: 'onscreen', language: '' },
      ],
    });
    expect(entry).toMatchObject({
      start: '20260301190000 +0000',
      stop: '20260301203000 +0000',
      title: 'The Long Night',
      desc: 'A storm cuts off a village.',
      category: 'Drama, Thriller',
    });
  });

  it('reads partial episode numbers, lengths in any unit and half-given structures', async () => {
    const short = (await detail(DRAMA, 'Short Film')).programme;
    expect(short).toMatchObject({
      titles: [{ value: 'Short Film', lang: '' }],
      descs: [],
      episodeNumber: {
        season: null,
        episode: 4,
        part: null,
        seasons: null,
        episodes: null,
        parts: null,
        onScreen: null,
      },
      lengthSeconds: 1800,
      video: { colour: true, aspect: null, quality: null },
      previouslyShown: { start: '', channel: '' },
      audio: null,
    });
    const late = (await detail(DRAMA, 'Late Movie')).programme;
    expect(late).toMatchObject({
      lengthSeconds: 7200,
      episodeNumber: {
        season: null,
        episode: null,
        part: null,
        seasons: null,
        episodes: null,
        parts: null,
        onScreen: 'Film 2',
      },
      episodeIds: [{ system: 'onscreen', value: 'Film 2' }],
      audio: { stereo: null },
    });
    const football = (await detail(SPORT, 'Fußball live')).programme;
    expect(football).toMatchObject({
      titles: [{ value: 'Fußball live', lang: 'de' }],
      credits: [{ role: 'commentator', name: 'Lena Brandt', character: '' }],
      lengthSeconds: null,
      episodeNumber: { season: null, seasons: 4, episode: null, episodes: null, onScreen: null },
      episodeIds: [
        { system: 'xmltv_ns', value: '/4..' },
        { system: 'dd_progid', value: 'SH0001' },
      ],
      video: { colour: null, aspect: null, quality: null },
      subtitles: [{ type: '', language: 'German' }],
    });
  });

  it('answers a programme without rich elements with empty ones', async () => {
    const { entry, programme } = await detail(SPORT, 'Plain Programme');
    expect(programme).toStrictEqual({
      ...entry,
      channelId: SPORT,
      titles: [{ value: 'Plain Programme', lang: '' }],
      descs: [{ value: 'Nothing rich here.', lang: '' }],
      categories: [],
      ...NOTHING_RICH,
    });
  });

  it('checks the key, then the channel, then the programme', async () => {
    const [first] = await schedule(DRAMA);
    const url = `/api/v1/channels/${DRAMA}/programmes/${first?.id}`;
    expect((await rich.get(url, null)).statusCode).toBe(401);
    expect((await rich.get(url, 'onair_not-a-key')).json()).toMatchObject({
      code: 'UNAUTHORIZED',
    });
    const unknownChannel = `/api/v1/channels/${channelIdFor('nowhere')}/programmes/${first?.id}`;
    expect((await rich.get(unknownChannel, null)).statusCode).toBe(401);
    expect((await rich.get(unknownChannel, key)).json()).toEqual({
      error: 'Channel not found',
      code: 'CHANNEL_NOT_FOUND',
    });
    expect((await rich.get(`/api/v1/channels/not-a-uuid/programmes/1`, key)).statusCode).toBe(404);
    // Another channel's programme, an id of the right form that is nobody's, any other text.
    const [sport] = await schedule(SPORT);
    for (const id of [sport?.id, '1000000000000000000', '12', 'abc', 'x'.repeat(300), '%20']) {
      const res = await rich.get(`/api/v1/channels/${DRAMA}/programmes/${id}`, key);
      expect(res.statusCode, String(id)).toBe(404);
      expect(res.json()).toEqual({ error: 'Programme not found', code: 'PROGRAMME_NOT_FOUND' });
    }
    // The channel id matches in any case, as on the schedule route.
    const upper = await rich.get(
      `/api/v1/channels/${DRAMA.toUpperCase()}/programmes/${first?.id}`,
      key,
    );
    expect(upper.statusCode).toBe(200);
  });

  it('answers HEAD, refuses other methods, and gives 304 to a client that has the answer', async () => {
    const [first] = await schedule(DRAMA);
    const url = `/api/v1/channels/${DRAMA}/programmes/${first?.id}`;
    const res = await rich.get(url, key);
    const etag = res.headers.etag;
    expect(etag).toBeTruthy();
    const again = await rich.get(url, key, { 'if-none-match': String(etag) });
    expect(again.statusCode).toBe(304);
    const head = await rich.inject({ method: 'HEAD', url, headers: { 'x-api-key': key } });
    expect(head.statusCode).toBe(200);
    const post = await rich.inject({ method: 'POST', url, headers: { 'x-api-key': key } });
    expect(post.statusCode).toBe(405);
    expect(post.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
  });
});

describe(`the four v1 routes on a catalogue full of rich data (${TEST_ENGINE})`, () => {
  it('answer byte for byte as for the same guide without it, sourceFileId aside', async () => {
    const urls = ['/api/v1/countries', '/api/v1/channels/search?q=a'];
    for (const country of ['UK', 'DE']) urls.push(`/api/v1/countries/${country}/channels`);
    for (const channel of [DRAMA, SPORT]) {
      for (const days of ['all', '7', 'today', 'yesterday']) {
        urls.push(`/api/v1/channels/${channel}/programmes?days=${days}`);
      }
    }
    const sourceIds = /"sourceFileId":"[0-9a-f-]{36}"/g;
    for (const url of urls) {
      const a = await rich.get(url, key);
      const b = await plain.get(url, plainKey);
      expect(a.statusCode, url).toBe(200);
      expect(b.statusCode, url).toBe(200);
      expect(a.body.replace(sourceIds, ''), url).toBe(b.body.replace(sourceIds, ''));
      expect(a.body.length, url).toBeGreaterThan(10);
    }
  });
});

describe(`guide and now/next bodies of rich entries (${TEST_ENGINE})`, () => {
  // Those bodies are written by JSON.stringify in the order their objects are made
  // (answers/guide-answers.ts); the schema's serializer writes the schema's fields in its
  // order. The same bytes from both mean no field is missing, extra or out of place.
  it('are the bytes the response schema’s serializer writes', async () => {
    const guideJson = fastJson(GuideResponse as object);
    const nowJson = fastJson(NowResponse as object);
    const channels = `channels=${DRAMA},${SPORT}`;
    const cases: [string, (body: unknown) => string][] = [
      [`/api/v1/guide?${channels}&from=2026-03-01T17:00:00Z&hours=12`, guideJson],
      [`/api/v1/now?${channels}&at=2026-03-01T19:30:00Z`, nowJson],
      [`/api/v1/now?${channels}&at=2026-03-01T17:00:00Z`, nowJson],
    ];
    let programmes = 0;
    for (const [url, serialize] of cases) {
      const res = await rich.get(url, key);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe(serialize(res.json()));
      programmes += (res.body.match(/"subTitles":/g) ?? []).length;
    }
    // Every programme of the guide in the grid, and now/next with and without a running one.
    expect(programmes).toBe(5 + 4 + 2);
  });
});

describe(`a re-ingest (${TEST_ENGINE})`, () => {
  it('keeps ids and updatedAt when nothing changed, and moves updatedAt when details did', async () => {
    const t = await createTestApp({}, NOW);
    try {
      const { key: k } = await t.customer();
      await ingestInto(t, RICH);
      const read = async () => {
        const res = await t.get(`/api/v1/channels/${DRAMA}/programmes?days=all`, k);
        return (res.json() as { programmes: Entry[] }).programmes;
      };
      const before = await read();
      const again = await ingestXmltv(
        t.temp.store.ingest,
        { source: RICH },
        { country: null, assumeOffsetMinutes: 0, nowMs: NOW + 60_000 },
      );
      expect(again.merge).toMatchObject({ programmesUpdated: 0, programmesAdded: 0 });
      expect((await read()).map((p) => [p.id, p.updatedAt])).toEqual(
        before.map((p) => [p.id, p.updatedAt]),
      );
      // Only a credit differs: the v1 fields are the same, the programme changed all the same.
      const changed = join(t.temp.dir, 'changed.xml');
      writeFileSync(changed, readFileSync(RICH, 'utf8').replace('Rita Lux', 'Rita Lucks'));
      const third = await ingestXmltv(
        t.temp.store.ingest,
        { source: changed },
        { country: null, assumeOffsetMinutes: 0, nowMs: NOW + 120_000 },
      );
      expect(third.merge).toMatchObject({ programmesUpdated: 1, programmesAdded: 0 });
      const after = await read();
      const moved = after.filter((p, i) => p.updatedAt !== before[i]?.updatedAt);
      expect(moved.map((p) => [p.title, p.updatedAt])).toEqual([
        ['The Long Night', String(NOW + 120_000)],
      ]);
      const res = await t.get(`/api/v1/channels/${DRAMA}/programmes/${moved[0]?.id}`, k);
      expect(JSON.stringify(res.json())).toContain('Rita Lucks');
    } finally {
      await t.close();
    }
  });
});
