// Types of catalogue-generator.mjs for the test that runs it (test/lint/bench-catalogue.test.ts).
import type * as ids from '../src/domain/catalogue-ids.js';
import type * as details from '../src/domain/programme-details.js';
import type * as search from '../src/domain/programme-search.js';
import type * as time from '../src/domain/xmltv-time.js';
import type { Store } from '../src/storage/store.js';

/** The domain modules the generator uses, from dist/ (the benchmarks) or src/ (the test). */
export interface GeneratorLib {
  ids: typeof ids;
  time: typeof time;
  details: typeof details;
  search?: typeof search;
}

export const GRID_COUNTRY: string;

export function generateCatalogue(
  lib: GeneratorLib,
  store: Store,
  options: {
    channels: number;
    days: number;
    perDay: number;
    futureDays: number;
    nowMs: number;
    rareTitles?: boolean;
  },
): Promise<{ channels: number; programmes: number }>;
