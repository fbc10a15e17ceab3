import { describe, expect, it } from 'vitest';
// The benchmarks' generator of synthetic catalogues writes through the store's ingest session
// from plain JavaScript, which the type checker does not see: a field the session came to
// require (the channels' display-names) broke every benchmark without a test failing.
import { generateCatalogue } from '../../bench/catalogue-generator.mjs';
import * as ids from '../../src/domain/catalogue-ids.js';
import * as details from '../../src/domain/programme-details.js';
import * as search from '../../src/domain/programme-search.js';
import * as time from '../../src/domain/xmltv-time.js';
import { TEST_ENGINE, storeForEachTest } from '../helpers/engines.js';

const NOW = Date.UTC(2026, 10, 1, 12);
const freshStore = storeForEachTest(TEST_ENGINE, NOW);

describe(`the benchmarks' catalogue generator (${TEST_ENGINE})`, () => {
  it('fills a store the v1 reads answer from', async () => {
    const { store } = freshStore();
    await generateCatalogue({ ids, time, details, search }, store, {
      channels: 3,
      days: 2,
      perDay: 4,
      futureDays: 1,
      nowMs: NOW,
    });
    const countries = await store.catalogue.listCountries();
    expect(countries.reduce((n, c) => n + c.channelCount, 0)).toBe(3);
    const first = ids.channelIdFor('bench0.uk');
    expect(await store.catalogue.listProgrammes(first)).toHaveLength(8);
  });
});
