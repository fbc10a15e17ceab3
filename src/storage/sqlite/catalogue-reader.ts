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
import type { CatalogueReader } from '../catalogue-reader.js';
import {
  planAndSearch,
  searchStatement,
  type SearchDialect,
  type SearchRow,
} from '../programme-search-rows.js';
import type { CountryCount } from '../../domain/channel.js';
import type { TimedProgramme } from '../../domain/programme.js';
import type { SqliteDatabase } from './connection.js';

/** Catalogue reads over one SQLite connection, with every statement prepared once. */
export function createSqliteCatalogueReader(db: SqliteDatabase): CatalogueReader {
  const countries = db.prepare<[], CountryCount>(
    `SELECT country, count(*) AS channelCount FROM channels GROUP BY country ORDER BY country`,
  );
  const channelsOfCountry = db.prepare<[string], ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE country = ? ORDER BY name_key, id`,
  );
  // instr() rather than LIKE: the needle is plain text, so % and _ must not act as wildcards.
  const searchAll = db.prepare<[string, number], ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE instr(name_folded, ?) > 0
     ORDER BY name_key, id LIMIT ?`,
  );
  const searchCountry = db.prepare<[string, string, number], ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE country = ? AND instr(name_folded, ?) > 0
     ORDER BY name_key, id LIMIT ?`,
  );
  const channelExists = db.prepare<[string], { found: number }>(
    'SELECT 1 AS found FROM channels WHERE id = ?',
  );
  const channelCount = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM channels');
  const programmes = db.prepare<[string], ProgrammeRow>(
    `SELECT ${PROGRAMME_COLUMNS} FROM programmes WHERE channel_id = ?
     ORDER BY start_ms IS NULL, start_ms, id`,
  );
  // The (channel, start, id) index holds the id: the channel's entries are scanned in it.
  const programme = db.prepare<[string, string], RichProgrammeRow>(
    `SELECT ${PROGRAMME_COLUMNS}, details FROM programmes WHERE channel_id = ? AND id = ?`,
  );
  const channelsById = db.prepare<[string], ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE id IN (SELECT value FROM json_each(?))`,
  );
  // A window's programmes: those starting in it or up to LONG_PROGRAMME_MS before it (on the
  // (channel, start) index), and the long ones that started earlier (on their partial index).
  const recentInWindow = db.prepare<[string, number, number, number], TimedProgrammeRow>(
    `SELECT ${TIMED_PROGRAMME_COLUMNS} FROM programmes
     WHERE channel_id = ? AND start_ms >= ? AND start_ms < ? AND stop_ms > ?
     ORDER BY start_ms, id`,
  );
  const longInWindow = db.prepare<[string, number, number], TimedProgrammeRow>(
    // Named: on a large catalogue the planner otherwise takes the (channel, start) index and
    // reads the channel's whole history (500 channels: 0.2–0.7 s instead of milliseconds).
    `SELECT ${TIMED_PROGRAMME_COLUMNS} FROM programmes INDEXED BY programmes_long
     WHERE channel_id = ? AND ${LONG_PROGRAMME_CONDITION} AND stop_ms > ? AND start_ms < ?
     ORDER BY start_ms, id`,
  );
  const firstAfter = db.prepare<[string, number], TimedProgrammeRow>(
    `SELECT ${TIMED_PROGRAMME_COLUMNS} FROM programmes
     WHERE channel_id = ? AND start_ms > ? AND stop_ms IS NOT NULL
     ORDER BY start_ms, id LIMIT 1`,
  );

  // The matching texts' programmes, counted in the programmes' index of texts.
  const matchCount = db.prepare<[string, number], { n: number }>(
    `SELECT count(*) AS n FROM (SELECT 1 FROM ${MATCHED_PROGRAMMES} WHERE text_words MATCH ?
     LIMIT ?)`,
  );
  const catalogueVersion = db.prepare<[], number>('SELECT version FROM catalogue_version').pluck();
  // Counts kept per catalogue version: they are of programmes of any time, so the same words
  // asked again (another window, the next page, another customer) are counted once. A frequent
  // word's two counts took 0.5 ms of its 1.4 ms search (in process, bench catalogue). A count
  // only chooses how to read, never what is answered, so one a moment old does no harm: the
  // version is read before the count, and any later change clears them.
  const counts = new Map<string, number>();
  let countsVersion: number | null = null;
  const count = (words: readonly string[], prefix: string | null, cap: number): number => {
    const version = catalogueVersion.get() ?? null;
    if (version !== countsVersion || counts.size >= MAX_KEPT_COUNTS) {
      counts.clear();
      countsVersion = version;
    }
    const query = ftsQuery(words, prefix);
    const key = `${cap} ${query}`;
    let n = counts.get(key);
    if (n === undefined) {
      n = matchCount.get(query, cap)?.n ?? 0;
      counts.set(key, n);
    }
    return n;
  };
  // One statement per shape of search (words, filters, page), prepared once.
  const searches = new Map<string, ReturnType<typeof db.prepare<unknown[], SearchRow>>>();
  const prepared = (sql: string) => {
    let statement = searches.get(sql);
    if (statement === undefined) {
      statement = db.prepare<unknown[], SearchRow>(sql);
      searches.set(sql, statement);
    }
    return statement;
  };

  return {
    async searchProgrammes(search) {
      return planAndSearch(search, {
        indexedPrefix: INDEXED_PREFIX,
        count: async (words, prefix, cap) => count(words, prefix, cap),
        rows: async (s, mode) => {
          const { sql, params } = searchStatement(SQLITE_SEARCH, s, mode);
          return prepared(sql).all(...params);
        },
      });
    },
    async listCountries() {
      return countries.all();
    },
    async listChannels(country) {
      return channelsOfCountry.all(country).map(toChannel);
    },
    async searchChannels(needle, country, limit) {
      const rows =
        country === null ? searchAll.all(needle, limit) : searchCountry.all(country, needle, limit);
      return rows.map(toChannel);
    },
    async channelExists(id) {
      return channelExists.get(id) !== undefined;
    },
    async countChannels() {
      return channelCount.get()?.n ?? 0;
    },
    async listProgrammes(channelId) {
      return programmes.all(channelId).map(toProgramme);
    },
    async findProgramme(channelId, programmeId) {
      const row = programme.get(channelId, programmeId);
      return row === undefined ? null : toRichProgramme(row, channelId);
    },
    async findChannels(ids) {
      return channelsById.all(JSON.stringify(ids)).map(toChannel);
    },
    async programmesBetween(channelIds, fromMs, toMs) {
      const found = new Map<string, TimedProgramme[]>();
      const lookBack = fromMs - LONG_PROGRAMME_MS;
      for (const channelId of channelIds) {
        const rows = longInWindow.all(channelId, fromMs, lookBack);
        for (const row of recentInWindow.all(channelId, lookBack, toMs, fromMs)) rows.push(row);
        if (rows.length > 0) found.set(channelId, rows.map(toTimedProgramme));
      }
      return found;
    },
    async programmesAfter(channelIds, atMs) {
      const found = new Map<string, TimedProgramme>();
      for (const channelId of channelIds) {
        const row = firstAfter.get(channelId, atMs);
        if (row !== undefined) found.set(channelId, toTimedProgramme(row));
      }
      return found;
    },
  };
}

/**
 * An FTS5 query of `words` and, unless null, `prefix` as a prefix. Each is quoted: a search word
 * holds only letters and digits, so never a quote, and FTS5 operators (AND, NEAR) stay words.
 */
function ftsQuery(words: readonly string[], prefix: string | null): string {
  const terms = words.map((w) => `"${w}"`);
  if (prefix !== null) terms.push(`"${prefix}"*`);
  return terms.join(' ');
}

/** Counts kept at most (a few hundred KB); all are forgotten when there are more. */
const MAX_KEPT_COUNTS = 10_000;

/**
 * The longest prefix FTS5 reads cheaply: it keeps prefixes of 2 to 4 characters whole
 * (`prefix = '2 3 4'`, catalogue file version 5); a longer one would make it merge the lists of
 * every word it begins before the first row (0.2 ms even for a rare one).
 */
const INDEXED_PREFIX = 4;

/**
 * The programmes of the search texts the full-text index matches (catalogue file version 8):
 * the texts first, then each one's programmes on the (text, start) index, which also holds a
 * search's window; named, as the planner might otherwise walk the programmes by start.
 */
const MATCHED_PROGRAMMES = `text_words CROSS JOIN programmes AS p
  INDEXED BY programmes_by_search_text ON p.search_text = text_words.rowid`;

/** The SQLite pieces of a search's statement: FTS5 and the indexes named. */
const SQLITE_SEARCH: SearchDialect = {
  placeholder: () => '?',
  words: 't.words',
  position: 'instr',
  id: 'p.id',
  indexed: (query, selected) => ({
    from: MATCHED_PROGRAMMES,
    where: `text_words MATCH ${query} AND ${selected}`,
  }),
  indexedWords: '(SELECT words FROM search_texts WHERE id = p.search_text)',
  indexQuery: ftsQuery,
  // The index named: without statistics the planner might read another one.
  walked: (filter) =>
    `programmes AS p INDEXED BY ${
      {
        all: 'programmes_in_search_order',
        country: 'programmes_in_country_search_order',
        channels: 'programmes_by_channel_start',
      }[filter]
    }`,
  // The rowids and texts in result order (a walk's, or the matches sorted), each text tested,
  // then the row of each that passes by its rowid. CROSS JOIN fixes the loop order, the
  // subquery (a co-routine yielding rows in its ORDER BY) outside, so rows come in result order
  // and the LIMIT stops a walk; a walk reads only the index in search order (it holds the
  // text) and the small table of texts, not each programme's row (catalogue file version 8).
  // An ORDER BY here would make SQLite read a walk's whole budget to sort it again (25 ms
  // against 0.2 for a frequent word); test/storage/store-contract.test.ts checks the order of
  // every kind of page.
  inOrder: ({ columns, ordered, where, limit }) => `SELECT ${columns}
    FROM (SELECT p.rowid AS ref, p.search_text AS text FROM ${ordered}) AS w
    CROSS JOIN search_texts AS t CROSS JOIN programmes AS p CROSS JOIN channels AS c
    WHERE t.id = w.text AND ${where} AND p.rowid = w.ref AND c.id = p.channel_id
    LIMIT ${limit}`,
  channelIn: (ids) => `p.channel_id IN (SELECT value FROM json_each(${ids}))`,
  channelsValue: (ids) => JSON.stringify(ids),
};
