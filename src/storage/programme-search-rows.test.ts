import { describe, expect, it } from 'vitest';
import type { ProgrammeSearch } from './catalogue-reader.js';
import {
  planAndSearch,
  SEARCH_COUNT_CAPS,
  SEARCH_DENSE_WALK,
  type SearchMode,
  type SearchReads,
  type SearchRow,
} from './programme-search-rows.js';

/**
 * The plan alone, over reads that say how many match and how many are stored, and record which
 * ways it read. Which programmes each way finds is the stores' (programme-search-oracle.test.ts).
 */
function planned(matches: number, stored: number, walkFills = true) {
  const ways: SearchMode['kind'][] = [];
  const row = { id: '1', start_ms: 0, channel_name_key: 'a' } as unknown as SearchRow;
  const reads: SearchReads = {
    indexedPrefix: 4,
    count: async (_words, _prefix, cap) => Math.min(matches, cap),
    stored: async () => stored,
    rows: async (search, mode) => {
      ways.push(mode.kind);
      const n = mode.kind === 'walk' && !walkFills ? search.limit - 1 : search.limit;
      return Array.from({ length: n }, () => row);
    },
  };
  const search: ProgrammeSearch = {
    terms: { words: [], prefix: 'news' },
    country: null,
    channels: null,
    fromMs: 0,
    toMs: 1,
    after: null,
    limit: 51,
  };
  return planAndSearch(search, reads).then(() => ways);
}

describe('the programme search plan', () => {
  const lastCap = SEARCH_COUNT_CAPS.at(-1) ?? 0;

  it('reads a word of few matches from the index, however few programmes are stored', async () => {
    expect(await planned(40, 1_800_000)).toEqual(['index']);
    expect(await planned(40, 2_000)).toEqual(['index']);
    expect(await planned(lastCap - 1, 1_800_000)).toEqual(['index']);
  });

  it('walks a word past the last cap, and one under it that is common among those stored', async () => {
    expect(await planned(lastCap, 1_800_000)).toEqual(['walk']);
    // 4,996 of 7,762 programmes (the prefix "de" in the corpus's French guide).
    expect(await planned(4_996, 7_762)).toEqual(['walk']);
    // Just past the rule, and just short of it.
    const stored = 10_000;
    const dense = Math.ceil(Math.sqrt(SEARCH_DENSE_WALK * 51 * stored)) + 1;
    expect(await planned(dense, stored)).toEqual(['walk']);
    expect(await planned(dense - 2, stored)).toEqual(['index']);
  });

  it('reads the index after a walk that did not fill the page', async () => {
    expect(await planned(4_996, 7_762, false)).toEqual(['walk', 'index']);
  });

  it('reads the index when nothing is known to be stored (PostgreSQL before its first ANALYZE)', async () => {
    expect(await planned(0, 0)).toEqual(['index']);
  });
});
