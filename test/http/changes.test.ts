import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { programmeIdFor } from '../../src/domain/programme-id.js';
import { formatXmltvUtc } from '../../src/domain/xmltv-time.js';
import { createTestApp, TEST_NOW, type TestApp } from '../helpers/test-app.js';

/**
 * GET /api/v1/changes over ingests of a small guide: following from now, the records of a
 * changed guide exactly, none for the same guide again, pages, filters, 400 and 410.
 */

const H = 3_600_000;
const DAY = 24 * H;
const at = (hours: number) => formatXmltvUtc(TEST_NOW + hours * H);
const A = channelIdFor('a.uk');
const B = channelIdFor('b.fr');

const guide = (aName: string, programmes: [string, number, string][]) =>
  Buffer.from(`<tv>
<channel id="a.uk"><display-name>${aName}</display-name></channel>
<channel id="b.fr"><display-name>Bé</display-name></channel>
${programmes
  .map(
    ([channel, h, title]) =>
      `<programme start="${at(h)}" stop="${at(h + 1)}" channel="${channel}"><title>${title}</title></programme>`,
  )
  .join('\n')}
</tv>`);

const FIRST: [string, number, string][] = [
  ['a.uk', 1, 'News'],
  ['a.uk', 2, 'Film'],
  ['b.fr', 1, 'Journal'],
];

let t: TestApp;
let key: string;

const ingest = (data: Buffer, nowMs: number, changesRetentionDays: number | null = null) =>
  ingestXmltv(
    t.temp.store.ingest,
    { name: 'guide.xml', data },
    { country: null, assumeOffsetMinutes: 0, nowMs, changesRetentionDays },
  );

interface Answer {
  changes: {
    seq: number;
    kind: string;
    change: string;
    channelId: string;
    programmeId?: string;
    start?: string;
    at: string;
  }[];
  next: number;
  hasMore: boolean;
}

const changes = async (query = '') => {
  const res = await t.get(`/api/v1/changes${query}`, key);
  return { status: res.statusCode, body: res.json() as Answer, res };
};

beforeAll(async () => {
  t = await createTestApp({}, TEST_NOW);
  key = (await t.customer()).key;
  await ingest(guide('Ay', FIRST), TEST_NOW);
});

afterAll(async () => {
  await t?.close();
});

describe('GET /api/v1/changes', () => {
  it('starts from now, then gives exactly what the next ingests changed, in order', async () => {
    const start = await changes();
    expect(start.status).toBe(200);
    expect(start.body.changes).toEqual([]);
    expect(start.body.hasMore).toBe(false);
    // The first ingest wrote 5 records (2 channels, 3 programmes): `next` is the newest.
    expect(start.body.next).toBeGreaterThanOrEqual(5);
    expect((await changes(`?since=${start.body.next}`)).body).toEqual({
      changes: [],
      next: start.body.next,
      hasMore: false,
    });

    // The same guide again changes nothing.
    await ingest(guide('Ay', FIRST), TEST_NOW + 60_000);
    expect((await changes(`?since=${start.body.next}`)).body.changes).toEqual([]);

    // A renamed channel, a retitled programme, one removed, one added.
    await ingest(
      guide('Ay two', [
        ['a.uk', 1, 'News'],
        ['a.uk', 3, 'Late film'],
        ['b.fr', 1, 'Le journal'],
      ]),
      TEST_NOW + 120_000,
    );
    const after = await changes(`?since=${start.body.next}`);
    const when = formatXmltvUtc(TEST_NOW + 120_000);
    const records = after.body.changes.map(({ seq: _seq, ...rest }) => rest);
    expect(records).toEqual(
      expect.arrayContaining([
        { kind: 'channel', change: 'changed', channelId: A, at: when },
        {
          kind: 'programme',
          change: 'added',
          channelId: A,
          programmeId: programmeIdFor(A, at(3)),
          start: at(3),
          at: when,
        },
        {
          kind: 'programme',
          change: 'removed',
          channelId: A,
          programmeId: programmeIdFor(A, at(2)),
          start: at(2),
          at: when,
        },
        {
          kind: 'programme',
          change: 'changed',
          channelId: B,
          programmeId: programmeIdFor(B, at(1)),
          start: at(1),
          at: when,
        },
      ]),
    );
    expect(records).toHaveLength(4);
    // Fields in the documented order, which a webhook's body repeats byte for byte (JSON.parse
    // keeps the answer's order of keys).
    for (const record of after.body.changes) {
      expect(Object.keys(record)).toEqual(
        record.kind === 'programme'
          ? ['seq', 'kind', 'change', 'channelId', 'at', 'programmeId', 'start']
          : ['seq', 'kind', 'change', 'channelId', 'at'],
      );
    }
    const seqs = after.body.changes.map((c) => c.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(seqs[0]).toBeGreaterThan(start.body.next);
    expect(after.body).toMatchObject({ next: seqs.at(-1), hasMore: false });

    // Filters: a channel, a country (the channel's now).
    const ofB = await changes(`?since=${start.body.next}&channels=${B}`);
    expect(ofB.body.changes.map((c) => [c.kind, c.change, c.channelId])).toEqual([
      ['programme', 'changed', B],
    ]);
    expect(ofB.body.next).toBe(after.body.next);
    const inFrance = await changes(`?since=${start.body.next}&country=fr`);
    expect(inFrance.body.changes).toEqual(ofB.body.changes);
    // Both: the listed channels of the country (B is French, A is not).
    const both = await changes(`?since=${start.body.next}&country=FR&channels=${A},${B}`);
    expect(both.body.changes).toEqual(ofB.body.changes);
    const neither = await changes(`?since=${start.body.next}&country=FR&channels=${A}`);
    expect(neither.body).toMatchObject({ changes: [], next: after.body.next });
  });

  it('pages by limit: hasMore and next follow every record once', async () => {
    const all = (await changes('?since=0&limit=1000')).body;
    expect(all.hasMore).toBe(false);
    const seen: number[] = [];
    let since = 0;
    for (let page = 0; page < 100; page++) {
      const { body } = await changes(`?since=${since}&limit=2`);
      seen.push(...body.changes.map((c) => c.seq));
      since = body.next;
      if (!body.hasMore) break;
      expect(body.changes).toHaveLength(2);
    }
    expect(seen).toEqual(all.changes.map((c) => c.seq));
    expect(since).toBe(all.next);
  });

  it('answers 304 to the same ETag, and a new page after another ingest', async () => {
    const first = await changes('?since=0');
    const etag = String(first.res.headers.etag);
    const again = await t.get('/api/v1/changes?since=0', key, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    await ingest(guide('Ay two', [['a.uk', 5, 'Night']]), TEST_NOW + 180_000);
    const moved = await t.get('/api/v1/changes?since=0', key, { 'if-none-match': etag });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().changes.length).toBeGreaterThan(first.body.changes.length);
  });

  it.each([
    ['?since=-1', 'INVALID_PARAMETERS'],
    ['?since=1e3', 'INVALID_PARAMETERS'],
    ['?since=', 'INVALID_PARAMETERS'],
    ['?limit=0', 'INVALID_PARAMETERS'],
    ['?limit=1001', 'INVALID_PARAMETERS'],
    ['?channels=nope', 'INVALID_PARAMETERS'],
    ['?country=U%24', 'INVALID_COUNTRY'],
  ])('refuses %s with 400 %s', async (query, code) => {
    const { status, body } = await changes(query);
    expect({ status, code: (body as unknown as { code: string }).code }).toEqual({
      status: 400,
      code,
    });
  });

  it('answers 410 CURSOR_EXPIRED for a since past the newest, or before what is kept', async () => {
    const newest = (await changes()).body.next;
    const ahead = await changes(`?since=${newest + 1}`);
    expect(ahead.status).toBe(410);
    expect(ahead.body).toMatchObject({ code: 'CURSOR_EXPIRED' });
    // 40 days on, with records kept 30 days: the earlier ones are pruned.
    await ingest(guide('Ay two', [['a.uk', 40 * 24, 'Later']]), TEST_NOW + 40 * DAY, 30);
    const old = await changes('?since=0');
    expect(old.status).toBe(410);
    expect(old.body).toMatchObject({ code: 'CURSOR_EXPIRED' });
    expect((old.body as unknown as { error: string }).error).toMatch(/pruned/);
    const fromHorizon = await changes(`?since=${newest}`);
    expect(fromHorizon.status).toBe(200);
    expect(fromHorizon.body.changes.length).toBeGreaterThan(0);
  });

  it('needs a key', async () => {
    const res = await t.get('/api/v1/changes', null);
    expect(res.statusCode).toBe(401);
  });
});
