import fastJson from 'fast-json-stringify';
import {
  DEFAULT_SEARCH_DAYS,
  encodeCursor,
  searchWindow,
  type ProgrammeSearchQuery,
} from '../../domain/programme-search.js';
import type { CatalogueReader, ProgrammeSearchHit } from '../../storage/catalogue-reader.js';
import { ProgrammeSearchResponse } from '../schemas.js';
import type { CachedAnswers, KeptAnswer } from './cached-answers.js';

const DAY_MS = 86_400_000;

/**
 * The answers of GET /api/v1/programmes/search (and its playground preview), declared with the
 * cached answers: a search with a `from` is a body kept per catalogue version; one from `now`
 * moves with the clock, kept until its first result starts (it then leaves the answer).
 */
export function createProgrammeSearchAnswers(catalogue: CatalogueReader, answers: CachedAnswers) {
  const json = fastJson(ProgrammeSearchResponse as object);

  function body(query: ProgrammeSearchQuery, hits: readonly ProgrammeSearchHit[]): string {
    const page = hits.slice(0, query.limit);
    const last = page.at(-1);
    return json({
      results: page.map(({ channel, programme }) => ({
        channel: {
          channelId: channel.id,
          name: channel.name,
          icon: channel.icon,
          country: channel.country,
          needsReview: channel.needsReview,
        },
        programme,
      })),
      next:
        hits.length > query.limit && last !== undefined
          ? encodeCursor(last.key, query.fingerprint)
          : null,
    });
  }

  /**
   * The answer of a parsed search at `nowMs` (its window checked now: 400 when empty or too
   * long). `scope` names the only channels it may find (the playground's), or is null; `route`
   * keeps the answers of different routes apart.
   */
  return function answer(
    route: string,
    query: ProgrammeSearchQuery,
    nowMs: number,
    scope: readonly string[] | null,
  ): KeptAnswer {
    searchWindow(query, nowMs);
    const { terms, country, fromMs, toMs, limit, after } = query;
    const channels =
      scope === null
        ? query.channels
        : query.channels === null
          ? scope
          : query.channels.filter((id) => scope.includes(id));
    const key = `${route}:${JSON.stringify([terms, country, channels, fromMs, toMs, limit, after])}`;
    if (terms === null || channels?.length === 0) {
      return answers.body(key, async () => json({ results: [], next: null }));
    }
    const read = (from: number) =>
      catalogue.searchProgrammes({
        terms,
        country,
        channels,
        fromMs: from,
        toMs: toMs ?? from + DEFAULT_SEARCH_DAYS * DAY_MS,
        after,
        limit: limit + 1,
      });
    if (fromMs !== null) return answers.body(key, async () => body(query, await read(fromMs)));
    return answers.moving(
      key,
      (atMs) => Math.floor(atMs / 1000) * 1000,
      async (instantMs) => {
        const hits = await read(instantMs);
        const text = body(query, hits);
        const first = hits[0];
        // The answer changes when its first result starts (it leaves), when `to` is reached,
        // or, with `to` moving too and the page not full, when a later match comes into range:
        // that one is not known, so such an answer is kept for its second only.
        let validUntilMs = first === undefined ? Infinity : first.key.startMs + 1;
        if (toMs !== null) validUntilMs = Math.min(validUntilMs, toMs);
        else if (hits.length <= limit) validUntilMs = Math.min(validUntilMs, instantMs + 1000);
        return { validUntilMs, render: () => text, bytes: text.length };
      },
    );
  };
}

export type ProgrammeSearchAnswers = ReturnType<typeof createProgrammeSearchAnswers>;
