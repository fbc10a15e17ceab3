import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAuditedFeed,
  deleteAuditedFeed,
  regenerateAuditedFeedToken,
} from '../../src/accounts/feed-service.js';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { channelIdFor } from '../../src/domain/catalogue-ids.js';
import { formatXmltvUtc } from '../../src/domain/xmltv-time.js';
import type { FeedSettings } from '../../src/domain/feed.js';
import { fixturePath } from '../ingest/ingest-helpers.js';
import { seedCatalogue } from '../helpers/catalogue-fixture.js';
import { TEST_ENGINE } from '../helpers/engines.js';
import { SHARED_REDIS_URL } from '../helpers/redis-process.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { ensureReferenceTools } from '../helpers/xmltv-reference.js';

/**
 * The XMLTV feeds, on TEST_ENGINE (the suite runs on both): the document tv_validate_file
 * accepts, gzip, 304, the access rules, 404 for unknown, replaced and deleted tokens, the
 * feed budget, tokens kept out of the log, and a round trip of a feed through an empty Onair.
 */

const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);
const DRAMA = channelIdFor('drama.uk');
const SPORT = channelIdFor('sport.de');
const EMPTY = channelIdFor('empty.uk');
const LIMIT = 20;

let t: TestApp;
let accountId: string;

const settings = (name: string): FeedSettings => ({
  name,
  lineup: { kind: 'channels', channelIds: [SPORT, DRAMA] },
  daysAhead: 7,
  daysBack: 1,
});

async function newFeed(name: string, owner = accountId) {
  const issued = await createAuditedFeed(t.temp.store, owner, settings(name), 'account', NOW);
  return { ...issued, url: `/feeds/${issued.token}/guide.xml` };
}

/** The URL of a new feed of these channels. */
async function feedOfChannels(name: string, channelIds: string[]): Promise<string> {
  const lineup = { kind: 'channels' as const, channelIds };
  const { token } = await createAuditedFeed(
    t.temp.store,
    accountId,
    { ...settings(name), lineup },
    'account',
    NOW,
  );
  return `/feeds/${token}/guide.xml`;
}

beforeAll(async () => {
  t = await createTestApp({ FEED_FETCH_LIMIT: String(LIMIT) }, NOW);
  await ingestXmltv(
    t.temp.store.ingest,
    { source: fixturePath('rich.xml') },
    { country: null, assumeOffsetMinutes: 0, nowMs: NOW },
  );
  // A channel whose only programme is long before any feed's window.
  await seedCatalogue(
    t.temp.store,
    [{ xmltvId: 'empty.uk', name: 'Empty', country: 'UK' }],
    [{ channel: 'empty.uk', startMs: NOW - 30 * 86_400_000 }],
  );
  accountId = (await t.customer('feeds@example.com')).account.id;
});

afterAll(async () => {
  await t?.close();
});

describe(`guide feeds (${TEST_ENGINE})`, () => {
  it('answers XMLTV that tv_validate_file accepts, channels in lineup order, programmes by start', async () => {
    const { token } = await createAuditedFeed(
      t.temp.store,
      accountId,
      { ...settings('valid'), lineup: { kind: 'channels', channelIds: [EMPTY, SPORT, DRAMA] } },
      'account',
      NOW,
    );
    const url = `/feeds/${token}/guide.xml`;
    const res = await t.get(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(res.headers['content-encoding']).toBeUndefined();
    const xml = res.body;
    // A channel without a programme in the window is left out (validators refuse it).
    expect([...xml.matchAll(/<channel id="([^"]+)"/g)].map((m) => m[1])).toEqual([
      'sport.de',
      'drama.uk',
    ]);
    const starts = [...xml.matchAll(/<programme start="([^"]+)"[^>]* channel="([^"]+)"/g)].map(
      (m) => `${m[2]} ${m[1]}`,
    );
    expect(starts).toEqual([
      'sport.de 20260301180000 +0000',
      'sport.de 20260301200000 +0000',
      'drama.uk 20260301190000 +0000',
      'drama.uk 20260301203000 +0000',
      'drama.uk 20260301210000 +0000',
    ]);
    expect(xml).toContain('<display-name>Drama Channel</display-name>');

    ensureReferenceTools();
    const file = join(t.temp.dir, 'feed.xml');
    writeFileSync(file, xml);
    // tv_validate_file checks the DTD (element order included), ids, times and episode numbers.
    const out = execFileSync('tv_validate_file', [file], {
      env: { ...process.env, XMLTV_SUPPLEMENT: '/usr/share/xmltv' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out).toBe('Validated ok.\n');
  });

  it('writes line breaks and tabs as they are, so XMLTV tools pass texts on unchanged', async () => {
    const multi = channelIdFor('multi.uk');
    const desc = 'Line one.\n\tLine two & more.\nLine three.';
    await ingestXmltv(
      t.temp.store.ingest,
      {
        name: 'multi.xml',
        data: Buffer.from(`<tv><channel id="multi.uk"><display-name>Multi</display-name></channel>
<programme start="20260301190000 +0000" stop="20260301200000 +0000" channel="multi.uk">
<title>Lines</title><desc>${desc.replace('&', '&amp;')}</desc></programme></tv>`),
      },
      { country: 'UK', assumeOffsetMinutes: 0, nowMs: NOW },
    );
    const xml = (await t.get(await feedOfChannels('lines', [multi]))).body;
    expect(xml).toContain(`<desc>${desc.replace('&', '&amp;')}</desc>`);
    ensureReferenceTools();
    const file = join(t.temp.dir, 'lines.xml');
    writeFileSync(file, xml);
    // XMLTV's Perl library reads it back with the same text (it kept "&#10;" as text before).
    const copied = execFileSync('tv_cat', [file], { encoding: 'utf8' });
    expect(copied).toContain(`<desc>${desc.replace('&', '&amp;')}</desc>`);
    expect(copied).not.toContain('&#');
  });

  it('sends gzip by Accept-Encoding and as .gz, with one ETag, 304 by ETag or If-Modified-Since, and Last-Modified', async () => {
    const { url } = await newFeed('gzip');
    const plain = await t.get(url);
    const zipped = await t.get(url, null, { 'accept-encoding': 'gzip, deflate' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    expect(gunzipSync(zipped.rawPayload).toString('utf8')).toBe(plain.body);
    const file = await t.get(`${url}.gz`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('application/gzip');
    expect(file.headers['content-encoding']).toBeUndefined();
    expect(gunzipSync(file.rawPayload).toString('utf8')).toBe(plain.body);

    const etag = String(plain.headers.etag);
    expect(zipped.headers.etag).toBe(etag);
    expect(file.headers.etag).toBe(etag);
    expect(new Date(String(plain.headers['last-modified'])).getTime()).toBe(NOW);
    const again = await t.get(url, null, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // The tag compared weakly: its strong form names the same document.
    expect((await t.get(url, null, { 'if-none-match': etag.slice(2) })).statusCode).toBe(304);
    // If-Modified-Since (curl -z, wget -N): 304 from Last-Modified until now, 200 before it;
    // ignored when it is no HTTP-date or later than now (RFC 9110), or when If-None-Match is
    // sent, which decides alone. Last-Modified is never later than the answer's Date.
    const lastModified = String(plain.headers['last-modified']);
    expect(Date.parse(lastModified)).toBeLessThanOrEqual(NOW);
    const since = (date: string, more: Record<string, string> = {}) =>
      t.get(url, null, { 'if-modified-since': date, ...more });
    expect((await since(lastModified)).statusCode).toBe(304);
    // RFC 850's and asctime's forms of the same instant are HTTP-dates too.
    expect((await since('Sunday, 01-Mar-26 12:00:00 GMT')).statusCode).toBe(304);
    expect((await since('Sun Mar  1 12:00:00 2026')).statusCode).toBe(304);
    expect((await since(new Date(NOW - 1000).toUTCString())).statusCode).toBe(200);
    expect((await since(new Date(NOW + 3_600_000).toUTCString())).statusCode).toBe(200);
    for (const notADate of [
      'yesterday',
      '2026-03-01T12:00:00Z',
      'Sun, 01 Mar 2026 12:00:00 +0100',
    ]) {
      expect((await since(notADate)).statusCode, notADate).toBe(200);
    }
    expect((await since(lastModified, { 'if-none-match': 'W/"other"' })).statusCode).toBe(200);
    // A later ingest changes the catalogue: a new tag, and the new programme in the feed.
    await ingestXmltv(
      t.temp.store.ingest,
      {
        name: 'more.xml',
        data: Buffer.from(
          '<tv><channel id="sport.de"><display-name>Sport Kanal</display-name></channel>' +
            '<programme start="20260302090000 +0000" stop="20260302100000 +0000" channel="sport.de"><title>Later</title></programme></tv>',
        ),
      },
      { country: null, assumeOffsetMinutes: 0, nowMs: NOW },
    );
    const changed = await t.get(url, null, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.body).toContain('<title>Later</title>');
    // Made in the same second as the first document (the clock stands still here), the new one
    // has the same date, never a later one than now: that date no longer answers 304, so a copy
    // of the first is not taken for it; a later second does.
    expect(changed.headers['last-modified']).toBe(lastModified);
    const stale = await since(lastModified);
    expect(stale.statusCode).toBe(200);
    expect(stale.body).toContain('<title>Later</title>');
    t.clock.advance(2000);
    try {
      expect((await since(new Date(NOW + 1000).toUTCString())).statusCode).toBe(304);
    } finally {
      t.clock.advance(-2000); // the later cases count from NOW
    }
  });

  it("writes every display-name of the guide after the catalogue's name, kept until the guide changes them", async () => {
    const NAMES = channelIdFor('names.uk');
    const programme = `<programme start="20260301190000 +0000" stop="20260301200000 +0000" channel="names.uk"><title>Named</title></programme>`;
    const ingest = (name: string, channel: string) =>
      ingestXmltv(
        t.temp.store.ingest,
        { name, data: Buffer.from(`<tv>${channel}${programme}</tv>`) },
        { country: 'GB', assumeOffsetMinutes: 0, nowMs: NOW },
      );
    // Each name as "text" or "text (lang)".
    const names = (xml: string) =>
      [
        ...(/<channel id="names.uk">(.*?)<\/channel>/.exec(xml)?.[1] ?? '').matchAll(
          /<display-name(?: lang="([^"]*)")?>([^<]*)<\/display-name>/g,
        ),
      ].map((m) => (m[1] === undefined ? m[2] : `${m[2]} (${m[1]})`));
    await ingest(
      'names.xml',
      '<channel id="names.uk"><display-name lang="en">Names One</display-name><display-name>101</display-name>' +
        '<display-name lang="fr"> Names One </display-name><display-name></display-name><display-name lang="en">N1</display-name></channel>',
    );
    const url = await feedOfChannels('names', [NAMES]);
    // Each text once (with the lang it first came with), blank ones left out, in the guide's
    // order.
    expect(names((await t.get(url)).body)).toEqual(['Names One (en)', '101', 'N1 (en)']);

    // The guide gives other names: the feed follows; no change record, as no field of the
    // channel the API shows changed.
    const { key } = await t.customer();
    const before = (await t.get('/api/v1/changes?since=0&limit=1000', key)).json();
    await ingest(
      'names-2.xml',
      '<channel id="names.uk"><display-name>Names One</display-name><display-name>102</display-name></channel>',
    );
    expect(names((await t.get(url)).body)).toEqual(['Names One', '102']);
    const after = (await t.get(`/api/v1/changes?since=${before.next}&limit=1000`, key)).json();
    expect(after.changes).toEqual([]);

    // A guide without the channel's element leaves its names as they were.
    await ingest('names-3.xml', '');
    expect(names((await t.get(url)).body)).toEqual(['Names One', '102']);

    // A name the operator fixed comes first; the guide's names follow it.
    await t.temp.store.channels.fixChannel(NAMES, { name: 'Names Fixed' }, NOW);
    const fixed = (await t.get(url)).body;
    expect(names(fixed)).toEqual(['Names Fixed', 'Names One', '102']);

    ensureReferenceTools();
    const file = join(t.temp.dir, 'names-feed.xml');
    writeFileSync(file, fixed);
    execFileSync('tv_validate_file', [file], {
      env: { ...process.env, XMLTV_SUPPLEMENT: '/usr/share/xmltv' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  });

  it('moves with the clock: a programme enters when now + daysAhead passes its start', async () => {
    const later = NOW + 86_400_000 + 30 * 60_000;
    await ingestXmltv(
      t.temp.store.ingest,
      {
        name: 'later.xml',
        data: Buffer.from(
          '<tv><channel id="sport.de"><display-name>Sport Kanal</display-name></channel>' +
            `<programme start="${formatXmltvUtc(later)}" channel="sport.de"><title>Tomorrow</title></programme></tv>`,
        ),
      },
      { country: null, assumeOffsetMinutes: 0, nowMs: NOW },
    );
    const { token } = await createAuditedFeed(
      t.temp.store,
      accountId,
      { ...settings('one day'), daysAhead: 1 },
      'account',
      NOW,
    );
    const url = `/feeds/${token}/guide.xml`;
    const before = await t.get(url);
    expect(before.body).not.toContain('Tomorrow');
    // Starts in [from, now + daysAhead): at the start itself, not yet.
    t.clock.advance(30 * 60_000);
    const still = await t.get(url, null, { 'if-none-match': String(before.headers.etag) });
    expect(still.statusCode).toBe(304);
    t.clock.advance(1);
    const after = await t.get(url, null, { 'if-none-match': String(before.headers.etag) });
    expect(after.statusCode).toBe(200);
    expect(after.body).toContain('<title>Tomorrow</title>');
    t.clock.ms = NOW;
  });

  it('refuses an account without access with the v1 JSON error, 403', async () => {
    const expired = await t.customer('expired@example.com', { verifiedAt: NOW - 30 * 86_400_000 });
    const { url } = await newFeed('expired', expired.account.id);
    const res = await t.get(url);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: 'This account has no active trial or paid access',
      code: 'ACCESS_EXPIRED',
    });
  });

  it('answers 404 alike for an unknown, a replaced and a deleted token', async () => {
    const unknown = await t.get(`/feeds/${'x'.repeat(43)}/guide.xml`);
    expect(unknown.statusCode).toBe(404);
    const feed = await newFeed('renewed');
    expect((await t.get(feed.url)).statusCode).toBe(200);
    const renewed = await regenerateAuditedFeedToken(t.temp.store, feed.feed, 'account', NOW);
    const replaced = await t.get(feed.url);
    expect(replaced.statusCode).toBe(404);
    expect(replaced.body).toBe(unknown.body);
    expect(replaced.json()).toEqual({ error: 'Not found', code: 'NOT_FOUND' });
    const newUrl = `/feeds/${renewed?.token}/guide.xml.gz`;
    expect((await t.get(newUrl)).statusCode).toBe(200);
    await deleteAuditedFeed(t.temp.store, feed.feed, 'account', NOW);
    const deleted = await t.get(newUrl);
    expect(deleted.statusCode).toBe(404);
    expect(deleted.body).toBe(unknown.body);
  });

  it('answers another method than GET 405, token or not', async () => {
    const feed = await newFeed('methods');
    for (const url of [feed.url, `/feeds/${'x'.repeat(43)}/guide.xml.gz`]) {
      const res = await t.inject({ method: 'POST', url });
      expect(res.statusCode, url).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
      expect(res.json()).toEqual({ error: expect.any(String), code: 'METHOD_NOT_ALLOWED' });
    }
    expect((await t.get(feed.url)).statusCode).toBe(200);
  });

  it('counts fetches per feed in a budget of its own: 429 with Retry-After', async () => {
    const first = await newFeed('budget one');
    const second = await newFeed('budget two');
    for (let i = 0; i < LIMIT; i++) expect((await t.get(first.url)).statusCode).toBe(200);
    const refused = await t.get(first.url);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      error: 'Too many fetches of this feed',
      code: 'RATE_LIMITED',
    });
    // The window is the clock hour: NOW is on the hour, so all of it is left.
    expect(refused.headers['retry-after']).toBe('3600');
    expect((await t.get(second.url)).statusCode).toBe(200);
    t.clock.advance(3_600_000);
    expect((await t.get(first.url)).statusCode).toBe(200);
    t.clock.ms = NOW;
  });

  it('keeps tokens out of the log', async () => {
    const { token, url } = await newFeed('logged');
    await t.get(url);
    await t.get(`${url}.gz`);
    expect(t.logs()).toContain('/feeds/[redacted]/guide.xml.gz');
    expect(t.logs()).not.toContain(token);
  });
});

describe(`a feed ingested into an empty Onair (${TEST_ENGINE})`, () => {
  let copy: TestApp;
  afterAll(async () => {
    await copy?.close();
  });

  it('gives the same v1 answers and rich details as the source, ids and updatedAt aside', async () => {
    const { url } = await newFeed('round trip');
    const feedXml = (await t.get(url)).body;
    copy = await createTestApp({}, NOW);
    const path = join(copy.temp.dir, 'feed.xml');
    writeFileSync(path, feedXml);
    await ingestXmltv(
      copy.temp.store.ingest,
      { source: path },
      { country: null, assumeOffsetMinutes: 0, nowMs: NOW },
    );
    const sourceKey = (await t.customer()).key;
    const copyKey = (await copy.customer()).key;
    const answers = async (app: TestApp, key: string) => {
      const get = async (path: string) => {
        const res = await app.get(path, key);
        expect(res.statusCode).toBe(200);
        return res.json() as Record<string, unknown>;
      };
      // The feed's channels as the channel lists show them (the source has others too).
      const view: Record<string, unknown> = {};
      for (const country of ['UK', 'DE']) {
        const list = (await get(`/api/v1/countries/${country}/channels`)) as {
          channels: { id: string }[];
        };
        view[country] = list.channels.filter((c) => c.id === DRAMA || c.id === SPORT);
      }
      for (const channel of [DRAMA, SPORT]) {
        const { programmes } = (await get(`/api/v1/channels/${channel}/programmes?days=all`)) as {
          programmes: { id: string }[];
        };
        view[channel] = await Promise.all(
          programmes.map(async (p) => {
            const { programme } = (await get(`/api/v1/channels/${channel}/programmes/${p.id}`)) as {
              programme: Record<string, unknown>;
            };
            const { id, updatedAt, sourceFileId, ...rest } = programme;
            expect([id, updatedAt, sourceFileId].every((v) => typeof v === 'string')).toBe(true);
            return rest;
          }),
        );
      }
      return view;
    };
    const source = await answers(t, sourceKey);
    expect((source[DRAMA] as unknown[]).length).toBe(3);
    expect([(source.UK as unknown[]).length, (source.DE as unknown[]).length]).toEqual([1, 1]);
    expect(await answers(copy, copyKey)).toEqual(source);
  });
});

describe(`the feed budget with REDIS_URL (${TEST_ENGINE})`, () => {
  it('lives in Redis under a prefix of its own, apart from the API budget', async () => {
    const prefix = `onair-test:${randomUUID()}:`;
    const r = await createTestApp({
      REDIS_URL: SHARED_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      FEED_FETCH_LIMIT: '2',
    });
    const redis = new Redis(SHARED_REDIS_URL);
    try {
      await seedCatalogue(r.temp.store, [{ xmltvId: 'one.uk', name: 'One', country: 'UK' }]);
      const { account, key } = await r.customer();
      const { token } = await createAuditedFeed(
        r.temp.store,
        account.id,
        { ...settings('redis'), lineup: { kind: 'country', country: 'UK' } },
        'account',
        r.clock.ms,
      );
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push((await r.get(`/feeds/${token}/guide.xml`)).statusCode);
      expect(codes).toEqual([200, 200, 429]);
      const keys = await redis.keys(`${prefix}rl:*`);
      expect(keys).toHaveLength(1);
      expect(keys[0]).toMatch(new RegExp(`^${prefix}rl:feed:`));
      expect(await redis.get(keys[0] ?? '')).toBe('3');
      // The account's API budget is untouched by its feed's.
      expect((await r.get('/api/v1/countries', key)).statusCode).toBe(200);
    } finally {
      redis.disconnect();
      await r.close();
    }
  });
});
