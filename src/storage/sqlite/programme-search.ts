import type { ProgrammeSearch, ProgrammeSearchHit } from '../catalogue-reader.js';
import {
  planAndSearch,
  searchStatement,
  type SearchDialect,
  type SearchMode,
  type SearchRow,
} from '../programme-search-rows.js';
import { createSearchSpans, learnEmptySpans } from '../empty-spans.js';
import type { SqliteDatabase } from './connection.js';

/**
 * Programme search on one SQLite connection, its statements prepared once: the plan of
 * programme-search-rows.ts over FTS5. The server runs it in a thread of its own
 * (search-worker.ts); it runs here as it would there.
 */
export function createSqliteProgrammeSearch(
  db: SqliteDatabase,
): (search: ProgrammeSearch) => Promise<ProgrammeSearchHit[]> {
  // The matching texts' programmes, counted in the programmes' index of texts.
  const matchCount = db.prepare<[string, number], { n: number }>(
    `SELECT count(*) AS n FROM (SELECT 1 FROM ${MATCHED_PROGRAMMES} WHERE text_words MATCH ?
     LIMIT ?)`,
  );
  const catalogueVersion = db.prepare<[], number>('SELECT version FROM catalogue_version').pluck();
  const begin = db.prepare('BEGIN');
  const commit = db.prepare('COMMIT');
  // Counts kept per catalogue version: they are of programmes of any time, so the same words
  // asked again (another window, the next page, another customer) are counted once. A frequent
  // word's two counts took 0.5 ms of its 1.4 ms search (in process, bench catalogue).
  const counts = new Map<string, number>();
  let countsVersion: number | null = null;
  // The largest rowid: never below the programmes stored (the plan's `stored`), read once a version.
  const lastRowid = db
    .prepare<[], number>('SELECT coalesce(max(rowid), 0) FROM programmes')
    .pluck();
  let stored: number | null = null;
  const count = (words: readonly string[], prefix: string | null, cap: number): number => {
    const query = ftsQuery(words, prefix);
    const key = `${cap} ${query}`;
    let n = counts.get(key);
    if (n === undefined) {
      if (counts.size >= MAX_KEPT_COUNTS) counts.clear();
      n = matchCount.get(query, cap)?.n ?? 0;
      counts.set(key, n);
    }
    return n;
  };
  // The tables of matching texts a walk tests (matchingTexts), one per FTS query, kept for the
  // catalogue version they were made in: each is built once (2.3 ms for "news", 9,798 of the
  // bench catalogue's texts) and then tested by id. Their names are reused after they are
  // dropped, so the statements naming them stay few.
  const tables = new Map<string, string>();
  let tablesVersion: number | null = null;
  const matchingTable = (query: string): string => {
    let table = tables.get(query);
    if (table === undefined) {
      if (tables.size >= MAX_MATCHING_TABLES) dropTables();
      table = `temp.search_matches_${tables.size + 1}`;
      db.exec(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY)`);
      db.prepare(`INSERT INTO ${table} SELECT rowid FROM text_words WHERE text_words MATCH ?`).run(
        query,
      );
      tables.set(query, table);
    }
    return table;
  };
  const dropTables = () => {
    for (const table of tables.values()) db.exec(`DROP TABLE ${table}`);
    tables.clear();
  };
  // What the walks of this catalogue version found: start times where a search (its words and
  // filters) has no match, skipped by its later walks (empty-spans.ts). A frequent word asked
  // from now reads the programmes up to its next match once per version, not on every search:
  // in the bench catalogue 2,000-4,000 programmes (1.8 million) or 11,000-22,000 (10 million).
  const spans = createSearchSpans();
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

  return async (search) => {
    // One snapshot for the whole search: its counts, tables of matching texts and rows are of
    // one catalogue version. Inside a transaction of the connection's own (an ingest's, on a
    // database in memory) it reads there and neither keeps nor makes tables, which would go
    // if that transaction rolled back.
    const own = !db.inTransaction;
    if (own) begin.run();
    try {
      const version = catalogueVersion.get() ?? null;
      if (version !== countsVersion) {
        counts.clear();
        stored = null;
        countsVersion = version;
      }
      if (own && version !== tablesVersion) {
        dropTables();
        spans.clear();
        tablesVersion = version;
      }
      const { words, prefix } = search.terms;
      // A prefix of one letter is no FTS5 query (it would read every word of that letter).
      const query = own && prefix.length >= 2 ? ftsQuery(words, prefix) : null;
      return await planAndSearch(search, {
        indexedPrefix: INDEXED_PREFIX,
        count: async (w, p, cap) => count(w, p, cap),
        stored: async () => (stored ??= lastRowid.get() ?? 0),
        rows: async (s, mode) => {
          const read = (how: SearchMode) => {
            const { sql, params } = searchStatement(SQLITE_SEARCH, s, how);
            return prepared(sql).all(...params);
          };
          if (mode.kind !== 'walk') return read(mode);
          const walk = query !== null ? { ...mode, matchingTexts: matchingTable(query) } : mode;
          if (!own) return read(walk);
          // A first page starts after what earlier walks found empty (a later one starts
          // within a start time, after the page before).
          const known = spans.of(s);
          const from = s.after === null ? known.skip(s.fromMs) : s.fromMs;
          if (from >= s.toMs) return [];
          // The version is this snapshot's: the start applies.
          const startAt = from === s.fromMs || version === null ? null : { fromMs: from, version };
          const rows = read({ ...walk, startAt });
          learnEmptySpans(
            known,
            s.after === null ? from : null,
            rows.map((row) => Number(row.start_ms)),
          );
          return rows;
        },
      });
    } finally {
      if (own && db.inTransaction) commit.run();
    }
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
 * Tables of matching texts kept at most; all are dropped when there are more. Only words a walk
 * reads have one (more than SEARCH_COUNT_CAPS' last cap of matches): a catalogue has few.
 */
const MAX_MATCHING_TABLES = 64;

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
  startAt: (version, fromMs, otherwise) =>
    `CASE WHEN (SELECT version FROM catalogue_version) = ${version} THEN ${fromMs} ELSE ${otherwise} END`,
  // Tested before the text is joined.
  textId: 'w.text',
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
