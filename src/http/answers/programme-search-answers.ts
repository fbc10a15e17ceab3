import {
  DEFAULT_SEARCH_DAYS,
  encodeCursor,
  searchWindow,
  type ProgrammeSearchQuery,
} from '../../domain/programme-search.js';
import { errors } from '../../domain/errors.js';
import type { StoredProgramme } from '../../domain/programme.js';
import type { CatalogueReader } from '../../storage/catalogue-reader.js';
import type { CachedAnswers, KeptAnswer } from './cached-answers.js';
import type { EntryCache } from './entry-cache.js';
import { channelFields } from './guide-answers.js';
import { utf8Bytes } from './utf8-bytes.js';

const DAY_MS = 86_400_000;

/**
 * Searches made for one page at most, each undone by an ingest committed between the search
 * and the read of its programmes (ingests are minutes apart): then 503, to be tried again.
 */
const PAGE_ATTEMPTS = 3;

/** A page of a search, serialised, and the start of its first result (null: none). */
export interface SearchPage {
  body: Buffer;
  firstStartMs: number | null;
  /** More results follow (`next` is set). */
  full: boolean;
}

/**
 * The answers of GET /api/v1/programmes/search and of its playground preview: `page` reads and
 * serialises one page; `v1` declares the v1 answer with the cached answers (a search with a
 * `from` is a body kept per catalogue version; one from `now` moves with the clock).
 */
export function createProgrammeSearchAnswers(
  catalogue: Pick<CatalogueReader, 'searchProgrammes' | 'programmesFound'>,
  entries: EntryCache,
) {
  const empty: SearchPage = {
    body: Buffer.from(JSON.stringify({ results: [], next: null })),
    firstStartMs: null,
    full: false,
  };

  /** The page of `query` over [fromMs, toMs) in `channels` (null: the query's own). */
  async function page(
    query: ProgrammeSearchQuery,
    fromMs: number,
    toMs: number,
    channels: readonly string[] | null = query.channels,
  ): Promise<SearchPage> {
    const { terms, limit } = query;
    if (terms === null || channels?.length === 0 || fromMs >= toMs) return empty;
    // A search names the version of each programme it found (a read of the word index gives
    // them whole too); the entries neither kept nor given are made from the programmes read
    // after it. An ingest committed in between changes or removes some: the search is made
    // again, so a page is always of one catalogue version.
    for (let attempt = 1; ; attempt++) {
      const hits = await catalogue.searchProgrammes({
        terms,
        country: query.country,
        channels,
        fromMs,
        toMs,
        after: query.after,
        limit: limit + 1,
      });
      const shown = hits.slice(0, limit);
      const json = shown.map(
        (hit) =>
          entries.kept(hit.programme) ?? (hit.whole === null ? undefined : entries.json(hit.whole)),
      );
      const missing = shown.filter((_, i) => json[i] === undefined);
      const found = missing.length === 0 ? [] : await catalogue.programmesFound(missing);
      if (found.includes(null)) {
        if (attempt < PAGE_ATTEMPTS) continue;
        throw errors.serviceUnavailable('The catalogue is being updated; try again');
      }
      let next = 0;
      // Written from the entries kept as UTF-8 JSON (entry-cache.ts), not by the schema's
      // compiled serializer, in the schema's order (test/http/programme-search.test.ts checks),
      // piece by piece (utf8-bytes.ts says why).
      const pieces: (string | Buffer)[] = ['{"results":['];
      shown.forEach((hit, i) => {
        const entry = json[i] ?? entries.json(found[next++] as StoredProgramme);
        const channel = JSON.stringify(channelFields(hit.channel));
        pieces.push(`${i === 0 ? '' : ','}{"channel":${channel},"programme":`, entry, '}');
      });
      const last = shown.at(-1);
      const full = hits.length > limit && last !== undefined;
      const cursor = full ? encodeCursor(last.key, query.fingerprint) : null;
      pieces.push(`],"next":${JSON.stringify(cursor)}}`);
      return { body: utf8Bytes(pieces), firstStartMs: hits[0]?.key.startMs ?? null, full };
    }
  }

  /** The cache key of a query's answers: what selects them and the page. */
  function keyOf(query: ProgrammeSearchQuery): string {
    const { terms, country, channels, fromMs, toMs, limit, after } = query;
    return JSON.stringify([terms, country, channels, fromMs, toMs, limit, after]);
  }

  /** The v1 answer of a parsed search at `nowMs`, its window checked now (400 if wrong). */
  function v1(answers: CachedAnswers, query: ProgrammeSearchQuery, nowMs: number): KeptAnswer {
    searchWindow(query, nowMs);
    const key = `programmes-search:${keyOf(query)}`;
    const { fromMs, toMs } = query;
    const until = (from: number) => toMs ?? from + DEFAULT_SEARCH_DAYS * DAY_MS;
    if (query.terms === null) return answers.body(key, async () => empty.body);
    // Kept only when asked again: most searches are asked once (cached-answers.ts, Keeping).
    if (fromMs !== null) {
      return answers.body(
        key,
        async () => (await page(query, fromMs, until(fromMs))).body,
        'when-asked-again',
      );
    }
    return answers.moving(
      key,
      (atMs) => Math.floor(atMs / 1000) * 1000,
      async (instantMs) => {
        const found = await page(query, instantMs, until(instantMs));
        // The answer changes when its first result starts (it leaves), when `to` is reached,
        // or, with `to` moving too and the page not full, when a later match comes into range:
        // that one is not known, so such an answer is kept for its second only.
        let validUntilMs = found.firstStartMs === null ? Infinity : found.firstStartMs + 1;
        if (toMs !== null) validUntilMs = Math.min(validUntilMs, toMs);
        else if (!found.full) validUntilMs = Math.min(validUntilMs, instantMs + 1000);
        const body = found.body;
        return { validUntilMs, render: () => body, bytes: body.length };
      },
      'when-asked-again',
    );
  }

  return { page, keyOf, v1 };
}

export type ProgrammeSearchAnswers = ReturnType<typeof createProgrammeSearchAnswers>;
