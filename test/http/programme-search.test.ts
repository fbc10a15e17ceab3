import fastJson from 'fast-json-stringify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GuideResponse, NowResponse, ProgrammeSearchResponse } from '../../src/http/schemas.js';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { formatXmltvUtc } from '../../src/domain/xmltv-time.js';
import { TEST_ENGINE } from '../helpers/engines.js';
import { createTestApp, TEST_NOW, type TestApp } from '../helpers/test-app.js';

/**
 * GET /api/v1/programmes/search over a small guide around "now" (TEST_NOW, 10:30 UTC): titles,
 * sub-titles, descriptions, categories and credits with accents and case; equal starts on
 * channels whose names sort differently by case; programmes before now, days ahead and beyond
 * the default 14 days. The expected answers are worked out here from the rules of docs/api.md.
 */

const H = 3_600_000;
const NOW = TEST_NOW;
const at = (hoursFromNow: number) => formatXmltvUtc(NOW + hoursFromNow * H);
const Z = channelIdFor('zeta.uk');
const B = channelIdFor('beta.uk');
const T = channelIdFor('tele.fr');

const programme = (channel: string, start: number, inner: string) =>
  `<programme start="${at(start)}" stop="${at(start + 0.5)}" channel="${channel}">${inner}</programme>`;

const GUIDE = `<?xml version="1.0" encoding="UTF-8"?>
<tv>
<channel id="zeta.uk"><display-name>Zeta</display-name></channel>
<channel id="beta.uk"><display-name>beta</display-name></channel>
<channel id="tele.fr"><display-name>Télé Sud</display-name></channel>
${programme('zeta.uk', -1, '<title>Star Trek</title><desc>Yesterday’s voyage 🚀</desc>')}
${programme('zeta.uk', 1, '<title>Star Trek</title><desc>Space, the final frontier</desc>')}
${programme('beta.uk', 1, '<title>Star Trekking</title><category>Documentary</category>')}
${programme('tele.fr', 1, '<title>Le Journal</title><sub-title>Édition de la nuit</sub-title>')}
${programme('tele.fr', 2, '<title>Cinéma</title><credits><actor role="Jo">Zoë Ångström</actor></credits>')}
${programme('beta.uk', 3, '<title>News</title><desc>The evening news</desc>')}
${programme('zeta.uk', 3, '<title>News at three</title>')}
${programme('tele.fr', 3, '<title>ÉTÉ en fête</title>')}
${programme('beta.uk', 48, '<title>News extra</title>')}
${programme('beta.uk', 15 * 24, '<title>News far ahead</title>')}
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

interface Result {
  channel: { channelId: string; name: string; icon: string; country: string; needsReview: boolean };
  programme: { id: string; title: string; start: string; channelId: string; credits: unknown[] };
}
interface Answer {
  results: Result[];
  next: string | null;
}

const search = (params: string) => `/api/v1/programmes/search?${params}`;

async function found(params: string): Promise<string[]> {
  const res = await t.get(search(params), key);
  expect(res.statusCode).toBe(200);
  return (res.json() as Answer).results.map((r) => `${r.channel.name}: ${r.programme.title}`);
}

describe(`GET /api/v1/programmes/search (${TEST_ENGINE})`, () => {
  it('answers the channel and the rich programme of each match', async () => {
    const res = await t.get(search('q=angstrom'), key);
    const body = res.json() as Answer;
    // Written by JSON.stringify: the same bytes as the schema's serializer.
    expect(res.body).toBe(fastJson(ProgrammeSearchResponse as object)(body));
    const many = await t.get(search('q=star&from=2026-08-22T00:00:00Z'), key);
    expect(many.body).toBe(fastJson(ProgrammeSearchResponse as object)(many.json()));
    expect((many.json() as Answer).results.map((r) => r.programme.title)).toContain('Star Trek');
    expect(many.body).toContain('Yesterday’s voyage 🚀');
    expect(body.next).toBeNull();
    expect(body.results).toHaveLength(1);
    expect(body.results[0]?.channel).toEqual({
      channelId: T,
      name: 'Télé Sud',
      icon: '',
      country: 'FR',
      // Its country is inferred from its id, so it awaits review.
      needsReview: true,
    });
    expect(body.results[0]?.programme).toMatchObject({
      title: 'Cinéma',
      start: at(2),
      channelId: T,
      credits: [{ role: 'actor', name: 'Zoë Ångström', character: 'Jo' }],
    });
  });

  it('writes guide and now/next bodies of such text as the schemas’ serializers do', async () => {
    // Their bodies, like search's, are encoded piece by piece (answers/utf8-bytes.ts): ASCII,
    // Latin-1, curly quotes and an emoji side by side must still be the same bytes.
    const channels = `channels=${Z},${B},${T}`;
    const from = encodeURIComponent(new Date(NOW - 2 * H).toISOString());
    const cases: [string, (body: unknown) => string][] = [
      [`/api/v1/guide?${channels}&from=${from}&hours=8`, fastJson(GuideResponse as object)],
      [`/api/v1/now?${channels}&at=${from}`, fastJson(NowResponse as object)],
      [`/api/v1/now?${channels}`, fastJson(NowResponse as object)],
    ];
    for (const [url, serialize] of cases) {
      const res = await t.get(url, key);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe(serialize(res.json()));
      expect(Number(res.headers['content-length']), url).toBe(Buffer.byteLength(res.body));
    }
    const grid = await t.get(cases[0]?.[0] ?? '', key);
    for (const text of ['Yesterday’s voyage 🚀', 'Zoë Ångström', 'Télé Sud', 'ÉTÉ en fête']) {
      expect(grid.body).toContain(text);
    }
  });

  it('matches every word as a word, the last also as a prefix, ignoring case and accents', async () => {
    expect(await found('q=star%20tre')).toEqual(['beta: Star Trekking', 'Zeta: Star Trek']);
    expect(await found('q=trek%20star')).toEqual(['Zeta: Star Trek']);
    expect(await found('q=STAR%20TREK%20frontier')).toEqual(['Zeta: Star Trek']);
    expect(await found('q=ete')).toEqual(['Télé Sud: ÉTÉ en fête']);
    expect(await found('q=tele')).toEqual([]);
    expect(await found('q=edition%20nuit')).toEqual(['Télé Sud: Le Journal']);
    expect(await found('q=documentary')).toEqual(['beta: Star Trekking']);
    expect(await found('q=zoe')).toEqual(['Télé Sud: Cinéma']);
    // A word that is only a prefix of a word, but not the last: no match.
    expect(await found('q=sta%20trek')).toEqual([]);
    expect(await found('q=%20%20star%20%20trek%20missing')).toEqual([]);
  });

  it('orders by start, then channel name ignoring case, then id; from now to 14 days ahead', async () => {
    expect(await found('q=news')).toEqual([
      'beta: News',
      'Zeta: News at three',
      'beta: News extra',
    ]);
  });

  it('filters by country, channels and window', async () => {
    expect(await found('q=news&country=uk&channels=' + Z)).toEqual(['Zeta: News at three']);
    expect(await found('q=star&country=FR')).toEqual([]);
    expect(await found(`q=star&channels=${B},${T}`)).toEqual(['beta: Star Trekking']);
    expect(await found(`q=star%20trek&from=${encodeURIComponent(at(-2))}`)).toEqual([
      'Zeta: Star Trek',
      'beta: Star Trekking',
      'Zeta: Star Trek',
    ]);
    expect(
      await found(`q=news&from=2026-08-23T10:30:00Z&to=${encodeURIComponent(at(15 * 24 + 1))}`),
    ).toEqual(['beta: News extra', 'beta: News far ahead']);
    // Start in [from, to): a programme starting exactly at `to` is out.
    expect(await found(`q=news&to=${encodeURIComponent(at(3))}`)).toEqual([]);
    // Exactly, a fraction of a second included: a start a millisecond before `to` is in, one a
    // millisecond before `from` is out.
    const iso = (ms: number) => new Date(ms).toISOString();
    const three = NOW + 3 * H;
    expect(await found(`q=news&to=${iso(three + 1)}`)).toEqual([
      'beta: News',
      'Zeta: News at three',
    ]);
    expect(await found(`q=news&from=${iso(three + 1)}&to=${iso(three + H)}`)).toEqual([]);
    expect(await found(`q=news&from=${iso(three - 1)}&to=${iso(three + 1)}`)).toEqual([
      'beta: News',
      'Zeta: News at three',
    ]);
  });

  it('pages with an opaque cursor that only the same query accepts', async () => {
    const first = (await t.get(search('q=news&limit=2'), key)).json() as Answer;
    expect(first.results.map((r) => r.programme.title)).toEqual(['News', 'News at three']);
    expect(first.next).toEqual(expect.any(String));
    const cursor = encodeURIComponent(first.next ?? '');
    const second = (await t.get(search(`q=news&limit=2&cursor=${cursor}`), key)).json() as Answer;
    expect(second.results.map((r) => r.programme.title)).toEqual(['News extra']);
    expect(second.next).toBeNull();
    const other = await t.get(search(`q=star&limit=2&cursor=${cursor}`), key);
    expect(other.statusCode).toBe(400);
    expect(other.json()).toMatchObject({ code: 'INVALID_PARAMETERS' });
    // Edited by hand, with a character no channel name holds (PostgreSQL's text cannot: a 500).
    const fields = JSON.parse(Buffer.from(first.next ?? '', 'base64url').toString()) as unknown[];
    fields[3] = 'a\u0000b';
    const edited = Buffer.from(JSON.stringify(fields)).toString('base64url');
    const nul = await t.get(search(`q=news&limit=2&cursor=${edited}`), key);
    expect([nul.statusCode, (nul.json() as { code: string }).code]).toEqual([
      400,
      'INVALID_PARAMETERS',
    ]);
  });

  it('answers a blank or missing q with no results', async () => {
    for (const params of ['', 'q=', 'q=%20%20', 'q=%21%3F', 'country=UK']) {
      const res = await t.get(search(params), key);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ results: [], next: null });
    }
  });

  it('refuses bad parameters with the code of the matching v1 rule', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => channelIdFor(`c${i}.uk`)).join(',');
    const cases: [string, string][] = [
      ['q=news&country=U_K', 'INVALID_COUNTRY'],
      [`q=news&channels=${ids}`, 'INVALID_PARAMETERS'],
      ['q=news&channels=not-an-id', 'INVALID_PARAMETERS'],
      ['q=news&from=tomorrow', 'INVALID_PARAMETERS'],
      ['q=news&to=2026-08-22T12:00:00', 'INVALID_PARAMETERS'],
      ['q=news&from=2026-08-01T00:00:00Z&to=2026-09-02T00:00:01Z', 'INVALID_PARAMETERS'],
      ['q=news&from=2026-08-23T00:00:00Z&to=2026-08-22T00:00:00Z', 'INVALID_PARAMETERS'],
      ['q=news&cursor=bm90IGEgY3Vyc29y', 'INVALID_PARAMETERS'],
      ['q=news&cursor=***', 'INVALID_PARAMETERS'],
      ['q=news&limit=0', 'INVALID_PARAMETERS'],
      ['q=news&limit=201', 'INVALID_PARAMETERS'],
      ['q=news&limit=1.5', 'INVALID_PARAMETERS'],
      ['q=news&q=star', 'INVALID_PARAMETERS'],
    ];
    for (const [params, code] of cases) {
      const res = await t.get(search(params), key);
      expect([params, res.statusCode, (res.json() as { code: string }).code]).toEqual([
        params,
        400,
        code,
      ]);
    }
    // 31 days and a millisecond is over.
    const over = await t.get(
      search('q=news&from=2026-08-01T00:00:00Z&to=2026-09-01T00:00:00.001Z'),
      key,
    );
    expect([over.statusCode, (over.json() as { code: string }).code]).toEqual([
      400,
      'INVALID_PARAMETERS',
    ]);
    // A window of exactly 31 days is allowed.
    expect(
      (await t.get(search('q=news&from=2026-08-01T00:00:00Z&to=2026-09-01T00:00:00Z'), key))
        .statusCode,
    ).toBe(200);
  });

  it('has an ETag (304 when unchanged), caching headers, HEAD; other methods 405', async () => {
    const url = search('q=star&from=2026-08-22T00:00:00Z');
    const res = await t.get(url, key);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    const again = await t.get(url, key, { 'if-none-match': String(res.headers.etag) });
    expect(again.statusCode).toBe(304);
    const zipped = await t.get(url, key, { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    const head = await t.inject({ method: 'HEAD', url, headers: { 'x-api-key': key } });
    expect(head.statusCode).toBe(200);
    const post = await t.inject({ method: 'POST', url, headers: { 'x-api-key': key } });
    expect(post.statusCode).toBe(405);
  });

  it('keeps an answer only once it is asked again: the same bytes and ETag either way', async () => {
    const url = search('q=star&from=2026-08-22T00:00:00Z&limit=1');
    const reads = vi.spyOn(t.temp.store.catalogue, 'searchProgrammes');
    try {
      const first = await t.get(url, key);
      const second = await t.get(url, key);
      expect(reads).toHaveBeenCalledTimes(2);
      const third = await t.get(url, key);
      expect(reads).toHaveBeenCalledTimes(2);
      expect(second.body).toBe(first.body);
      expect(third.body).toBe(first.body);
      expect(new Set([first, second, third].map((r) => r.headers.etag)).size).toBe(1);
      // A client holding the first answer's ETag gets 304 from the one kept.
      const again = await t.get(url, key, { 'if-none-match': String(first.headers.etag) });
      expect(again.statusCode).toBe(304);
    } finally {
      reads.mockRestore();
    }
  });

  it('moves with the clock from now: a programme that has started leaves the answer', async () => {
    // With a fixed `to`, the answer is kept until its first result starts.
    const params = `q=star%20trek&to=${encodeURIComponent(at(5))}`;
    const reads = vi.spyOn(t.temp.store.catalogue, 'searchProgrammes');
    try {
      // Asked once, an answer is not kept (most searches are asked once); asked again, it is.
      expect(await found(params)).toEqual(['beta: Star Trekking', 'Zeta: Star Trek']);
      expect(await found(params)).toEqual(['beta: Star Trekking', 'Zeta: Star Trek']);
      expect(reads).toHaveBeenCalledTimes(2);
      t.clock.advance(1000);
      expect(await found(params)).toEqual(['beta: Star Trekking', 'Zeta: Star Trek']);
      expect(reads).toHaveBeenCalledTimes(2);
      // Both started at now + 1 h: still in at that second ([from, to)), out one second later,
      // when the answer kept before is made again and kept at once.
      t.clock.advance(H - 1000);
      expect(await found(params)).toHaveLength(2);
      t.clock.advance(1000);
      expect(await found(params)).toEqual([]);
      expect(await found(params)).toEqual([]);
      expect(reads).toHaveBeenCalledTimes(3);
    } finally {
      reads.mockRestore();
      t.clock.ms = NOW;
    }
  });

  it('counts one request against the budget and needs a key, as every v1 route', async () => {
    const { key: limited } = await t.customer('search-budget@example.com', { rateLimit: 3 });
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await t.get(search(`q=news${i}`), limited)).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await t.get(search('q=news'), null)).statusCode).toBe(401);
  });

  it("reads a walk's programmes whole after it, only those whose entries are not kept", async () => {
    await ingestXmltv(
      t.temp.store.ingest,
      {
        name: 'encore.xml',
        data: Buffer.from(`<tv>
${programme('zeta.uk', 210, '<title>Encore</title><desc>First take</desc>')}
${programme('zeta.uk', 211, '<title>Finale</title>')}
${programme('zeta.uk', 212, '<title>Farewell</title>')}
${programme('zeta.uk', 213, '<title>Fourth</title>')}
</tv>`),
      },
      { country: 'UK', assumeOffsetMinutes: 0, nowMs: NOW },
    );
    const catalogue = t.temp.store.catalogue;
    const reads = vi.spyOn(catalogue, 'programmesFound');
    const searches = vi.spyOn(catalogue, 'searchProgrammes');
    // One letter is walked in result order, over a window around one programme's start.
    const around = (hours: number) =>
      `q=f&from=${encodeURIComponent(at(hours - 0.25))}&to=${encodeURIComponent(at(hours + 0.25))}`;
    try {
      // A word read from the word index comes whole: nothing read after.
      expect(await found('q=encore')).toEqual(['Zeta: Encore']);
      expect(reads).not.toHaveBeenCalled();

      // A walk names the programmes it found; the one not kept is read after it, and another
      // query finding it again uses its kept entry.
      const first = await t.get(search(around(211)), key);
      expect((first.json() as Answer).results.map((r) => r.programme.title)).toEqual(['Finale']);
      expect(reads.mock.calls.map(([hits]) => hits.length)).toEqual([1]);
      const other = await t.get(search(`${around(211)}&limit=7`), key);
      expect((other.json() as Answer).results).toEqual((first.json() as Answer).results);
      expect(reads).toHaveBeenCalledTimes(1);

      // An ingest between the walk and the read (the read finds no such version): the search
      // is made again, and the page is the second search's.
      searches.mockClear();
      reads.mockResolvedValueOnce([null]);
      expect(await found(around(212))).toEqual(['Zeta: Farewell']);
      expect(searches).toHaveBeenCalledTimes(2);
      expect(reads).toHaveBeenCalledTimes(3);

      // Never of one version: after three tries, 503 to be tried again.
      reads.mockResolvedValue([null]);
      const busy = await t.get(search(around(213)), key);
      expect(busy.statusCode).toBe(503);
      expect(busy.headers['retry-after']).toBe('1');
      expect(busy.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    } finally {
      reads.mockRestore();
      searches.mockRestore();
    }
  });

  it('sees a new ingest at once', async () => {
    expect(await found('q=fresh')).toEqual([]);
    await ingestXmltv(
      t.temp.store.ingest,
      {
        name: 'fresh.xml',
        data: Buffer.from(`<tv>${programme('zeta.uk', 200, '<title>Fresh</title>')}</tv>`),
      },
      { country: 'UK', assumeOffsetMinutes: 0, nowMs: NOW },
    );
    expect(await found('q=fresh')).toEqual(['Zeta: Fresh']);
  });
});
