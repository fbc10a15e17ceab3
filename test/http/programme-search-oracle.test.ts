import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { parseXmltvTime } from '../../src/domain/xmltv-time.js';
import { TEST_ENGINE } from '../helpers/engines.js';
import {
  createSearchOracle,
  ORACLE_NOW,
  ORACLE_SEED,
  type OracleSearch,
} from '../helpers/search-oracle.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * GET /api/v1/programmes/search against an oracle: random guides ingested three times
 * (test/helpers/search-oracle.ts), random searches asked over HTTP and followed through their
 * `next` cursors, each asked twice (the second time answers may come from the caches), and
 * the searches of the ingest before asked again after the next one (a kept answer must not
 * outlive its catalogue). Every answer must hold exactly the programmes the rules select, and
 * the pages of a search asked again the same bytes. `from` is given, or left to the clock's now.
 *
 * Each run takes a new seed (SEARCH_ORACLE_SEED=N replays one); failures name it.
 */
const SEARCHES_PER_INGEST = 40;
const DEFAULT_DAYS_MS = 14 * 86_400_000;

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp({}, ORACLE_NOW);
  key = (await t.customer(undefined, { rateLimit: 1_000_000 })).key;
});

afterAll(async () => {
  await t?.close();
});

/** The URL of a search, with `from` and `to` left out when `fromNow` (now to 14 days on). */
function urlOf(search: OracleSearch, fromNow: boolean): string {
  const params = new URLSearchParams({ q: search.q, limit: String(search.limit) });
  if (search.country !== null) params.set('country', search.country.toLowerCase());
  if (search.channels !== null) params.set('channels', search.channels.join(','));
  if (!fromNow) {
    params.set('from', new Date(search.fromMs).toISOString());
    params.set('to', new Date(search.toMs).toISOString());
  }
  return `/api/v1/programmes/search?${params}`;
}

/** Every page of a search, following `next`: the bodies and the programmes found. */
async function allPages(
  url: string,
  asked: string,
): Promise<{ bodies: string[]; found: string[] }> {
  const bodies: string[] = [];
  const found: string[] = [];
  let next: string | null = null;
  do {
    const res = await t.get(next === null ? url : `${url}&cursor=${next}`, key);
    expect(res.statusCode, `${asked}: ${res.body}`).toBe(200);
    bodies.push(res.body);
    const answer = res.json() as {
      results: { channel: { channelId: string }; programme: { start: string } }[];
      next: string | null;
    };
    for (const r of answer.results)
      found.push(`${r.channel.channelId} ${parseXmltvTime(r.programme.start)}`);
    next = answer.next;
    expect(bodies.length, `${asked}: pages`).toBeLessThan(500);
  } while (next !== null);
  return { bodies, found };
}

describe(`GET /api/v1/programmes/search against an oracle (${TEST_ENGINE}; seed ${ORACLE_SEED})`, () => {
  it('answers what the rules select through every page, cached or not, after every ingest', async () => {
    const oracle = createSearchOracle(ORACLE_SEED);
    let asked: { search: OracleSearch; fromNow: boolean }[] = [];
    let compared = 0;
    for (let ingest = 0; ingest < 3; ingest++) {
      await ingestXmltv(
        t.temp.store.ingest,
        { name: 'guide.xml', data: Buffer.from(oracle.nextGuide()) },
        { country: null, assumeOffsetMinutes: 0, nowMs: ORACLE_NOW },
      );
      const searches = [...asked];
      while (searches.length < asked.length + SEARCHES_PER_INGEST) {
        const search = oracle.nextSearch();
        // Page sizes of one are the store test's: here a page costs a request.
        if (search !== null && search.limit > 1) {
          searches.push({ search, fromNow: searches.length % 4 === 0 });
        }
      }
      for (const { search, fromNow } of searches) {
        const window = fromNow ? { fromMs: ORACLE_NOW, toMs: ORACLE_NOW + DEFAULT_DAYS_MS } : {};
        const expected = oracle.expected({ ...search, ...window });
        const url = urlOf(search, fromNow);
        const what = `seed ${ORACLE_SEED}, ingest ${ingest}: ${decodeURIComponent(url)}`;
        const first = await allPages(url, what);
        expect([...first.found].sort(), what).toEqual(expected);
        const again = await allPages(url, what);
        expect(again.bodies, `${what}, asked again`).toEqual(first.bodies);
        compared += expected.length;
      }
      asked = searches.slice(asked.length);
    }
    expect(compared).toBeGreaterThan(300);
  });
});
