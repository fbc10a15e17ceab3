import type pg from 'pg';
import {
  CHANNEL_COLUMNS,
  PROGRAMME_COLUMNS,
  toChannel,
  toProgramme,
  toRichProgramme,
  toTimedProgramme,
  LONG_PROGRAMME_CONDITION,
  LONG_PROGRAMME_MS,
  TIMED_PROGRAMME_COLUMNS,
  type ChannelRow,
  type ProgrammeRow,
  type RichProgrammeRow,
  type TimedProgrammeRow,
} from '../rows.js';
import type { CatalogueReader, ProgrammeSearch } from '../catalogue-reader.js';
import { createSearchSpans, learnEmptySpans } from '../empty-spans.js';
import {
  planAndSearch,
  searchStatement,
  foundProgrammes,
  SEARCH_ORDER,
  type SearchDialect,
  type SearchMode,
  type SearchRow,
} from '../programme-search-rows.js';
import type { TimedProgramme } from '../../domain/programme.js';
import { sha256Hex } from '../../domain/sha256.js';
import type { QueryConnections } from './pipelined-connections.js';

/** Rows in (channel, start, id) order grouped by channel, as the port returns them. */
function byChannel(rows: readonly TimedProgrammeRow[]): Map<string, TimedProgramme[]> {
  const found = new Map<string, TimedProgramme[]>();
  for (const row of rows) {
    const programme = toTimedProgramme(row);
    const list = found.get(programme.channelId);
    if (list === undefined) found.set(programme.channelId, [programme]);
    else list.push(programme);
  }
  return found;
}

// Byte order, as on SQLite, so both engines list in exactly the same order.
const CHANNEL_ORDER = 'ORDER BY name_key, id COLLATE "C"';

/** The needle as a LIKE pattern: `%`, `_` and `\` match only themselves. */
function containsPattern(needle: string): string {
  return `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** How common the most common words are, from the word index's statistics (ANALYZE). */
interface WordStats {
  programmes: number;
  /**
   * Fraction of the search texts holding each of the most common words, taken as the fraction
   * of programmes (a text is a programme's, and most texts are shown a similar number of times).
   */
  frequency: Map<string, number>;
}

/** Statistics are read again after this long: they change only when ANALYZE runs. */
const WORD_STATS_MS = 60_000;

/**
 * The programmes matching every word and the prefix, estimated from the statistics: at most the
 * share of the least common term (a word not among the most common is rare: 0). Counting in the
 * GIN index, as SQLite counts in FTS5, would build the whole list of a frequent word's matches.
 * Without statistics (no ANALYZE yet) every search is estimated rare: read from the index.
 */
function estimateMatches(
  stats: WordStats,
  words: readonly string[],
  prefix: string | null,
): number {
  let share = 1;
  for (const word of words) share = Math.min(share, stats.frequency.get(word) ?? 0);
  if (prefix !== null) {
    let family = 0;
    for (const [word, frequency] of stats.frequency) {
      if (word.startsWith(prefix)) family += frequency;
    }
    share = Math.min(share, family);
  }
  return Math.round(share * stats.programmes);
}

/**
 * Catalogue reads over a PostgreSQL pool; the programme search's statements over `searchPool`,
 * whose connections plan each statement once for any values (database.ts, `planOnce`). Each
 * search statement is named, so a connection parses it once too. The fences and LIMITs of
 * searchStatement fix each plan's shape (a walk: the programmes' index in result order, cut by
 * the LIMIT; an index read: the matching texts, then their programmes in the window), which
 * `EXPLAIN` of each shape checked (docs/catalogue.md); planning anew took longer than running
 * (a walk for "news": parse 0.13 ms, plan 0.23, run 0.40; the statement log during
 * `node bench/search.mjs --cases frequent`).
 */
export function createPostgresCatalogueReader(
  pool: pg.Pool,
  searchPool: QueryConnections,
): CatalogueReader {
  let stats: { at: number; value: Promise<WordStats> } | null = null;
  const wordStats = {
    get(): Promise<WordStats> {
      const now = Date.now();
      if (stats === null || now - stats.at > WORD_STATS_MS) {
        stats = { at: now, value: readWordStats(pool) };
        stats.value.catch(() => (stats = null));
      }
      return stats.value;
    },
  };
  // The name of each search statement, by its text: one per shape of search (way, words,
  // filters, page), hashed once rather than on every search.
  const statementNames = new Map<string, string>();
  const named = (text: string, values: unknown[]) => {
    let name = statementNames.get(text);
    if (name === undefined) {
      name = `search-${sha256Hex(text).slice(0, 24)}`;
      statementNames.set(text, name);
    }
    return { name, text, values };
  };
  // What the walks of the latest catalogue version seen found: start times where a search has
  // no match (empty-spans.ts), skipped by its later walks when they read that version.
  const spans = createSearchSpans();
  let spansVersion: number | null = null;
  const walk = async (s: ProgrammeSearch, mode: SearchMode & { kind: 'walk' }) => {
    const from = s.after === null && spansVersion !== null ? spans.of(s).skip(s.fromMs) : s.fromMs;
    const startAt =
      from > s.fromMs && spansVersion !== null
        ? { fromMs: Math.min(from, s.toMs), version: spansVersion }
        : null;
    const { sql, params } = searchStatement(POSTGRES_SEARCH, s, { ...mode, startAt });
    // A walk into start times not known is sent alone: one that finds few matches reads
    // thousands of rows (at 10 million programmes up to a second), which would hold up every
    // query sent with it (batched with other walks, a "news" p99 of 490-580 ms against 51 at
    // 10 million). One that starts where an earlier walk found a match (the end of an empty
    // span), of a search whose latest walk filled its page (its word is not sparse there),
    // fills its page there as a rule, and goes in a batch: each walk sent alone wakes a
    // backend of its own, and so batched, "news" searches answered 7-27 % more at 1.8 million
    // and 10-16 % more at 10 million (`node bench/search.mjs --engines postgres --cases
    // frequent`; bench/RESULTS.md, "Walks from a known start sent in batches").
    const rows = (
      await searchPool.query<SearchRow & { catalogue_version: string }>(named(sql, params), {
        alone: startAt === null || !spans.of(s).lastWalkFilled,
      })
    ).rows;
    const read = rows[0] === undefined ? null : Number(rows[0].catalogue_version);
    // Learnt for the version the statement read; an answer of an older one teaches nothing.
    if (read !== null && (spansVersion === null || read >= spansVersion)) {
      if (read !== spansVersion) {
        spans.clear();
        spansVersion = read;
      }
      const walkedFrom = startAt !== null && read === startAt.version ? startAt.fromMs : s.fromMs;
      learnEmptySpans(
        spans.of(s),
        s.after === null ? walkedFrom : null,
        rows.map((row) => Number(row.start_ms)),
      );
    }
    // A walk with no row (it read its whole budget) says no version, and counts as not filled.
    if (spansVersion !== null) spans.of(s).lastWalkFilled = rows.length >= s.limit;
    return rows;
  };
  return {
    async searchProgrammes(search) {
      return planAndSearch(search, {
        // GIN reads a prefix of any length at the cost of its matches: the whole is cheapest.
        indexedPrefix: Number.POSITIVE_INFINITY,
        async count(words, prefix, cap) {
          return Math.min(cap, estimateMatches(await wordStats.get(), words, prefix));
        },
        // The statistics' estimate, as the counts are (0 before the first ANALYZE: no walk).
        stored: async () => (await wordStats.get()).programmes,
        async rows(s, mode) {
          if (mode.kind === 'walk') return walk(s, mode);
          const { sql, params } = searchStatement(POSTGRES_SEARCH, s, mode);
          return (await searchPool.query<SearchRow>(named(sql, params))).rows;
        },
      });
    },
    async programmesFound(hits) {
      if (hits.length === 0) return [];
      // By the (channel, start, id) index: the id compared in byte order, as it holds it.
      const sql = `SELECT ${TIMED_PROGRAMME_COLUMNS} FROM programmes
        WHERE (channel_id, start_ms, id COLLATE "C") IN
          (SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[]))`;
      const values = [
        hits.map((hit) => hit.channel.id),
        hits.map((hit) => hit.key.startMs),
        hits.map((hit) => hit.key.id),
      ];
      return foundProgrammes(
        hits,
        (await searchPool.query<TimedProgrammeRow>(named(sql, values))).rows,
      );
    },
    async listCountries() {
      const { rows } = await pool.query<{ country: string; channelCount: number }>(
        `SELECT country, count(*)::int AS "channelCount" FROM channels
         GROUP BY country ORDER BY country COLLATE "C"`,
      );
      return rows;
    },
    async listChannels(country) {
      const { rows } = await pool.query<ChannelRow>(
        `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE country = $1 ${CHANNEL_ORDER}`,
        [country],
      );
      return rows.map(toChannel);
    },
    async searchChannels(needle, country, limit) {
      // LIKE on the folded name uses the trigram index.
      const { rows } =
        country === null
          ? await pool.query<ChannelRow>(
              `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE name_folded LIKE $1
               ${CHANNEL_ORDER} LIMIT $2`,
              [containsPattern(needle), limit],
            )
          : await pool.query<ChannelRow>(
              `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE country = $1 AND name_folded LIKE $2
               ${CHANNEL_ORDER} LIMIT $3`,
              [country, containsPattern(needle), limit],
            );
      return rows.map(toChannel);
    },
    async channelExists(id) {
      const { rowCount } = await pool.query('SELECT 1 FROM channels WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },
    async countChannels() {
      const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM channels');
      return rows[0]?.n ?? 0;
    },
    async listProgrammes(channelId) {
      const { rows } = await pool.query<ProgrammeRow>(
        `SELECT ${PROGRAMME_COLUMNS} FROM programmes WHERE channel_id = $1
         ORDER BY start_ms IS NULL, start_ms, id COLLATE "C"`,
        [channelId],
      );
      return rows.map(toProgramme);
    },
    async findProgramme(channelId, programmeId) {
      const { rows } = await pool.query<RichProgrammeRow>(
        `SELECT ${PROGRAMME_COLUMNS}, details FROM programmes WHERE channel_id = $1 AND id = $2`,
        [channelId, programmeId],
      );
      const row = rows[0];
      return row === undefined ? null : toRichProgramme(row, channelId);
    },
    async findChannels(ids) {
      const { rows } = await pool.query<ChannelRow>(
        `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE id = ANY($1::text[])`,
        [ids],
      );
      return rows.map(toChannel);
    },
    async programmesBetween(channelIds, fromMs, toMs) {
      // As on SQLite: starting in the window or up to LONG_PROGRAMME_MS before it, and the long
      // ones that started earlier, on their partial index.
      const { rows } = await pool.query<TimedProgrammeRow>(
        `SELECT * FROM (
           SELECT ${TIMED_PROGRAMME_COLUMNS} FROM programmes
           WHERE channel_id = ANY($1::text[]) AND start_ms >= $2 AND start_ms < $3 AND stop_ms > $4
           UNION ALL
           SELECT ${TIMED_PROGRAMME_COLUMNS} FROM programmes
           WHERE channel_id = ANY($1::text[]) AND ${LONG_PROGRAMME_CONDITION}
             AND stop_ms > $4 AND start_ms < $2
         ) AS window_programmes
         ORDER BY channel_id, start_ms, id COLLATE "C"`,
        [channelIds, fromMs - LONG_PROGRAMME_MS, toMs, fromMs],
      );
      return byChannel(rows);
    },
    async programmesAfter(channelIds, atMs) {
      const { rows } = await pool.query<TimedProgrammeRow>(
        `SELECT next.* FROM unnest($1::text[]) AS wanted (id)
         CROSS JOIN LATERAL (
           SELECT ${TIMED_PROGRAMME_COLUMNS} FROM programmes
           WHERE channel_id = wanted.id AND start_ms > $2 AND stop_ms IS NOT NULL
           ORDER BY start_ms, id COLLATE "C" LIMIT 1
         ) AS next`,
        [channelIds, atMs],
      );
      const found = new Map<string, TimedProgramme>();
      for (const row of rows) found.set(row.channel_id, toTimedProgramme(row));
      return found;
    },
  };
}

/** The expression of the word index (migrations 9, 15): a text's words as lexemes, unparsed. */
const WORDS_VECTOR = `array_to_tsvector(string_to_array(t.words, ' '))`;

/**
 * A tsquery of `words` and, unless null, `prefix` as a prefix, in the tsquery text form (cast,
 * not parsed by a text search configuration, so the words stay as they are). A search word
 * holds only letters and digits: no quote to escape.
 */
function tsQuery(words: readonly string[], prefix: string | null): string {
  const terms = words.map((w) => `'${w}'`);
  if (prefix !== null) terms.push(`'${prefix}':*`);
  return terms.join(' & ');
}

async function readWordStats(pool: pg.Pool): Promise<WordStats> {
  const { rows } = await pool.query<{ elems: string[] | null; freqs: number[] | null; n: number }>(
    `SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs,
       (SELECT reltuples::float8 FROM pg_class WHERE oid = 'programmes'::regclass) AS n
     FROM (SELECT 1) AS one
     LEFT JOIN pg_stats AS s ON s.schemaname = current_schema()
       AND s.tablename = 'search_texts_words'`,
  );
  const row = rows[0];
  const frequency = new Map<string, number>();
  (row?.elems ?? []).forEach((word, i) => frequency.set(word, row?.freqs?.[i] ?? 0));
  return { programmes: Math.max(0, row?.n ?? 0), frequency };
}

/** The catalogue's version, read once by a statement in its own snapshot (migration 3). */
const CATALOGUE_VERSION = '(SELECT version FROM catalogue_state)';

/** The programme id in byte order, as SQLite compares it. */
const BYTE_ORDER_ID = 'p.id COLLATE "C"';

/** The PostgreSQL pieces of a search's statement: the GIN index's expression, byte order. */
const POSTGRES_SEARCH: SearchDialect = {
  placeholder: (n) => `$${n}`,
  // A walk reads each programme's row anyway (no index holds what it tests).
  words: 'p.search_words',
  textId: 'p.search_text',
  startAt: (version, fromMs, otherwise) =>
    `CASE WHEN ${CATALOGUE_VERSION} = ${version}::bigint THEN ${fromMs}::bigint
      ELSE ${otherwise}::bigint END`,
  indexedWords: 'p.search_words',
  position: 'strpos',
  id: BYTE_ORDER_ID,
  // The matches first, from the GIN index: left to itself, the planner walks the programmes
  // by start for a word it has no statistics for, and reads the whole window (2.3 s).
  // The matching texts first, then each one's programmes in the window on their (text, start)
  // index. Both fenced (OFFSET 0): a plain join let the planner walk the whole window by start
  // and test each programme's text (1.3 s for a rare word, `EXPLAIN ANALYZE`).
  indexed: (query, selected) => ({
    from: `(SELECT t.id FROM search_texts AS t WHERE ${WORDS_VECTOR} @@ ${query}::tsquery
      OFFSET 0) AS t
      CROSS JOIN LATERAL (SELECT * FROM programmes AS p WHERE p.search_text = t.id
        AND ${selected} OFFSET 0) AS p`,
    where: 'true',
  }),
  indexQuery: tsQuery,
  // The planner reads a walk's subquery on the index in result order (the country's when one
  // is asked), and keeps the order of either subquery through the nested loop to channels: no
  // sort, and the outer LIMIT stops a walk.
  walked: () => 'programmes AS p',
  // Each row says the catalogue version the statement read, for the empty spans it shows.
  inOrder: ({ columns, ordered, where, limit }) => `SELECT ${columns},
      ${CATALOGUE_VERSION} AS catalogue_version
    FROM (SELECT p.* FROM ${ordered}) AS p JOIN channels AS c ON c.id = p.channel_id
    WHERE ${where} ORDER BY ${SEARCH_ORDER(BYTE_ORDER_ID)} LIMIT ${limit}`,
  channelIn: (ids) => `p.channel_id = ANY(${ids}::text[])`,
  channelsValue: (ids) => ids,
};
