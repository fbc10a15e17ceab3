import { LONG_PROGRAMME_CONDITION } from '../rows.js';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyDetails, encodeDetails } from '../../domain/programme-details.js';
import { SchemaVersionError } from '../errors.js';
import {
  CATALOGUE_PAGE_SIZE,
  CATALOGUE_SCHEMA_VERSION,
  cataloguePathFor,
  PROGRAMME_WORDS_SQL,
} from './catalogue-file.js';
import { currentSchemaVersion, migrateSqlite, openSqliteDatabase } from './database.js';
import { CATALOGUE_FILE_VERSION, SQLITE_MIGRATIONS } from './migrations.js';

/** The accounts file's version once every migration has run. */
const LATEST_VERSION = Math.max(...SQLITE_MIGRATIONS.map((m) => m.version));
import { openSqliteStore } from './sqlite-store.js';
import { searchWhole } from '../../../test/helpers/search-whole.js';

const NOW = Date.UTC(2026, 10, 1);

/** A search of the hour from NOW over every channel (or one country), 10 results at most. */
const hourSearch = (prefix: string, words: string[] = [], country: string | null = null) => ({
  terms: { words, prefix },
  country,
  channels: null,
  fromMs: NOW,
  toMs: NOW + 3_600_000,
  after: null,
  limit: 10,
});
let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'onair-catalogue-file-'));
  path = join(dir, 'onair.db');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const tables = (db: Database.Database, schema: string) =>
  db
    .prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table' ORDER BY name`)
    .pluck()
    .all();

/** A database as Onair left it before the catalogue had its own file, with a little catalogue. */
function singleFileDatabase(channels = 2): void {
  const db = openSqliteDatabase(path);
  try {
    migrateSqlite(
      db,
      NOW,
      SQLITE_MIGRATIONS.filter((m) => m.version < CATALOGUE_FILE_VERSION),
    );
    db.prepare(
      `INSERT INTO source_files (id, source, country, size_bytes, sha256, ingested_at, summary)
       VALUES ('f1', 'guide.xml', 'IE', 10, 'abc', ?, '{}')`,
    ).run(NOW);
    for (let c = 0; c < channels; c++) {
      db.prepare(
        `INSERT INTO channels (id, xmltv_id, name, name_key, name_folded, icon, country,
           needs_review, created_at, updated_at, name_fixed, country_fixed, reviewed_at)
         VALUES (?, ?, 'One', 'one', 'one', '', 'IE', 0, ?, ?, 1, 0, ?)`,
      ).run(`c${c}`, `one${c}.ie`, NOW, NOW, NOW);
      db.prepare(
        `INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms, title,
           description, category, needs_review, source_file_id, updated_at)
         VALUES (?, ?, '2026-11-01T00:00:00Z', '', ?, NULL, 'News', 'd', 'c', 0, 'f1', ?)`,
      ).run(`100000000000000000${c}`, `c${c}`, NOW, NOW);
    }
    db.prepare(`INSERT INTO playground_channels (channel_id, added_at) VALUES ('c0', ?)`).run(NOW);
  } finally {
    db.close();
  }
}

/** Makes the catalogue file's programmes table as version 1 had it: keyed by id. */
function keyProgrammesById(db: Database.Database): void {
  withoutChangeLog(db);
  db.exec(`
    DROP TRIGGER catalogue.programmes_follow_channel;
    DROP TABLE catalogue.programme_words;
    DROP TABLE catalogue.programmes;
    CREATE TABLE catalogue.programmes (
      id TEXT PRIMARY KEY,
      channel_id TEXT NOT NULL REFERENCES channels (id),
      start TEXT NOT NULL, stop TEXT NOT NULL, start_ms INTEGER, stop_ms INTEGER,
      title TEXT NOT NULL, description TEXT NOT NULL, category TEXT NOT NULL,
      needs_review INTEGER NOT NULL,
      source_file_id TEXT NOT NULL REFERENCES source_files (id),
      updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX catalogue.programmes_by_channel_start ON programmes (channel_id, start_ms, id);`);
  db.pragma('catalogue.user_version = 1');
}

/** One channel, `c0`, and one source file, `f1`, for programmes written by hand. */
const ONE_CHANNEL_AND_FILE = `
  INSERT INTO channels (id, xmltv_id, name, name_key, name_folded, icon, country,
    needs_review, created_at, updated_at) VALUES ('c0', 'one.ie', 'One', 'one', 'one', '', 'IE', 0, 0, 0);
  INSERT INTO source_files (id, source, country, size_bytes, sha256, ingested_at, summary)
    VALUES ('f1', 'guide.xml', 'IE', 10, 'abc', 0, '{}');`;

/** Takes the catalogue file back to version 7: each programme's words in the full-text index. */
function withoutSearchTexts(db: Database.Database): void {
  db.exec(`
    DROP TRIGGER catalogue.text_words_inserted;
    DROP TRIGGER catalogue.text_words_deleted;
    DROP TABLE catalogue.text_words;
    DROP INDEX catalogue.programmes_by_search_text;
    DROP INDEX catalogue.programmes_in_search_order;
    DROP INDEX catalogue.programmes_in_country_search_order;
    CREATE INDEX catalogue.programmes_in_search_order
      ON programmes (start_ms, channel_name_key, id);
    CREATE INDEX catalogue.programmes_in_country_search_order
      ON programmes (channel_country, start_ms, channel_name_key, id);
    ALTER TABLE catalogue.programmes DROP COLUMN search_text;
    DROP TABLE catalogue.search_texts;
    ${PROGRAMME_WORDS_SQL}`);
  db.pragma('catalogue.user_version = 7');
}

/** Takes the catalogue file back to version 6: no change log. */
function withoutChangeLog(db: Database.Database): void {
  withoutSearchTexts(db);
  db.exec(`DROP TABLE catalogue.changes; DROP TABLE catalogue.changes_horizon;`);
  db.pragma('catalogue.user_version = 6');
}

/** Takes the catalogue file back to version 5: no channel copies, the index by start alone. */
function withoutSearchOrder(db: Database.Database): void {
  withoutChangeLog(db);
  db.exec(`
    DROP TRIGGER catalogue.programmes_follow_channel;
    DROP INDEX catalogue.programmes_in_search_order;
    DROP INDEX catalogue.programmes_in_country_search_order;
    ALTER TABLE catalogue.programmes DROP COLUMN channel_name_key;
    ALTER TABLE catalogue.programmes DROP COLUMN channel_country;
    CREATE INDEX catalogue.programmes_by_start ON programmes (start_ms);`);
  db.pragma('catalogue.user_version = 5');
}

/** Takes the catalogue file back to version 4: no search words, no index of them. */
function withoutSearchWords(db: Database.Database): void {
  withoutSearchOrder(db);
  db.exec(`
    DROP TRIGGER catalogue.programme_words_inserted;
    DROP TRIGGER catalogue.programme_words_deleted;
    DROP TRIGGER catalogue.programme_words_updated;
    DROP TABLE catalogue.programme_words;
    DROP INDEX catalogue.programmes_by_start;
    ALTER TABLE catalogue.programmes DROP COLUMN search_words;`);
  db.pragma('catalogue.user_version = 4');
}

/** The catalogue's data version (what the read caches and ETags follow). */
function dataVersion(db: Database.Database): number {
  return db.prepare('SELECT version FROM catalogue_version').pluck().get() as number;
}

/** The catalogue file's schema as SQLite keeps it (a renamed table's name comes quoted). */
function catalogueSchema(file: string): unknown[] {
  const db = new Database(join(dir, file), { readonly: true });
  try {
    return [
      ...db
        .prepare(`SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name`)
        .all()
        .map((row) => {
          const r = row as { sql: string | null };
          return { ...r, sql: r.sql?.replace(/^CREATE TABLE "(\w+)"/, 'CREATE TABLE $1') };
        }),
      // The full-text index's settings, which its config table keeps.
      ...db.prepare('SELECT k, v FROM text_words_config ORDER BY k').all(),
    ];
  } finally {
    db.close();
  }
}

describe('the catalogue file', () => {
  it('sits beside the database, named after it', () => {
    expect(cataloguePathFor('/data/onair.db')).toBe('/data/onair.catalogue.db');
    expect(cataloguePathFor('/data/guide.sqlite')).toBe('/data/guide.catalogue.sqlite');
    expect(cataloguePathFor('/data/onair')).toBe('/data/onair.catalogue.db');
    expect(cataloguePathFor(':memory:')).toBe(':memory:');
  });

  it('holds the catalogue of a new database; the accounts file holds the rest', async () => {
    const store = openSqliteStore({ path, nowMs: NOW });
    try {
      expect(tables(store.db, 'catalogue')).toEqual([
        'catalogue_version',
        // The change log (version 7).
        'changes',
        'changes_horizon',
        'channels',
        'playground_channels',
        'programmes',
        // Each distinct search text (version 8).
        'search_texts',
        'source_files',
        // AUTOINCREMENT's counters (the change log's).
        'sqlite_sequence',
        // The search texts' full-text index (version 8) and its FTS5 tables.
        'text_words',
        'text_words_config',
        'text_words_data',
        'text_words_docsize',
        'text_words_idx',
      ]);
      expect(tables(store.db, 'main')).not.toContain('programmes');
      expect(tables(store.db, 'main')).toContain('accounts');
      expect(store.db.pragma('catalogue.journal_mode', { simple: true })).toBe('wal');
      expect(store.db.pragma('catalogue.page_size', { simple: true })).toBe(CATALOGUE_PAGE_SIZE);
      expect(store.db.pragma('main.page_size', { simple: true })).toBe(4096);
      expect(store.db.pragma('catalogue.user_version', { simple: true })).toBe(
        CATALOGUE_SCHEMA_VERSION,
      );
    } finally {
      await store.close();
    }
    expect(existsSync(join(dir, 'onair.catalogue.db'))).toBe(true);
  });

  it('migration 6 moves an existing catalogue there, rows, indexes and version moving on', async () => {
    singleFileDatabase();
    const old = new Database(path);
    const before = old
      .prepare(`SELECT version FROM data_versions WHERE name = 'catalogue'`)
      .pluck()
      .get() as number;
    const programmes = old.prepare('SELECT * FROM programmes ORDER BY id').all();
    old.close();

    const store = openSqliteStore({ path, nowMs: NOW });
    try {
      const db = store.db;
      expect(currentSchemaVersion(db)).toBe(LATEST_VERSION);
      expect(tables(db, 'main')).not.toContain('channels');
      // Moved as they were, then given the (empty) details of version 3, the search words of
      // version 5, the channel's sort key and country of version 6 and the search text of
      // version 8 (the same words: one text).
      expect(db.prepare('SELECT * FROM catalogue.programmes ORDER BY id').all()).toEqual(
        programmes.map((row) => ({
          ...(row as object),
          details: '',
          search_words: 'news d c',
          channel_name_key: 'one',
          channel_country: 'IE',
          search_text: 1,
        })),
      );
      expect(db.prepare('SELECT id, words FROM search_texts').raw().all()).toEqual([
        [1, 'news d c'],
      ]);
      expect(
        db.prepare('SELECT name_fixed, reviewed_at FROM catalogue.channels WHERE id = ?').get('c0'),
      ).toEqual({ name_fixed: 1, reviewed_at: NOW });
      expect(db.prepare('SELECT channel_id FROM playground_channels').pluck().all()).toEqual([
        'c0',
      ]);
      const version = () => dataVersion(db);
      const moved = version() as number;
      expect(moved).toBeGreaterThan(before);
      expect(db.prepare('SELECT name FROM data_versions').pluck().all()).toEqual(['auth']);
      // The indexes the read path relies on came along.
      const plan = db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT id FROM programmes WHERE channel_id = 'c0' AND start_ms >= 0`,
        )
        .all() as { detail: string }[];
      expect(plan.map((p) => p.detail).join()).toMatch(/programmes_by_channel_start/);
      // Triggers keep the version moving in the new file.
      db.prepare(`UPDATE channels SET icon = 'x' WHERE id = 'c0'`).run();
      expect(version()).toBe(moved + 1);
    } finally {
      await store.close();
    }
  });

  it('a move that committed in the catalogue file only is finished on the next open', async () => {
    singleFileDatabase();
    copyFileSync(path, join(dir, 'before.db'));
    await openSqliteStore({ path, nowMs: NOW }).close();
    // As if the move's commit reached the catalogue file and not the accounts file.
    copyFileSync(join(dir, 'before.db'), path);

    const store = openSqliteStore({ path, nowMs: NOW });
    try {
      expect(tables(store.db, 'main')).not.toContain('programmes');
      expect(store.db.prepare('SELECT count(*) FROM programmes').pluck().get()).toBe(2);
      expect(currentSchemaVersion(store.db)).toBe(LATEST_VERSION);
    } finally {
      await store.close();
    }
  });

  it('two different catalogues are refused, and both files left as they were', async () => {
    singleFileDatabase(2);
    // Beside it, the catalogue file of another database, with another catalogue.
    const other = openSqliteStore({ path: join(dir, 'other.db'), nowMs: NOW });
    other.db
      .prepare(
        `INSERT INTO channels (id, xmltv_id, name, name_key, name_folded, icon, country,
           needs_review, created_at, updated_at) VALUES ('z', 'z.ie', 'Z', 'z', 'z', '', 'IE', 0, 0, 0)`,
      )
      .run();
    await other.close();
    copyFileSync(join(dir, 'other.catalogue.db'), join(dir, 'onair.catalogue.db'));

    expect(() => openSqliteStore({ path, nowMs: NOW })).toThrow(SchemaVersionError);
    const db = new Database(path);
    expect(db.prepare('SELECT count(*) FROM programmes').pluck().get()).toBe(2);
    expect(currentSchemaVersion(db)).toBe(CATALOGUE_FILE_VERSION - 1);
    db.close();
    const kept = new Database(join(dir, 'onair.catalogue.db'));
    expect(kept.prepare('SELECT id FROM channels').pluck().all()).toEqual(['z']);
    kept.close();
  });

  it('a lost catalogue file comes back empty; a newer one is refused', async () => {
    await openSqliteStore({ path, nowMs: NOW }).close();
    for (const suffix of ['', '-wal', '-shm']) {
      rmSync(join(dir, `onair.catalogue.db${suffix}`), { force: true });
    }
    const store = openSqliteStore({ path, nowMs: NOW });
    expect(store.db.prepare('SELECT count(*) FROM channels').pluck().get()).toBe(0);
    store.db.pragma(`catalogue.user_version = ${CATALOGUE_SCHEMA_VERSION + 1}`);
    await store.close();
    expect(() => openSqliteStore({ path, nowMs: NOW })).toThrow(/catalogue file's schema/);
  });

  it('an ingest holding the catalogue lock leaves account writes free', async () => {
    const store = openSqliteStore({ path, nowMs: NOW, busyTimeoutMs: 100 });
    const ingest = new Database(join(dir, 'onair.catalogue.db'));
    try {
      ingest.exec('BEGIN IMMEDIATE');
      const account = await store.accounts.createAccount(
        { email: 'free@example.com', verifiedAt: NOW, accessUntil: null, rateLimit: null },
        NOW,
      );
      expect(account.email).toBe('free@example.com');
      expect(await store.catalogue.listCountries()).toEqual([]);
      expect(() => store.db.exec('UPDATE channels SET icon = icon')).toThrow(/locked/);
    } finally {
      ingest.exec('ROLLBACK');
      ingest.close();
      await store.close();
    }
  });

  it('version 2 is upgraded on open: every programme gets empty details, answers and version kept', async () => {
    const old = openSqliteStore({ path, nowMs: NOW });
    old.db.exec(ONE_CHANNEL_AND_FILE);
    withoutSearchWords(old.db);
    old.db.exec(`
      DROP INDEX catalogue.programmes_long;
      ALTER TABLE catalogue.programmes DROP COLUMN details;
      INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms, title,
         description, category, needs_review, source_file_id, updated_at)
       VALUES ('1000000000000000001', 'c0', '20261101080000 +0000', '', ${NOW}, NULL, 'News', 'd',
         'c', 0, 'f1', 0);`);
    old.db.pragma('catalogue.user_version = 2');
    const answer = await old.catalogue.listProgrammes('c0');
    const version = dataVersion(old.db);
    await old.close();

    const store = openSqliteStore({ path, nowMs: NOW });
    try {
      const db = store.db;
      expect(db.pragma('catalogue.user_version', { simple: true })).toBe(CATALOGUE_SCHEMA_VERSION);
      expect(db.prepare('SELECT details FROM programmes').pluck().all()).toEqual(['']);
      expect(await store.catalogue.listProgrammes('c0')).toEqual(answer);
      expect(await store.catalogue.findProgramme('c0', '1000000000000000001')).toMatchObject({
        title: 'News',
        titles: [{ value: 'News', lang: '' }],
        credits: [],
      });
      expect(dataVersion(db)).toBe(version);
    } finally {
      await store.close();
    }
  });

  it('version 4 is upgraded on open: each programme gets its search words and their index', async () => {
    const old = openSqliteStore({ path, nowMs: NOW });
    withoutSearchWords(old.db);
    old.db.exec(ONE_CHANNEL_AND_FILE);
    const insert = old.db.prepare(
      `INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms, title,
         description, category, needs_review, source_file_id, updated_at, details)
       VALUES (?, 'c0', '', '', ?, NULL, ?, ?, ?, 0, 'f1', 0, ?)`,
    );
    insert.run('1000000000000000001', NOW, 'Télé News', 'The day', 'Current affairs', '');
    // Rich data: a sub-title and a credit, in their stored form.
    const rich = encodeDetails(
      {
        ...emptyDetails(),
        subTitle: 'Édition spéciale',
        subTitles: [{ value: 'Édition spéciale', lang: '' }],
        credits: [{ role: 'actor', name: 'Zoë Ångström', character: '' }],
      },
      { title: 'Cinéma', desc: '', categories: [] },
    );
    insert.run('1000000000000000002', NOW + 60_000, 'Cinéma', '', '', rich);
    const version = dataVersion(old.db);
    await old.close();

    const store = openSqliteStore({ path, nowMs: NOW });
    try {
      const db = store.db;
      expect(db.pragma('catalogue.user_version', { simple: true })).toBe(CATALOGUE_SCHEMA_VERSION);
      expect(db.prepare('SELECT search_words FROM programmes ORDER BY id').pluck().all()).toEqual([
        'tele news the day current affairs',
        'cinema edition speciale zoe angstrom',
      ]);
      const search = (words: string[], prefix: string) =>
        searchWhole(store.catalogue, hourSearch(prefix, words)).then((hits) =>
          hits.map((h) => h.programme.title),
        );
      expect(await search(['zoe'], 'edition')).toEqual(['Cinéma']);
      expect(await search([], 'curr')).toEqual(['Télé News']);
      // A search for a word reads the word index.
      const plan = (sql: string) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[])
          .map((p) => p.detail)
          .join();
      expect(plan(`SELECT rowid FROM text_words WHERE text_words MATCH 'news'`)).toMatch(
        /VIRTUAL TABLE INDEX/,
      );
      expect(dataVersion(db)).toBe(version);
    } finally {
      await store.close();
    }
  });

  it("version 5 is upgraded on open: each programme carries its channel's sort key and country, kept by a trigger", async () => {
    const old = openSqliteStore({ path, nowMs: NOW });
    withoutSearchOrder(old.db);
    old.db.exec(`${ONE_CHANNEL_AND_FILE}
      INSERT INTO channels (id, xmltv_id, name, name_key, name_folded, icon, country,
        needs_review, created_at, updated_at)
        VALUES ('c1', 'two.uk', 'Two', 'two', 'two', '', 'UK', 0, 0, 0);`);
    const insert = old.db.prepare(
      `INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms, title,
         description, category, needs_review, source_file_id, updated_at, details, search_words)
       VALUES (?, ?, '', '', ?, NULL, ?, '', '', 0, 'f1', 0, '', ?)`,
    );
    insert.run('1000000000000000001', 'c0', NOW, 'News one', 'news one');
    insert.run('1000000000000000002', 'c1', NOW, 'News two', 'news two');
    insert.run('1000000000000000003', 'c1', NOW + 60_000, 'Later news', 'later news');
    const version = dataVersion(old.db);
    await old.close();

    const store = openSqliteStore({ path, nowMs: NOW });
    try {
      const db = store.db;
      expect(db.pragma('catalogue.user_version', { simple: true })).toBe(CATALOGUE_SCHEMA_VERSION);
      const copies = () =>
        db
          .prepare('SELECT id, channel_name_key, channel_country FROM programmes ORDER BY id')
          .raw()
          .all();
      expect(copies()).toEqual([
        ['1000000000000000001', 'one', 'IE'],
        ['1000000000000000002', 'two', 'UK'],
        ['1000000000000000003', 'two', 'UK'],
      ]);
      const search = (country: string | null) =>
        searchWhole(store.catalogue, hourSearch('news', [], country)).then((hits) =>
          hits.map((h) => `${h.channel.name}: ${h.programme.title}`),
        );
      expect(await search(null)).toEqual(['One: News one', 'Two: News two', 'Two: Later news']);
      // A channel renamed and moved (as an ingest or `onair channels set` does) carries its
      // programmes along: the order and the country filter follow at once.
      await store.channels.fixChannel('c0', { name: 'Zed', country: 'UK' }, NOW + 1);
      expect(copies()).toEqual([
        ['1000000000000000001', 'zed', 'UK'],
        ['1000000000000000002', 'two', 'UK'],
        ['1000000000000000003', 'two', 'UK'],
      ]);
      expect(await search('UK')).toEqual(['Two: News two', 'Zed: News one', 'Two: Later news']);
      expect(await search('IE')).toEqual([]);
      // A walk reads the index in result order, of all countries or of one.
      const plan = (sql: string) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[])
          .map((p) => p.detail)
          .join();
      expect(
        plan(`SELECT id FROM programmes WHERE start_ms >= 0
          ORDER BY start_ms, channel_name_key, id LIMIT 5`),
      ).toMatch(/programmes_in_search_order/);
      expect(
        plan(`SELECT id FROM programmes WHERE channel_country = 'UK' AND start_ms >= 0
          ORDER BY start_ms, channel_name_key, id LIMIT 5`),
      ).toMatch(/programmes_in_country_search_order/);
      // The upgrade changed no answer (the rename after it did).
      expect(version).toBeLessThan(dataVersion(db));
    } finally {
      await store.close();
    }
  });

  it('version 7 is upgraded on open: each distinct search text once, indexed, and each programme pointing at its own', async () => {
    const old = openSqliteStore({ path, nowMs: NOW });
    old.db.exec(ONE_CHANNEL_AND_FILE);
    withoutSearchTexts(old.db);
    const insert = old.db.prepare(
      `INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms, title,
         description, category, needs_review, source_file_id, updated_at, details, search_words,
         channel_name_key, channel_country)
       VALUES (?, 'c0', '', '', ?, NULL, ?, '', '', 0, 'f1', 0, '', ?, 'one', 'IE')`,
    );
    insert.run('1000000000000000001', NOW, 'News at six', 'news at six');
    insert.run('1000000000000000002', NOW + 60_000, 'Film', 'film');
    insert.run('1000000000000000003', NOW + 120_000, 'News at six', 'news at six');
    insert.run('1000000000000000004', NOW + 180_000, '', '');
    const version = dataVersion(old.db);
    await old.close();

    const store = openSqliteStore({ path, nowMs: NOW });
    try {
      const db = store.db;
      expect(db.pragma('catalogue.user_version', { simple: true })).toBe(CATALOGUE_SCHEMA_VERSION);
      expect(
        db
          .prepare(
            `SELECT p.id, t.words FROM programmes AS p JOIN search_texts AS t
             ON t.id = p.search_text ORDER BY p.id`,
          )
          .raw()
          .all(),
      ).toEqual([
        ['1000000000000000001', 'news at six'],
        ['1000000000000000002', 'film'],
        ['1000000000000000003', 'news at six'],
        ['1000000000000000004', ''],
      ]);
      expect(db.prepare('SELECT count(*) FROM search_texts').pluck().get()).toBe(3);
      expect(tables(db, 'catalogue')).not.toContain('programme_words');
      const search = (prefix: string) =>
        store.catalogue
          .searchProgrammes(hourSearch(prefix))
          .then((hits) => hits.map((h) => h.programme.id));
      expect(await search('six')).toEqual(['1000000000000000001', '1000000000000000003']);
      expect(await search('fi')).toEqual(['1000000000000000002']);
      // A text's programmes in a window are one range of their index.
      const plan = (
        db
          .prepare(
            `EXPLAIN QUERY PLAN SELECT p.id FROM text_words CROSS JOIN programmes AS p
             ON p.search_text = text_words.rowid
             WHERE text_words MATCH 'six' AND p.start_ms >= 0 AND p.start_ms < 10`,
          )
          .all() as { detail: string }[]
      )
        .map((p) => p.detail)
        .join();
      expect(plan).toMatch(
        /programmes_by_search_text \(search_text=\? AND start_ms>\? AND start_ms<\?\)/,
      );
      // A walk in result order reads only the index, which holds each programme's text.
      for (const [index, where] of [
        ['programmes_in_search_order', 'start_ms >= 0'],
        ['programmes_in_country_search_order', `channel_country = 'IE' AND start_ms >= 0`],
      ]) {
        const walk = (
          db
            .prepare(
              `EXPLAIN QUERY PLAN SELECT rowid, search_text FROM programmes INDEXED BY ${index}
               WHERE ${where} ORDER BY start_ms, channel_name_key, id LIMIT 5`,
            )
            .all() as { detail: string }[]
        )
          .map((p) => p.detail)
          .join();
        expect(walk).toMatch(new RegExp(`USING COVERING INDEX ${index}`));
        expect(walk).not.toMatch(/TEMP B-TREE/);
      }
      // No answer changed.
      expect(dataVersion(db)).toBe(version);
    } finally {
      await store.close();
    }
  });

  it('version 9 is upgraded on open: the texts’ full-text index gathers 4 MiB of new words, answers kept', async () => {
    const hashSize = (db: Database.Database) =>
      db.prepare(`SELECT v FROM text_words_config WHERE k = 'hashsize'`).pluck().get();
    const old = openSqliteStore({ path, nowMs: NOW });
    expect(hashSize(old.db)).toBe(4 * 1024 * 1024);
    old.db.exec(ONE_CHANNEL_AND_FILE);
    // As version 9 left it: FTS5's default (its shadow tables cannot be written directly).
    old.db.exec(`INSERT INTO text_words (text_words, rank) VALUES ('hashsize', 1048576);
      PRAGMA catalogue.user_version = 9;`);
    expect(hashSize(old.db)).toBe(1024 * 1024);
    const version = dataVersion(old.db);
    await old.close();

    const store = openSqliteStore({ path, nowMs: NOW });
    try {
      expect(store.db.pragma('catalogue.user_version', { simple: true })).toBe(
        CATALOGUE_SCHEMA_VERSION,
      );
      expect(hashSize(store.db)).toBe(4 * 1024 * 1024);
      expect(dataVersion(store.db)).toBe(version);
    } finally {
      await store.close();
    }
  });

  it("version 10 is upgraded on open: channels get their display-names column, '[]' until an ingest", async () => {
    const old = openSqliteStore({ path, nowMs: NOW });
    old.db.exec(ONE_CHANNEL_AND_FILE);
    old.db.exec(`ALTER TABLE catalogue.channels DROP COLUMN display_names;
      PRAGMA catalogue.user_version = 10;`);
    const version = dataVersion(old.db);
    await old.close();

    const store = openSqliteStore({ path, nowMs: NOW });
    try {
      expect(store.db.pragma('catalogue.user_version', { simple: true })).toBe(
        CATALOGUE_SCHEMA_VERSION,
      );
      expect(store.db.prepare('SELECT display_names FROM channels').pluck().all()).toEqual(['[]']);
      const [channel] = await store.feeds.lineupChannels({ kind: 'channels', channelIds: ['c0'] });
      expect(channel?.displayNames).toEqual([]);
      expect(dataVersion(store.db)).toBe(version);
    } finally {
      await store.close();
    }
  });

  it('version 1 is upgraded on open: programmes keyed by slot, not id, rows and answers kept', async () => {
    // A catalogue file as version 1 left it: programmes with their id as primary key.
    const old = openSqliteStore({ path, nowMs: NOW });
    old.db.exec(ONE_CHANNEL_AND_FILE);
    keyProgrammesById(old.db);
    const insert = old.db.prepare(
      `INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms, title,
         description, category, needs_review, source_file_id, updated_at)
       VALUES (?, 'c0', ?, '', ?, NULL, ?, '', '', 0, 'f1', 0)`,
    );
    insert.run('1000000000000000002', '20261101090000 +0000', NOW + 3_600_000, 'Later');
    insert.run('1000000000000000001', '20261101080000 +0000', NOW, 'Earlier');
    insert.run('1000000000000000003', 'sometime', null, 'Unparsed');
    const rows = old.db.prepare('SELECT * FROM programmes ORDER BY id').all();
    const answer = await old.catalogue.listProgrammes('c0');
    const version = dataVersion(old.db);
    await old.close();

    const store = openSqliteStore({ path, nowMs: NOW });
    try {
      const db = store.db;
      expect(db.pragma('catalogue.user_version', { simple: true })).toBe(CATALOGUE_SCHEMA_VERSION);
      // The old table's pages went back to the file system.
      expect(db.pragma('catalogue.freelist_count', { simple: true })).toBe(0);
      const words = { Earlier: 'earlier', Later: 'later', Unparsed: 'unparsed' };
      expect(db.prepare('SELECT * FROM programmes ORDER BY id').all()).toEqual(
        rows.map((row) => ({
          ...(row as object),
          details: '',
          search_words: words[(row as { title: keyof typeof words }).title],
          channel_name_key: 'one',
          channel_country: 'IE',
          search_text: expect.any(Number) as number,
        })),
      );
      expect(await store.catalogue.listProgrammes('c0')).toEqual(answer);
      // Unchanged answers keep their version, so their ETags stay valid.
      expect(dataVersion(db)).toBe(version);
      const indexes = db
        .prepare(
          `SELECT name, "unique", partial FROM pragma_index_list('programmes', 'catalogue')
           ORDER BY name`,
        )
        .all();
      expect(indexes).toEqual([
        { name: 'programmes_by_channel_start', unique: 1, partial: 0 },
        { name: 'programmes_by_search_text', unique: 0, partial: 0 },
        { name: 'programmes_in_country_search_order', unique: 0, partial: 0 },
        { name: 'programmes_in_search_order', unique: 0, partial: 0 },
        { name: 'programmes_long', unique: 0, partial: 1 },
        { name: 'programmes_unparsed', unique: 1, partial: 1 },
      ]);
      // The guide's read of long programmes uses their index (version 4).
      const plan = db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT id FROM programmes
           WHERE channel_id = 'c0' AND ${LONG_PROGRAMME_CONDITION} AND stop_ms > 0 AND start_ms < 0`,
        )
        .all() as { detail: string }[];
      expect(plan.map((p) => p.detail).join()).toMatch(/programmes_long/);
      // The slot is the key now, for a start that parsed and for one that did not.
      const again = db.prepare(
        `INSERT INTO programmes SELECT id, channel_id, start, stop, start_ms, stop_ms, title,
           description, category, needs_review, source_file_id, updated_at, details, search_words,
           channel_name_key, channel_country, search_text
         FROM programmes WHERE title = ?`,
      );
      for (const title of ['Earlier', 'Unparsed']) {
        expect(() => again.run(title), title).toThrow(/UNIQUE constraint failed/);
      }
    } finally {
      await store.close();
    }
  });

  it('is the same whichever way it was made: new, moved by migration 6, upgraded from version 1', async () => {
    await openSqliteStore({ path: join(dir, 'new.db'), nowMs: NOW }).close();

    path = join(dir, 'moved.db');
    singleFileDatabase();
    await openSqliteStore({ path, nowMs: NOW }).close();

    const old = openSqliteStore({ path: join(dir, 'upgraded.db'), nowMs: NOW });
    keyProgrammesById(old.db);
    await old.close();
    await openSqliteStore({ path: join(dir, 'upgraded.db'), nowMs: NOW }).close();

    const made = catalogueSchema('new.catalogue.db');
    expect(made.length).toBeGreaterThan(10);
    expect(catalogueSchema('moved.catalogue.db')).toEqual(made);
    expect(catalogueSchema('upgraded.catalogue.db')).toEqual(made);
  });
});
