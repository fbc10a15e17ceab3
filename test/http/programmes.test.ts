import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { seedCatalogue } from '../helpers/catalogue-fixture.js';
import { createTestApp, registerFixture, TEST_NOW, type TestApp } from '../helpers/test-app.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MIDNIGHT = Date.UTC(2026, 7, 22); // the UTC day TEST_NOW falls in

let t: TestApp;
let key: string;
let channelId: string;
let sourceFileId: string;
const base = () => `/api/v1/channels/${channelId}/programmes`;

async function starts(query = ''): Promise<string[]> {
  const res = await t.get(`${base()}${query}`, key);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { programmes: { start: string }[] }).programmes.map((p) => p.start);
}

async function setUp(): Promise<void> {
  t = await createTestApp();
  ({ key } = await t.customer());
  const seeded = await seedCatalogue(
    t.temp.store,
    [
      { xmltvId: 'one.uk', name: 'One', country: 'UK' },
      { xmltvId: 'empty.uk', name: 'Empty', country: 'UK' },
    ],
    [
      { channel: 'one.uk', startMs: TEST_NOW - 400 * DAY, title: 'ancient' },
      { channel: 'one.uk', startMs: TEST_NOW - 7 * DAY - 1000, title: 'just before 7 days' },
      { channel: 'one.uk', startMs: TEST_NOW - 7 * DAY, title: 'exactly 7 days' },
      { channel: 'one.uk', startMs: MIDNIGHT - DAY, title: 'yesterday 00:00' },
      { channel: 'one.uk', startMs: MIDNIGHT - 1000, title: 'yesterday 23:59:59' },
      { channel: 'one.uk', startMs: MIDNIGHT, title: 'today 00:00' },
      { channel: 'one.uk', startMs: MIDNIGHT + 23 * HOUR, title: 'today 23:00' },
      { channel: 'one.uk', startMs: MIDNIGHT + DAY, title: 'tomorrow 00:00' },
      { channel: 'one.uk', startMs: MIDNIGHT + 2 * DAY - 1000, title: 'tomorrow 23:59:59' },
      { channel: 'one.uk', startMs: MIDNIGHT + 2 * DAY, title: 'day after tomorrow' },
      { channel: 'one.uk', startMs: TEST_NOW + 300 * DAY, title: 'far future' },
      { channel: 'one.uk', rawStart: 'garbage', title: 'unparseable start' },
      { channel: 'one.uk', rawStart: '2026-08-22 10:00', title: 'another unparseable' },
    ],
  );
  channelId = seeded.channelIds.get('one.uk') ?? '';
  sourceFileId = seeded.sourceFileId;
}

/** The app above, a new one for each test or one the describe's tests share (they only read). */
const seededApp = (scope: 'each' | 'all') => registerFixture(scope, setUp, () => t.close());

describe('GET /api/v1/channels/:channelId/programmes — caching', () => {
  seededApp('each');

  it('sends an ETag; If-None-Match gets 304 until the window or the catalogue changes', async () => {
    const first = await t.get(`${base()}?days=today`, key);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const again = await t.get(`${base()}?days=today`, key, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // Another window of the same channel has other bytes, so another tag.
    const tomorrow = await t.get(`${base()}?days=tomorrow`, key, { 'if-none-match': etag });
    expect(tomorrow.statusCode).toBe(200);
    expect(tomorrow.headers.etag).not.toBe(etag);
    // An ingest changes the catalogue: the old tag no longer matches, and the new data shows.
    await seedCatalogue(
      t.temp.store,
      [{ xmltvId: 'one.uk', name: 'One', country: 'UK' }],
      [{ channel: 'one.uk', startMs: MIDNIGHT + HOUR, title: 'a new one' }],
    );
    const changed = await t.get(`${base()}?days=today`, key, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.body).toContain('a new one');
  });
});

describe('GET /api/v1/channels/:channelId/programmes — compression', () => {
  seededApp('each');

  it('sends brotli or gzip when accepted, the same JSON once decoded', async () => {
    const plain = await t.get(`${base()}?days=all`, key);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    const br = await t.get(`${base()}?days=all`, key, { 'accept-encoding': 'gzip, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length);
    const gz = await t.get(`${base()}?days=all`, key, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    // Small bodies are not worth it.
    const small = await t.get('/api/v1/countries', key, { 'accept-encoding': 'br' });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('streams a body of several MB whole, with its length, plain and compressed', async () => {
    const count = 6000;
    const seeded = await seedCatalogue(
      t.temp.store,
      [{ xmltvId: 'big.uk', name: 'Big', country: 'UK' }],
      Array.from({ length: count }, (_, i) => ({
        channel: 'big.uk',
        startMs: TEST_NOW - i * HOUR,
        title: `Programme ${i}`,
        desc: `${i} `.repeat(150),
      })),
    );
    const url = `/api/v1/channels/${seeded.channelIds.get('big.uk')}/programmes?days=all`;
    const plain = await t.get(url, key);
    expect(plain.statusCode).toBe(200);
    expect(plain.rawPayload.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(Number(plain.headers['content-length'])).toBe(plain.rawPayload.length);
    const programmes = (plain.json() as { programmes: { title: string }[] }).programmes;
    expect(programmes).toHaveLength(count);
    expect(programmes[0]?.title).toBe(`Programme ${count - 1}`);
    const br = await t.get(url, key, { 'accept-encoding': 'br' });
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    const etag = String(plain.headers.etag);
    expect((await t.get(url, key, { 'if-none-match': etag })).statusCode).toBe(304);
  });
});

describe('GET /api/v1/channels/:channelId/programmes — happy', () => {
  seededApp('all');

  it('returns exactly the spec fields, in UTC XMLTV form, with channelId', async () => {
    const res = await t.get(`${base()}?days=today`, key);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json() as { channelId: string; programmes: Record<string, unknown>[] };
    expect(Object.keys(body).sort()).toEqual(['channelId', 'programmes']);
    expect(body.channelId).toBe(channelId);
    const first = body.programmes[0];
    expect(Object.keys(first ?? {}).sort()).toEqual(
      [
        'category',
        'desc',
        'id',
        'needsReview',
        'sourceFileId',
        'start',
        'stop',
        'title',
        'updatedAt',
      ].sort(),
    );
    expect(first).toMatchObject({
      start: '20260822000000 +0000',
      stop: '20260822003000 +0000',
      title: 'today 00:00',
      sourceFileId,
      needsReview: false,
      updatedAt: '1700000000000',
    });
    expect(first?.id).toMatch(/^[0-9]+$/);
  });

  it('defaults to a 7-day lookback with no upper bound, start ascending', async () => {
    expect(await starts()).toEqual([
      '20260815103000 +0000', // exactly now − 7 days is included
      '20260821000000 +0000',
      '20260821235959 +0000',
      '20260822000000 +0000',
      '20260822230000 +0000',
      '20260823000000 +0000',
      '20260823235959 +0000',
      '20260824000000 +0000',
      '20270618103000 +0000',
    ]);
  });

  it('days=N looks back N days from now', async () => {
    // now is 2026-08-22 10:30, so one day back reaches 2026-08-21 10:30.
    expect((await starts('?days=1'))[0]).toBe('20260821235959 +0000');
    expect(await starts('?days=365')).toContain('20260815102959 +0000');
    expect(await starts('?days=365')).not.toContain('20250718103000 +0000');
    expect(await starts('?days=007')).toEqual(await starts());
  });

  it('today, tomorrow and yesterday are half-open UTC days, case-insensitive', async () => {
    expect(await starts('?days=today')).toEqual(['20260822000000 +0000', '20260822230000 +0000']);
    expect(await starts('?days=TOMORROW')).toEqual([
      '20260823000000 +0000',
      '20260823235959 +0000',
    ]);
    expect(await starts('?days=Yesterday')).toEqual([
      '20260821000000 +0000',
      '20260821235959 +0000',
    ]);
  });

  it('days=all, all=1 and all=true return everything, unparseable starts last', async () => {
    const all = await starts('?days=all');
    expect(all).toHaveLength(13);
    expect(all[0]).toBe('20250718103000 +0000');
    expect(all.slice(-2).sort()).toEqual(['2026-08-22 10:00', 'garbage']);
    expect(await starts('?all=1')).toEqual(all);
    expect(await starts('?all=true')).toEqual(all);
    expect(await starts('?all=TRUE')).toEqual(all);
    expect(await starts('?days=ALL')).toEqual(all);
  });

  it('filtered windows leave out programmes whose start does not parse', async () => {
    for (const query of ['', '?days=365', '?days=today']) {
      expect(await starts(query)).not.toContain('garbage');
    }
  });

  it('unparseable programmes carry needsReview and are ordered by id among themselves', async () => {
    const res = await t.get(`${base()}?all=1`, key);
    const programmes = (
      res.json() as { programmes: { id: string; start: string; needsReview: boolean }[] }
    ).programmes;
    const tail = programmes.slice(-2);
    expect(tail.every((p) => p.needsReview)).toBe(true);
    expect(tail.map((p) => p.id)).toEqual(tail.map((p) => p.id).sort());
  });

  it('an existing channel without programmes answers 200 with an empty list', async () => {
    const id = (await t.get('/api/v1/countries/UK/channels', key))
      .json()
      .channels.find((c: { name: string }) => c.name === 'Empty').id as string;
    const res = await t.get(`/api/v1/channels/${id}/programmes?days=all`, key);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ channelId: id, programmes: [] });
  });

  it('accepts an upper-case channel id and ignores unknown parameters', async () => {
    const res = await t.get(
      `${base().replace(channelId, channelId.toUpperCase())}?days=today&x=1`,
      key,
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().channelId).toBe(channelId);
  });

  it('equal requests give byte-equal bodies', async () => {
    const a = await t.get(`${base()}?days=all`, key);
    const b = await t.get(`${base()}?days=all`, key);
    expect(a.body).toBe(b.body);
  });
});

describe('GET /api/v1/channels/:channelId/programmes — errors', () => {
  seededApp('all');

  it.each(['0', '366', '-1', '1.5', '+7', ' 7', 'abc', '', 'todayy', '7days', '1e2', 'all7'])(
    'days=%j → 400 INVALID_DAYS',
    async (days) => {
      const res = await t.get(`${base()}?days=${encodeURIComponent(days)}`, key);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: expect.any(String), code: 'INVALID_DAYS' });
    },
  );

  it.each(['0', 'false', 'yes', '', '2'])('all=%j → 400', async (all) => {
    const res = await t.get(`${base()}?all=${all}`, key);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('INVALID_PARAMETERS');
  });

  it.each(['?days=7&all=1', '?days=all&all=true', '?all=1&days=today'])(
    '%s (days with all) → 400 INVALID_PARAMETERS',
    async (query) => {
      const res = await t.get(`${base()}${query}`, key);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: expect.any(String), code: 'INVALID_PARAMETERS' });
    },
  );

  it('a repeated parameter → 400', async () => {
    for (const query of ['?days=1&days=2', '?days=7&days=7', '?all=1&all=1']) {
      const res = await t.get(`${base()}${query}`, key);
      expect(res.statusCode, query).toBe(400);
      expect(res.json()).toEqual({
        error: `Parameter ${query.includes('days') ? 'days' : 'all'} is given more than once`,
        code: 'INVALID_PARAMETERS',
      });
    }
  });

  it('an unknown channel → 404 CHANNEL_NOT_FOUND', async () => {
    const res = await t.get(
      '/api/v1/channels/00000000-0000-4000-8000-000000000000/programmes',
      key,
    );
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: expect.any(String), code: 'CHANNEL_NOT_FOUND' });
  });

  it('a channel id that is not a UUID → 404', async () => {
    for (const id of ['nope', '1234', `${channelId}x`, 'x'.repeat(500), '%20']) {
      const res = await t.get(`/api/v1/channels/${id}/programmes`, key);
      expect(res.statusCode, id).toBe(404);
      expect(res.json().code).toBe('CHANNEL_NOT_FOUND');
    }
  });

  it('parameters are checked before existence: bad days on an unknown channel → 400', async () => {
    const res = await t.get('/api/v1/channels/nope/programmes?days=0', key);
    expect(res.statusCode).toBe(400);
  });
});
