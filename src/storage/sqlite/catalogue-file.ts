import {
  FOLDED_LETTER_LIST,
  programmeSearchText,
  refoldedSearchText,
} from '../../domain/programme-search.js';
import { decodeDetails } from '../../domain/programme-details.js';
import { storedV1Texts } from '../../domain/programme.js';
import { SchemaVersionError } from '../errors.js';
import type { SqliteDatabase } from './connection.js';
import { PROGRAMME_COLUMNS, programmeIndexesSql, programmesTableSql } from './programmes-table.js';

/**
 * The catalogue (channels, programmes, the files they came from, the playground's channels)
 * lives in a SQLite file of its own beside the accounts file, attached to every connection of
 * the store as the schema `catalogue`. SQLite allows one writer per file: with both in one file,
 * an ingest holding the write lock for its merge held up every sign-in and key change for as
 * long (seconds for a large guide, then 503). In their own files, an ingest locks only the
 * catalogue, and account writes (deferred transactions, which lock only the files they write)
 * never wait for it. Unqualified table names resolve across both, so queries need not say where
 * a table lives.
 */
export const CATALOGUE_SCHEMA = 'catalogue';

/**
 * The schema of the catalogue file, kept in its `user_version`. 1: as the catalogue had in the
 * accounts file (migrations 1–5). 2: programmes keyed by (channel, start), not by id. 3: the
 * programmes' rich data (`details`). 4: an index of the long programmes, for the guide routes.
 * 5: the programmes' search words, their full-text index and an index by start (search).
 * 6: each programme carries its channel's sort key and country, indexed in search order.
 * 7: the change log (`changes`) and how far back it was pruned (`changes_horizon`).
 * 8: the full-text index holds each distinct search text once (`search_texts`), not each
 * programme's words. 9: the stored words have the letters no decomposition folds folded (ł, ø, ß…).
 * 10: the full-text index of the texts gathers more new words in memory before it writes them.
 * 11: each channel keeps every display-name its guide gives (`display_names`), for the feeds.
 */
export const CATALOGUE_SCHEMA_VERSION = 11;

/**
 * Page size of a new catalogue file. Programmes are long rows (descriptions) appended in
 * (channel, start) runs; with 16 KiB pages an ingest's merge wrote the 92 MB guide in 0.57–0.61 s
 * against 0.78–0.82 s with SQLite's 4 KiB (bench/INGEST.md). (With an index on the random ids,
 * since removed, larger pages had made ingests into a big catalogue slower.)
 */
export const CATALOGUE_PAGE_SIZE = 16_384;

/**
 * Page cache of the catalogue file per connection, in KiB (SQLite's default is 2 MiB). A search
 * for a frequent word walks the programmes by start, one row per channel of each start, each on
 * a page of its own (rows are stored by channel): 6,000 rows took 25 ms through the default
 * cache and 4.6 ms with this one (1.8 million programmes, bench/RESULTS.md). Filled as used.
 */
export const CATALOGUE_CACHE_KIB = 131_072;

/** The catalogue file beside the accounts file: `onair.db` → `onair.catalogue.db`. */
export function cataloguePathFor(path: string): string {
  if (path === ':memory:' || path === '') return ':memory:';
  const extension = /\.(db|sqlite3?)$/i.exec(path);
  return extension === null
    ? `${path}.catalogue.db`
    : `${path.slice(0, extension.index)}.catalogue${extension[0]}`;
}

// The tables and columns the catalogue had in the accounts file (migrations 1–5), with the
// programme indexes of version 2: a new file is made at version 2 and upgraded from there. The version counter of the read caches moves with every
// change, kept by triggers as before.
const CATALOGUE_TABLES_SQL = `
  CREATE TABLE catalogue.channels (
    id TEXT PRIMARY KEY,
    xmltv_id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    name_folded TEXT NOT NULL,
    icon TEXT NOT NULL,
    country TEXT NOT NULL,
    needs_review INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    -- What the operator fixed by hand; a later ingest keeps these values.
    name_fixed INTEGER NOT NULL DEFAULT 0,
    country_fixed INTEGER NOT NULL DEFAULT 0,
    reviewed_at INTEGER
  ) STRICT;
  CREATE INDEX catalogue.channels_by_country_name ON channels (country, name_key, id);
  CREATE INDEX catalogue.channels_by_name ON channels (name_key, id);

  CREATE TABLE catalogue.source_files (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    country TEXT,
    size_bytes INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    ingested_at INTEGER NOT NULL,
    summary TEXT NOT NULL
  ) STRICT;

  ${programmesTableSql('catalogue.programmes', 'slot')}
  ${programmeIndexesSql('catalogue.', 'slot')}

  CREATE TABLE catalogue.playground_channels (
    channel_id TEXT PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
    added_at INTEGER NOT NULL
  ) STRICT;

  -- One row: the catalogue's data version (the 'auth' one stays in the accounts file). Every
  -- write to programmes happens in an ingest, which records its source file in the same
  -- transaction, so these triggers see every catalogue change without a per-programme one.
  CREATE TABLE catalogue.catalogue_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
  ) STRICT;
  CREATE TRIGGER catalogue.channels_inserted AFTER INSERT ON channels BEGIN
    UPDATE catalogue_version SET version = version + 1; END;
  CREATE TRIGGER catalogue.channels_updated AFTER UPDATE ON channels BEGIN
    UPDATE catalogue_version SET version = version + 1; END;
  CREATE TRIGGER catalogue.channels_deleted AFTER DELETE ON channels BEGIN
    UPDATE catalogue_version SET version = version + 1; END;
  CREATE TRIGGER catalogue.source_files_inserted AFTER INSERT ON source_files BEGIN
    UPDATE catalogue_version SET version = version + 1; END;
  CREATE TRIGGER catalogue.source_files_deleted AFTER DELETE ON source_files BEGIN
    UPDATE catalogue_version SET version = version + 1; END;
  CREATE TRIGGER catalogue.playground_channels_inserted AFTER INSERT ON playground_channels
    BEGIN UPDATE catalogue_version SET version = version + 1; END;
  CREATE TRIGGER catalogue.playground_channels_deleted AFTER DELETE ON playground_channels
    BEGIN UPDATE catalogue_version SET version = version + 1; END;`;

const COPIES: readonly { table: string; columns: string }[] = [
  {
    table: 'channels',
    columns: `id, xmltv_id, name, name_key, name_folded, icon, country, needs_review, created_at,
      updated_at, name_fixed, country_fixed, reviewed_at`,
  },
  {
    table: 'source_files',
    columns: 'id, source, country, size_bytes, sha256, ingested_at, summary',
  },
  { table: 'programmes', columns: PROGRAMME_COLUMNS },
  { table: 'playground_channels', columns: 'channel_id, added_at' },
];

/** The attached catalogue file's schema version: 0 for a file not made yet. */
export function catalogueVersion(db: SqliteDatabase): number {
  return db.pragma(`${CATALOGUE_SCHEMA}.user_version`, { simple: true }) as number;
}

function createCatalogueTables(db: SqliteDatabase, version: number): void {
  db.exec(CATALOGUE_TABLES_SQL);
  db.prepare('INSERT INTO catalogue.catalogue_version (id, version) VALUES (1, ?)').run(version);
  db.pragma(`${CATALOGUE_SCHEMA}.user_version = 2`);
}

/** A new version counter: a catalogue made anew never repeats the versions (ETags) of the last. */
function randomVersion(db: SqliteDatabase): number {
  return db.prepare('SELECT abs(random() % 1000000000000)').pluck().get() as number;
}

/**
 * Migration 6: moves the catalogue's tables from the accounts file into the catalogue file
 * (attached as `catalogue`, inside the migration's transaction). Should the catalogue file hold
 * the catalogue already (the move committed there and not in the accounts file, or an accounts
 * file made anew beside a kept catalogue), it is kept when the accounts file's copy is empty or
 * the same size; two different catalogues are refused rather than one of them dropped.
 */
export function moveCatalogueToItsFile(db: SqliteDatabase): void {
  const count = (schema: string, table: string) =>
    db.prepare(`SELECT count(*) FROM ${schema}.${table}`).pluck().get() as number;
  if (catalogueVersion(db) === 0) {
    const version = db
      .prepare(`SELECT version FROM main.data_versions WHERE name = 'catalogue'`)
      .pluck()
      .get() as number | undefined;
    // One more than the last version: cached answers and ETags of before move on.
    createCatalogueTables(db, version === undefined ? randomVersion(db) : version + 1);
    for (const { table, columns } of COPIES) {
      db.exec(`INSERT INTO catalogue.${table} (${columns}) SELECT ${columns} FROM main.${table}`);
    }
  } else {
    for (const table of ['channels', 'programmes']) {
      const here = count('main', table);
      if (here > 0 && here !== count(CATALOGUE_SCHEMA, table)) {
        throw new SchemaVersionError(
          `both the database and its catalogue file hold a catalogue (${table} differ); move the catalogue file away to keep the database's`,
        );
      }
    }
  }
  // Children first: dropping a table deletes its rows, which the foreign keys check.
  for (const table of ['playground_channels', 'programmes', 'source_files', 'channels']) {
    db.exec(`DROP TABLE main.${table}`);
  }
  db.exec(`DELETE FROM main.data_versions WHERE name = 'catalogue'`);
}

/**
 * After the migrations: a catalogue file that is new (deleted, or never made since migration 6
 * ran) gets the empty catalogue; one written by a newer Onair is refused.
 */
export function ensureCatalogueSchema(db: SqliteDatabase): void {
  const version = catalogueVersion(db);
  if (version > CATALOGUE_SCHEMA_VERSION) {
    throw new SchemaVersionError(
      `the catalogue file's schema is version ${version}, newer than this Onair knows (${CATALOGUE_SCHEMA_VERSION}); upgrade Onair`,
    );
  }
  if (version === CATALOGUE_SCHEMA_VERSION) return;
  let rebuilt = false;
  db.transaction(() => {
    // Checked again under the lock: another process may have done it meanwhile.
    let now = catalogueVersion(db);
    if (now === 0) createCatalogueTables(db, randomVersion(db));
    else if (now === 1) {
      keyProgrammesBySlot(db);
      rebuilt = true;
    }
    now = catalogueVersion(db);
    if (now === 2) addProgrammeDetails(db);
    if (catalogueVersion(db) === 3) indexLongProgrammes(db);
    if (catalogueVersion(db) === 4) indexProgrammeWords(db);
    if (catalogueVersion(db) === 5) indexSearchOrder(db);
    if (catalogueVersion(db) === 6) createChangeLog(db);
    if (catalogueVersion(db) === 7) indexSearchTexts(db);
    if (catalogueVersion(db) === 8) refoldSearchTexts(db);
    if (catalogueVersion(db) === 9) sizeTextWordsBuffer(db);
    if (catalogueVersion(db) === 10) keepDisplayNames(db);
  }).immediate();
  // The old table's pages would stay in the file, free, doubling it (876 MB → 1.5 GB for 2
  // million programmes). VACUUM cannot run inside a transaction, so it follows the upgrade.
  // (It keeps the ids of `search_texts`, an INTEGER PRIMARY KEY, which the full-text index and
  // the programmes refer to.)
  if (rebuilt) db.exec(`VACUUM ${CATALOGUE_SCHEMA}`);
}

/**
 * Version 1 → 2: the programmes table made anew without its id's index, rows copied as they
 * are (ids were unique, so each slot is too), then the indexes built once. The read caches'
 * version stays: no answer changes. 2 million programmes: 9.4 s, and 6.7 s for the VACUUM after.
 */
function keyProgrammesBySlot(db: SqliteDatabase): void {
  const columns = PROGRAMME_COLUMNS;
  db.exec(`${programmesTableSql('catalogue.programmes_by_slot', 'slot')}
    INSERT INTO catalogue.programmes_by_slot (${columns})
      SELECT ${columns} FROM catalogue.programmes ORDER BY channel_id, start_ms, id;
    DROP TABLE catalogue.programmes;
    ALTER TABLE catalogue.programmes_by_slot RENAME TO programmes;
    ${programmeIndexesSql('catalogue.', 'slot')}`);
  db.pragma(`${CATALOGUE_SCHEMA}.user_version = 2`);
}

/**
 * Version 2 → 3: the programmes' rich data, empty for the programmes stored before (the next
 * ingest of their guide fills it in, as a change). Adding a column with a constant default
 * rewrites nothing, so this is instant whatever the catalogue's size.
 */
function addProgrammeDetails(db: SqliteDatabase): void {
  db.exec(`ALTER TABLE catalogue.programmes ADD COLUMN details TEXT NOT NULL DEFAULT ''`);
  db.pragma(`${CATALOGUE_SCHEMA}.user_version = 3`);
}

/**
 * Version 3 → 4: the programmes longer than LONG_PROGRAMME_MS by channel and stop, so a guide
 * window finds the one running at its start without reading the channel's history. Partial:
 * few programmes are that long. 2 million programmes: one pass over the table.
 */
function indexLongProgrammes(db: SqliteDatabase): void {
  // LONG_PROGRAMME_CONDITION (rows.ts) as this version made it; a new length is a new version.
  db.exec(`CREATE INDEX catalogue.programmes_long ON programmes (channel_id, stop_ms)
    WHERE stop_ms - start_ms > 21600000`);
  db.pragma(`${CATALOGUE_SCHEMA}.user_version = 4`);
}

/**
 * Version 4 → 5: what search finds a programme by (programmeSearchText), in a column, and its
 * indexes: a full-text index of those words (FTS5, contentless: the words are in the column
 * already) kept by triggers, so every write to `programmes` (an ingest's insert, upsert,
 * removal and pruning) updates it in the same transaction; and the programmes by start, which
 * a search for a frequent word walks in result order (docs/catalogue.md, "The search index").
 * The words of the programmes stored before are computed here, from their stored texts: 2
 * million programmes take about a minute, once.
 */
function indexProgrammeWords(db: SqliteDatabase): void {
  db.exec(`ALTER TABLE catalogue.programmes ADD COLUMN search_words TEXT NOT NULL DEFAULT ''`);
  // In batches: a connection cannot write while it iterates.
  const batch = db.prepare<[number], WordsSourceRow>(
    `SELECT rowid, title, description, category, details FROM catalogue.programmes
     WHERE rowid > ? ORDER BY rowid LIMIT 10000`,
  );
  const update = db.prepare<[string, number]>(
    'UPDATE catalogue.programmes SET search_words = ? WHERE rowid = ?',
  );
  for (let rows = batch.all(0); rows.length > 0; rows = batch.all(rows.at(-1)?.rowid ?? 0)) {
    for (const row of rows) {
      const v1 = storedV1Texts({ title: row.title, desc: row.description, category: row.category });
      const words = programmeSearchText(v1, decodeDetails(row.details, v1));
      if (words !== '') update.run(words, row.rowid);
    }
  }
  db.exec(`${PROGRAMME_WORDS_SQL}
    CREATE INDEX catalogue.programmes_by_start ON programmes (start_ms);`);
  db.pragma(`${CATALOGUE_SCHEMA}.user_version = 5`);
}

/**
 * How both full-text indexes (versions 5 and 8) read the words. The ascii tokenizer splits only
 * at ASCII punctuation and spaces: the stored words, already folded and separated by single
 * spaces, are its tokens as they are, and PostgreSQL indexes the same words (migrations 9, 15).
 * Prefixes of 2 to 4 characters are kept whole; only whether a word is there counts
 * (detail=none).
 */
const WORDS_FTS5_OPTIONS = `words, content = '', contentless_delete = 1, tokenize = 'ascii',
  prefix = '2 3 4', detail = none`;

/** Version 5's full-text index of each programme's words, filled, and its triggers. */
export const PROGRAMME_WORDS_SQL = `
  CREATE VIRTUAL TABLE catalogue.programme_words USING fts5 (${WORDS_FTS5_OPTIONS});
  INSERT INTO catalogue.programme_words (rowid, words)
    SELECT rowid, search_words FROM catalogue.programmes;
  CREATE TRIGGER catalogue.programme_words_inserted AFTER INSERT ON programmes BEGIN
    INSERT INTO programme_words (rowid, words) VALUES (new.rowid, new.search_words); END;
  CREATE TRIGGER catalogue.programme_words_deleted AFTER DELETE ON programmes BEGIN
    DELETE FROM programme_words WHERE rowid = old.rowid; END;
  CREATE TRIGGER catalogue.programme_words_updated AFTER UPDATE OF search_words ON programmes
    BEGIN
      DELETE FROM programme_words WHERE rowid = old.rowid;
      INSERT INTO programme_words (rowid, words) VALUES (new.rowid, new.search_words);
    END;`;

/**
 * Version 5 → 6: search answers in (start, channel name, programme id) order, and each
 * programme carries its channel's sort key (`name_key`) and country, so that order is an index
 * of `programmes` alone. A search for a frequent word walks it and stops at the page's end
 * (about 150 rows for a word in a third of the programmes) instead of reading every programme
 * of a start time to order them by channel (2,000 rows each in the bench catalogue); one in a
 * country walks the country's part of the second index. A trigger keeps the copies equal to
 * their channel's, whichever write changes a channel (an ingest's merge, `onair channels set`),
 * in the same transaction; an ingest writes them with each programme (merge-steps.ts). The index
 * by start of version 5 is dropped: the new one begins with the start. 2 million programmes:
 * about 10 s, once.
 */
function indexSearchOrder(db: SqliteDatabase): void {
  db.exec(`ALTER TABLE catalogue.programmes ADD COLUMN channel_name_key TEXT NOT NULL DEFAULT '';
    ALTER TABLE catalogue.programmes ADD COLUMN channel_country TEXT NOT NULL DEFAULT '';
    UPDATE catalogue.programmes SET (channel_name_key, channel_country) =
      (SELECT name_key, country FROM catalogue.channels AS c WHERE c.id = programmes.channel_id);
    DROP INDEX catalogue.programmes_by_start;
    CREATE INDEX catalogue.programmes_in_search_order
      ON programmes (start_ms, channel_name_key, id);
    CREATE INDEX catalogue.programmes_in_country_search_order
      ON programmes (channel_country, start_ms, channel_name_key, id);
    CREATE TRIGGER catalogue.programmes_follow_channel AFTER UPDATE OF name_key, country
      ON channels WHEN old.name_key IS NOT new.name_key OR old.country IS NOT new.country
      BEGIN
        UPDATE programmes SET channel_name_key = new.name_key, channel_country = new.country
          WHERE channel_id = new.id;
      END;`);
  db.pragma(`${CATALOGUE_SCHEMA}.user_version = 6`);
}

/**
 * Version 6 → 7: the change log. Each merge writes a record per programme and channel it adds,
 * changes or removes, in its transaction (ingest-merge/merge-steps.ts), numbered by `seq`
 * (AUTOINCREMENT: never reused, so a client's `since` never points at another record); records
 * older than the retention are pruned by the merges, and `changes_horizon` keeps the last seq
 * pruned, so a `since` before it is known to have missed records. A catalogue upgraded holds
 * no record of what came before: the log starts empty. Only the seq is indexed: a read follows
 * it, and an index of the channel or the time cost two thirds again of writing the records
 * (294,000 records: 2.7 s against 1.0 s on PostgreSQL, `EXPLAIN ANALYZE`).
 */
function createChangeLog(db: SqliteDatabase): void {
  db.exec(`CREATE TABLE catalogue.changes (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      kind TEXT NOT NULL,
      change TEXT NOT NULL,
      channel_id TEXT NOT NULL,
      programme_id TEXT,
      start TEXT,
      at INTEGER NOT NULL
    ) STRICT;
    CREATE TABLE catalogue.changes_horizon (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      seq INTEGER NOT NULL
    ) STRICT;
    INSERT INTO catalogue.changes_horizon (id, seq) VALUES (1, 0);`);
  db.pragma(`${CATALOGUE_SCHEMA}.user_version = 7`);
}

/**
 * Version 7 → 8: the full-text index of version 5 held each programme's words, and a guide
 * repeats its texts (98,098 programmes, 11,309 distinct search texts in the 30 MB corpus guide;
 * every showing of a series episode says the same): each distinct text is now kept once in
 * `search_texts`, indexed there, and each programme points at its own (`search_text`, indexed
 * with the start so a text's programmes in a window are one range). An ingest adds the texts it
 * brings and drops those no programme points at any more (ingest-merge/merge-steps.ts); the
 * full-text index follows `search_texts` by triggers. The indexes in search order hold the
 * text as well, so a walk for a frequent word reads them and the texts, not each programme's
 * row (2,000 rows of a start time are 2,000 pages: rows are stored by channel). 1.8 million
 * programmes: about 30 s, once.
 */
function indexSearchTexts(db: SqliteDatabase): void {
  db.exec(`CREATE TABLE catalogue.search_texts (
      id INTEGER PRIMARY KEY,
      words TEXT NOT NULL UNIQUE
    ) STRICT;
    INSERT INTO catalogue.search_texts (words)
      SELECT DISTINCT search_words FROM catalogue.programmes;
    ALTER TABLE catalogue.programmes ADD COLUMN search_text INTEGER NOT NULL DEFAULT 0;
    UPDATE catalogue.programmes SET search_text =
      (SELECT t.id FROM catalogue.search_texts AS t WHERE t.words = programmes.search_words);
    DROP TRIGGER catalogue.programme_words_inserted;
    DROP TRIGGER catalogue.programme_words_deleted;
    DROP TRIGGER catalogue.programme_words_updated;
    DROP TABLE catalogue.programme_words;
    CREATE VIRTUAL TABLE catalogue.text_words USING fts5 (${WORDS_FTS5_OPTIONS});
    INSERT INTO catalogue.text_words (rowid, words) SELECT id, words FROM catalogue.search_texts;
    CREATE TRIGGER catalogue.text_words_inserted AFTER INSERT ON search_texts BEGIN
      INSERT INTO text_words (rowid, words) VALUES (new.id, new.words); END;
    CREATE TRIGGER catalogue.text_words_deleted AFTER DELETE ON search_texts BEGIN
      DELETE FROM text_words WHERE rowid = old.id; END;
    CREATE INDEX catalogue.programmes_by_search_text ON programmes (search_text, start_ms);
    DROP INDEX catalogue.programmes_in_search_order;
    DROP INDEX catalogue.programmes_in_country_search_order;
    CREATE INDEX catalogue.programmes_in_search_order
      ON programmes (start_ms, channel_name_key, id, search_text);
    CREATE INDEX catalogue.programmes_in_country_search_order
      ON programmes (channel_country, start_ms, channel_name_key, id, search_text);`);
  db.pragma(`${CATALOGUE_SCHEMA}.user_version = 8`);
}

/**
 * Version 8 → 9: search folds the letters no Unicode decomposition takes apart (foldLetters,
 * domain/programme-search.ts), so the words stored before are folded too (refoldedSearchText:
 * as an ingest would make them now): each search text holding such a letter gets its folded
 * words, or, when another text has them already, its programmes move to that one; each
 * programme's own copy of its words (which the merge compares with a file's) follows. Only those
 * texts and their programmes are written.
 */
function refoldSearchTexts(db: SqliteDatabase): void {
  const holding = FOLDED_LETTER_LIST.map((letter) => `instr(words, '${letter}') > 0`).join(' OR ');
  const texts = db
    .prepare<[], { id: number; words: string }>(
      `SELECT id, words FROM catalogue.search_texts WHERE ${holding}`,
    )
    .all();
  const holder = db
    .prepare<[string], number>('SELECT id FROM catalogue.search_texts WHERE words = ?')
    .pluck();
  // Deleted and inserted, not updated: the full-text index follows `search_texts` by its
  // insert and delete triggers.
  const remove = db.prepare('DELETE FROM catalogue.search_texts WHERE id = ?');
  const add = db.prepare('INSERT INTO catalogue.search_texts (id, words) VALUES (?, ?)');
  const move = db.prepare(
    'UPDATE catalogue.programmes SET search_text = ?, search_words = ? WHERE search_text = ?',
  );
  for (const { id, words } of texts) {
    const folded = refoldedSearchText(words);
    remove.run(id);
    const other = holder.get(folded);
    if (other === undefined) add.run(id, folded);
    move.run(other ?? id, folded, id);
  }
  db.pragma(`${CATALOGUE_SCHEMA}.user_version = 9`);
}

/**
 * New words the full-text index of the texts gathers in memory before it writes them as a new
 * segment, in bytes (FTS5's `hashsize`; its default is 1 MiB). An ingest of a guide whose
 * descriptions are all new adds a text per programme: with the default, the 173,000 texts of the
 * generated 124 MB guide took 0.25 s longer to insert, their index written and merged in more,
 * smaller segments (`node bench/ingest.mjs --child worker FILE`, three pairs: the merge 2.83–2.97
 * s against 2.60–2.66; bench/INGEST.md). Held only while an ingest's transaction writes texts.
 */
const TEXT_WORDS_HASH_BYTES = 4 * 1024 * 1024;

/** Version 9 → 10: the texts' full-text index takes TEXT_WORDS_HASH_BYTES (kept in its config). */
function sizeTextWordsBuffer(db: SqliteDatabase): void {
  db.exec(`INSERT INTO catalogue.text_words (text_words, rank)
    VALUES ('hashsize', ${TEXT_WORDS_HASH_BYTES})`);
  db.pragma(`${CATALOGUE_SCHEMA}.user_version = 10`);
}

/**
 * Version 10 → 11: channels keep their guide's display-names, a JSON array (`[]` until the next
 * ingest of their guide). Adding a column with a constant default rewrites no row. Like the
 * steps before it, it may run again on a file that has it (an earlier version's number set on
 * a newer file, as the upgrade tests make theirs): the column is added only when missing.
 */
function keepDisplayNames(db: SqliteDatabase): void {
  const columns = db.prepare(`PRAGMA ${CATALOGUE_SCHEMA}.table_info(channels)`).all() as {
    name: string;
  }[];
  if (!columns.some((c) => c.name === 'display_names')) {
    db.exec(`ALTER TABLE catalogue.channels ADD COLUMN display_names TEXT NOT NULL DEFAULT '[]'`);
  }
  db.pragma(`${CATALOGUE_SCHEMA}.user_version = 11`);
}

interface WordsSourceRow {
  rowid: number;
  title: string;
  description: string;
  category: string;
  details: string;
}
