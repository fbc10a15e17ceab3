import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestXmltv } from '../../src/catalogue/ingest/ingest-xmltv.js';
import { compareSearchKeys, type SearchKey } from '../../src/domain/programme-search.js';
import { ENGINES, openEngineStore, type EngineStore } from '../helpers/engines.js';
import { createSearchOracle, ORACLE_NOW, ORACLE_SEED } from '../helpers/search-oracle.js';
import { searchWhole } from '../helpers/search-whole.js';

/**
 * Programme search against an oracle, in the stores: random guides ingested three times into
 * every engine (test/helpers/search-oracle.ts), and random queries, filters and page sizes
 * answered page by page. Every engine must give the programmes the rules select (every word a
 * word of its texts, the last a prefix of one; start in [from, to); country; channels), in
 * search order, and the same pages as the others. The words are the domain's (searchWordsOf):
 * what this checks is that each store's index, walks, filters and paging find exactly those
 * programmes after every ingest.
 *
 * Each run takes a new seed (SEARCH_ORACLE_SEED=N replays one); failures name it.
 */
const SEARCHES_PER_INGEST = 70;

describe(`programme search against an oracle (${ENGINES.join(', ')}; seed ${ORACLE_SEED})`, () => {
  const stores: EngineStore[] = [];
  beforeAll(async () => {
    for (const engine of ENGINES) stores.push(await openEngineStore(engine, ORACLE_NOW));
  });
  afterAll(async () => {
    for (const s of stores) await s.dispose();
  });

  it('finds what the rules select, in order, page after page, after every ingest', async () => {
    const oracle = createSearchOracle(ORACLE_SEED);
    let compared = 0;
    for (let ingest = 0; ingest < 3; ingest++) {
      const guide = Buffer.from(oracle.nextGuide());
      for (const s of stores) {
        await ingestXmltv(
          s.store.ingest,
          { name: 'guide.xml', data: guide },
          { country: null, assumeOffsetMinutes: 0, nowMs: ORACLE_NOW },
        );
      }
      for (let n = 0; n < SEARCHES_PER_INGEST; n++) {
        const search = oracle.nextSearch();
        if (search === null) continue;
        const expected = oracle.expected(search);
        const pages: string[][] = [];
        for (const s of stores) {
          const keys: SearchKey[] = [];
          const found: string[] = [];
          let after: SearchKey | null = null;
          for (;;) {
            const hits = await searchWhole(s.store.catalogue, { ...search, after });
            for (const hit of hits) {
              keys.push(hit.key);
              found.push(`${hit.channel.id} ${hit.key.startMs}`);
            }
            if (hits.length < search.limit) break;
            after = hits.at(-1)?.key ?? null;
          }
          const asked = `seed ${ORACLE_SEED}, ingest ${ingest}, ${s.engine}: ${JSON.stringify(search)}`;
          expect(keys, `order, ${asked}`).toEqual([...keys].sort(compareSearchKeys));
          expect([...found].sort(), `results, ${asked}`).toEqual(expected);
          pages.push(keys.map((k) => `${k.startMs} ${k.nameKey} ${k.id}`));
          compared += expected.length;
        }
        for (const [i, other] of pages.entries()) {
          expect(
            other,
            `${stores[i]?.engine} against ${stores[0]?.engine}, seed ${ORACLE_SEED}`,
          ).toEqual(pages[0]);
        }
      }
    }
    // The searches found something to compare, not only empty answers.
    expect(compared).toBeGreaterThan(500);
  });
});
