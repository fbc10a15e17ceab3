import type pg from 'pg';
import {
  FOLDED_LETTER_LIST,
  programmeSearchText,
  refoldedSearchText,
} from '../../domain/programme-search.js';
import { decodeDetails } from '../../domain/programme-details.js';
import { storedV1Texts } from '../../domain/programme.js';
import type { SchemaMigration } from '../schema-migration.js';

/**
 * A step of the PostgreSQL schema: its SQL, then, in the same transaction, what SQL cannot do
 * (`fill`: values computed by the domain's rules for the rows stored before).
 */
export interface PostgresMigration extends SchemaMigration {
  fill?: (client: pg.ClientBase) => Promise<void>;
}

/**
 * Migration 9's fill: each stored programme's search words (programmeSearchText), in batches
 * along the table (TID ranges), then the column made NOT NULL as new rows have it.
 */
async function fillSearchWords(client: pg.ClientBase): Promise<void> {
  let after = '(0,0)';
  for (;;) {
    const { rows } = await client.query<{
      tid: string;
      title: string;
      description: string;
      category: string;
      details: string;
    }>(
      `SELECT ctid::text AS tid, title, description, category, details FROM programmes
       WHERE ctid > $1::tid AND search_words IS NULL ORDER BY ctid LIMIT 5000`,
      [after],
    );
    const last = rows.at(-1);
    if (last === undefined) break;
    after = last.tid;
    const words = rows.map((row) => {
      const v1 = storedV1Texts({ title: row.title, desc: row.description, category: row.category });
      return programmeSearchText(v1, decodeDetails(row.details, v1));
    });
    await client.query(
      `UPDATE programmes SET search_words = filled.words
       FROM unnest($1::tid[], $2::text[]) AS filled (tid, words) WHERE programmes.ctid = filled.tid`,
      [rows.map((row) => row.tid), words],
    );
  }
  await client.query(`ALTER TABLE programmes ALTER COLUMN search_words SET NOT NULL`);
}

/**
 * Migration 16's fill: the stored words with the letters foldLetters folds, folded as an ingest
 * would make them now (refoldedSearchText), as on SQLite (catalogue-file.ts, version 9): each
 * search text holding one gets its folded words, or its programmes move to the text that has
 * them already; each programme's copy follows.
 */
async function refoldSearchTexts(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query<{ id: string; words: string }>(
    'SELECT id, words FROM search_texts WHERE words ~ $1',
    [`[${FOLDED_LETTER_LIST.join('')}]`],
  );
  for (const { id, words } of rows) {
    const folded = refoldedSearchText(words);
    const holder = await client.query<{ id: string }>(
      'SELECT id FROM search_texts WHERE md5(words) = md5($1) AND words = $1',
      [folded],
    );
    const other = holder.rows[0]?.id;
    if (other === undefined) {
      await client.query('UPDATE search_texts SET words = $1 WHERE id = $2', [folded, id]);
    }
    await client.query(
      'UPDATE programmes SET search_text = $1, search_words = $2 WHERE search_text = $3',
      [other ?? id, folded, id],
    );
    if (other !== undefined) await client.query('DELETE FROM search_texts WHERE id = $1', [id]);
  }
}

// Times are epoch milliseconds (BIGINT), read back as numbers. `name_key` and ids sort with
// COLLATE "C" so lists come out in the same byte order as on SQLite.
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'catalogue and accounts',
    sql: `
      CREATE EXTENSION IF NOT EXISTS pg_trgm;

      CREATE TABLE channels (
        id TEXT PRIMARY KEY,
        xmltv_id TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        name_key TEXT COLLATE "C" NOT NULL,
        name_folded TEXT NOT NULL,
        icon TEXT NOT NULL,
        country TEXT NOT NULL,
        needs_review BOOLEAN NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX channels_by_country_name ON channels (country, name_key, id COLLATE "C");
      CREATE INDEX channels_by_name ON channels (name_key, id COLLATE "C");
      -- Case- and accent-insensitive substring search: trigrams of the folded name.
      CREATE INDEX channels_name_trigrams ON channels USING gin (name_folded gin_trgm_ops);

      CREATE TABLE source_files (
        id TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        country TEXT,
        size_bytes BIGINT NOT NULL,
        sha256 TEXT NOT NULL,
        ingested_at BIGINT NOT NULL,
        summary JSONB NOT NULL
      );

      CREATE TABLE programmes (
        id TEXT PRIMARY KEY,
        channel_id TEXT NOT NULL REFERENCES channels (id),
        start TEXT NOT NULL,
        stop TEXT NOT NULL,
        start_ms BIGINT,
        stop_ms BIGINT,
        title TEXT NOT NULL,
        description TEXT NOT NULL,
        category TEXT NOT NULL,
        needs_review BOOLEAN NOT NULL,
        source_file_id TEXT NOT NULL REFERENCES source_files (id),
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX programmes_by_channel_start ON programmes (channel_id, start_ms, id COLLATE "C");

      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        email_key TEXT NOT NULL UNIQUE,
        verified_at BIGINT,
        access_until BIGINT,
        rate_limit INTEGER,
        disabled BOOLEAN NOT NULL DEFAULT false,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        name TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        last_four TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        last_used_at BIGINT,
        revoked_at BIGINT
      );
      CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at);

      CREATE TABLE sign_in_links (
        token_hash TEXT PRIMARY KEY,
        purpose TEXT NOT NULL,
        email TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        used_at BIGINT
      );
      CREATE INDEX sign_in_links_by_expiry ON sign_in_links (expires_at);

      CREATE TABLE sessions (
        session_hash TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX sessions_by_account ON sessions (account_id);
      CREATE INDEX sessions_by_expiry ON sessions (expires_at);

      CREATE TABLE audit_events (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        at BIGINT NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        details JSONB NOT NULL
      );
      CREATE INDEX audit_events_by_account ON audit_events (account_id, at, id COLLATE "C");

      CREATE TABLE usage_hourly (
        account_id TEXT NOT NULL REFERENCES accounts (id),
        hour_start BIGINT NOT NULL,
        requests BIGINT NOT NULL,
        limited BIGINT NOT NULL,
        PRIMARY KEY (account_id, hour_start)
      );
    `,
  },
  {
    version: 2,
    name: 'catalogue version for response caches',
    sql: `
      CREATE TABLE catalogue_state (
        id BOOLEAN PRIMARY KEY DEFAULT true CHECK (id),
        version BIGINT NOT NULL
      );
      INSERT INTO catalogue_state (version) VALUES (0);
      CREATE FUNCTION bump_catalogue_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE catalogue_state SET version = version + 1;
        RETURN NULL;
      END $$;
      -- Statement-level: one bump per statement, however many rows an ingest writes.
      CREATE TRIGGER channels_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON channels
        FOR EACH STATEMENT EXECUTE FUNCTION bump_catalogue_version();
      CREATE TRIGGER programmes_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON programmes
        FOR EACH STATEMENT EXECUTE FUNCTION bump_catalogue_version();
    `,
  },
  {
    version: 3,
    name: 'playground channels',
    // The demo catalogue's preview channels (UUID v5 of onair-news.uk, kelpie-kids.uk,
    // tele-lumiere.fr, rundfunk-sud.de, canal-sol.es) are marked when a database already has
    // them; an empty one gets them when `serve --demo` loads the demo guide. Marking or
    // unmarking a channel changes what the playground serves, so it moves the catalogue
    // version the response caches check.
    sql: `
      CREATE TABLE playground_channels (
        channel_id TEXT PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
        added_at BIGINT NOT NULL
      );
      INSERT INTO playground_channels (channel_id, added_at)
        SELECT id, (extract(epoch FROM now()) * 1000)::bigint FROM channels
        WHERE id IN ('dd41cb78-ddbb-5222-af7d-7173a2d56458', '9a2a919e-4582-5cb5-8dcd-8c763f229632',
                     '5197c011-6bbf-5ccf-82aa-95ba7819ade6', '087e15fc-88d3-5779-b9c6-c922c84331f4',
                     'ef689abc-3e6a-5aab-b45d-0cba62d79133');
      CREATE TRIGGER playground_channels_changed
        AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON playground_channels
        FOR EACH STATEMENT EXECUTE FUNCTION bump_catalogue_version();
    `,
  },
  {
    version: 4,
    name: 'auth version and change notifications for the read caches',
    // Instances cache keys and serialised bodies and keep the versions in memory while they
    // LISTEN on onair_data_changed (data-versions.ts). The database itself notifies at commit,
    // whoever writes (an instance, the CLI, plain SQL). Key use (last_used_at) and usage
    // counts change no version. Versions start at random values so that a database made anew
    // never repeats the ETags of an old one.
    sql: `
      CREATE TABLE auth_state (
        id BOOLEAN PRIMARY KEY DEFAULT true CHECK (id),
        version BIGINT NOT NULL
      );
      INSERT INTO auth_state (version) VALUES (floor(random() * 1e12)::bigint);
      UPDATE catalogue_state SET version = version + floor(random() * 1e12)::bigint;

      CREATE OR REPLACE FUNCTION bump_catalogue_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE catalogue_state SET version = version + 1;
        PERFORM pg_notify('onair_data_changed', 'catalogue');
        RETURN NULL;
      END $$;
      CREATE FUNCTION bump_auth_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE auth_state SET version = version + 1;
        PERFORM pg_notify('onair_data_changed', 'auth');
        RETURN NULL;
      END $$;
      CREATE TRIGGER accounts_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON accounts
        FOR EACH STATEMENT EXECUTE FUNCTION bump_auth_version();
      CREATE TRIGGER api_keys_changed
        AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF account_id, key_hash, revoked_at ON api_keys
        FOR EACH STATEMENT EXECUTE FUNCTION bump_auth_version();
    `,
  },
  {
    version: 5,
    name: 'guide sources and operator fixes of channels',
    sql: `
      -- What the operator fixed by hand; a later ingest keeps these values.
      ALTER TABLE channels ADD COLUMN name_fixed BOOLEAN NOT NULL DEFAULT false;
      ALTER TABLE channels ADD COLUMN country_fixed BOOLEAN NOT NULL DEFAULT false;
      ALTER TABLE channels ADD COLUMN reviewed_at BIGINT;

      CREATE TABLE sources (
        id TEXT PRIMARY KEY,
        location TEXT NOT NULL UNIQUE,
        country TEXT NOT NULL,
        every_ms BIGINT NOT NULL,
        assume_offset_minutes INTEGER NOT NULL,
        created_at BIGINT NOT NULL,
        next_run_at BIGINT NOT NULL,
        failures INTEGER NOT NULL DEFAULT 0,
        last_attempt_at BIGINT,
        last_success_at BIGINT,
        last_ingest_at BIGINT,
        last_status INTEGER,
        last_outcome TEXT,
        last_error TEXT,
        etag TEXT,
        last_modified TEXT,
        content_sha256 TEXT,
        source_file_id TEXT,
        channels INTEGER,
        programmes INTEGER,
        latest_end_ms BIGINT,
        lease_holder TEXT,
        lease_until BIGINT
      );
      CREATE INDEX sources_by_next_run ON sources (next_run_at);
    `,
  },
  {
    version: 6,
    name: 'programmes keyed by (channel, start), not by id',
    // As on SQLite (catalogue-file.ts): nothing reads a programme by its id, and an id is a
    // hash of (channel, start), so the (channel, start) index, unique, keeps one programme per
    // slot; a start that did not parse (NULL) has an index of its own.
    sql: `
      ALTER TABLE programmes DROP CONSTRAINT programmes_pkey;
      ALTER TABLE programmes ALTER COLUMN id SET NOT NULL;
      DROP INDEX programmes_by_channel_start;
      CREATE UNIQUE INDEX programmes_by_channel_start
        ON programmes (channel_id, start_ms, id COLLATE "C");
      CREATE UNIQUE INDEX programmes_unparsed
        ON programmes (channel_id, id COLLATE "C") WHERE start_ms IS NULL;
    `,
  },
  {
    version: 7,
    name: "programmes' rich data",
    // As on SQLite (catalogue-file.ts, version 3): empty for the programmes stored before, until
    // their guide is ingested again. A constant default rewrites no row.
    sql: `ALTER TABLE programmes ADD COLUMN details TEXT NOT NULL DEFAULT '';`,
  },
  {
    version: 8,
    name: 'an index of the long programmes, for the guide routes',
    // As on SQLite (catalogue-file.ts, version 4): the condition is LONG_PROGRAMME_CONDITION
    // (rows.ts) as this version made it; a new length would be a new migration.
    sql: `CREATE INDEX programmes_long ON programmes (channel_id, stop_ms)
      WHERE stop_ms - start_ms > 21600000;`,
  },
  {
    version: 9,
    name: 'programme search: the words, their index and the programmes by start',
    // As on SQLite (catalogue-file.ts, version 5): the stored words, already folded and separated
    // by single spaces, are the lexemes as they are (array_to_tsvector does not parse them), so
    // both engines match the same words; a search for a frequent word walks the programmes by
    // start instead. The words of the programmes stored before are computed by `fill`.
    sql: `
      ALTER TABLE programmes ADD COLUMN search_words TEXT;
      CREATE INDEX programmes_words ON programmes
        USING gin (array_to_tsvector(string_to_array(search_words, ' ')));
      CREATE INDEX programmes_by_start ON programmes (start_ms);
    `,
    fill: fillSearchWords,
  },
  {
    version: 10,
    name: 'guide feeds of accounts',
    // As on SQLite (accounts file, version 7).
    sql: `
      CREATE TABLE feeds (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        country TEXT,
        channel_ids TEXT NOT NULL,
        days_ahead INTEGER NOT NULL,
        days_back INTEGER NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX feeds_by_account ON feeds (account_id, created_at);
    `,
  },
  {
    version: 11,
    name: "search order: each programme carries its channel's sort key and country",
    // As on SQLite (catalogue-file.ts, version 6, where the reasons are): the copies, their two
    // indexes in search order (the one by start alone is dropped: these begin with it), and
    // the trigger that keeps the copies equal to their channel's.
    sql: `
      ALTER TABLE programmes ADD COLUMN channel_name_key TEXT COLLATE "C" NOT NULL DEFAULT '',
        ADD COLUMN channel_country TEXT NOT NULL DEFAULT '';
      UPDATE programmes AS p SET channel_name_key = c.name_key, channel_country = c.country
        FROM channels AS c WHERE c.id = p.channel_id;
      DROP INDEX programmes_by_start;
      CREATE INDEX programmes_in_search_order
        ON programmes (start_ms, channel_name_key, id COLLATE "C");
      CREATE INDEX programmes_in_country_search_order
        ON programmes (channel_country, start_ms, channel_name_key, id COLLATE "C");
      CREATE FUNCTION programmes_follow_channel() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          UPDATE programmes SET channel_name_key = NEW.name_key, channel_country = NEW.country
            WHERE channel_id = NEW.id;
          RETURN NULL;
        END $$;
      CREATE TRIGGER programmes_follow_channel AFTER UPDATE OF name_key, country ON channels
        FOR EACH ROW WHEN (OLD.name_key IS DISTINCT FROM NEW.name_key
          OR OLD.country IS DISTINCT FROM NEW.country)
        EXECUTE FUNCTION programmes_follow_channel();
      -- Every row was rewritten: their words wait in the GIN index's pending list, which each
      -- search would read through (see ingest-session.ts).
      SELECT gin_clean_pending_list('programmes_words'::regclass);
    `,
  },
  {
    version: 12,
    name: 'the change log',
    // As on SQLite (catalogue-file.ts, version 7). A sequence may hand out numbers in another
    // order than transactions commit; merges that write records take a lock first
    // (postgres-merge-dialect.ts), so records are numbered in commit order.
    sql: `
      CREATE TABLE changes (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        kind TEXT NOT NULL,
        change TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        programme_id TEXT,
        start TEXT,
        at BIGINT NOT NULL
      );
      CREATE TABLE changes_horizon (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        seq BIGINT NOT NULL
      );
      INSERT INTO changes_horizon (id, seq) VALUES (1, 0);
    `,
  },
  {
    version: 13,
    name: 'webhooks of accounts and their attempts',
    // As on SQLite (accounts file, version 8, where the columns are explained).
    sql: `
      CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        secret TEXT NOT NULL,
        country TEXT,
        channel_ids TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        delivered_seq BIGINT NOT NULL,
        failures INTEGER NOT NULL DEFAULT 0,
        first_failure_at BIGINT,
        next_attempt_at BIGINT NOT NULL,
        disabled_at BIGINT,
        disabled_reason TEXT,
        claimed_by TEXT,
        claimed_until BIGINT
      );
      CREATE INDEX webhooks_by_account ON webhooks (account_id, created_at);
      CREATE INDEX webhooks_due ON webhooks (next_attempt_at) WHERE disabled_at IS NULL;

      CREATE TABLE webhook_attempts (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        at BIGINT NOT NULL,
        kind TEXT NOT NULL,
        status INTEGER,
        error TEXT,
        duration_ms INTEGER NOT NULL,
        changes INTEGER NOT NULL,
        first_seq BIGINT,
        last_seq BIGINT
      );
      CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts (webhook_id, id);
    `,
  },
  {
    version: 14,
    name: 'programmes without foreign keys: the merge keeps their channel and file',
    // A foreign key is checked row by row, each check locking the channel's and the source
    // file's row (FOR KEY SHARE): 3.9 s of the 12.5 s insert of the 92 MB guide's 294,000
    // programmes (`EXPLAIN ANALYZE` of the same INSERT with and without them). Programmes are
    // written by the merge alone, after the channels and the source file it writes in the same
    // transaction, and neither is ever deleted; the store contract checks that no programme
    // names a missing channel or file after every kind of merge. (SQLite checks its foreign
    // keys by an index probe each, without locks: kept there.)
    sql: `
      ALTER TABLE programmes DROP CONSTRAINT IF EXISTS programmes_channel_id_fkey,
        DROP CONSTRAINT IF EXISTS programmes_source_file_id_fkey;
    `,
  },
  {
    version: 15,
    name: 'the search index holds each distinct search text once',
    // As on SQLite (catalogue-file.ts, version 8, where the reasons are). Unique on the text's
    // MD5: a B-tree key holds at most about 2.7 KB, and a long description is more. The GIN
    // index of the words moves from the programmes to the texts; each programme points at its
    // text, indexed with its start. The default serves the rows stored before only: the merge
    // writes every new programme's.
    sql: `
      CREATE TABLE search_texts (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        words TEXT NOT NULL
      );
      CREATE UNIQUE INDEX search_texts_by_words ON search_texts (md5(words));
      INSERT INTO search_texts (words) SELECT DISTINCT search_words FROM programmes;
      ALTER TABLE programmes ADD COLUMN search_text BIGINT NOT NULL DEFAULT 0;
      UPDATE programmes AS p SET search_text = t.id
        FROM search_texts AS t WHERE md5(t.words) = md5(p.search_words);
      ALTER TABLE programmes ALTER COLUMN search_text DROP DEFAULT;
      DROP INDEX programmes_words;
      CREATE INDEX search_texts_words ON search_texts
        USING gin (array_to_tsvector(string_to_array(words, ' ')));
      CREATE INDEX programmes_by_search_text ON programmes (search_text, start_ms);
      -- The search plan estimates a word's matches from the index's statistics: at once, not
      -- when autovacuum comes to the new table.
      ANALYZE search_texts;
    `,
  },
  {
    version: 16,
    name: 'search words with the letters no decomposition folds, folded',
    // The words are folded by the domain's rule, in `fill`.
    sql: `SELECT 1`,
    fill: refoldSearchTexts,
  },
  {
    version: 17,
    name: 'search texts found by a hash of their words',
    // The MD5 of each text looked up was most of a first ingest's work on its texts: the merge
    // hashes each of the file's texts to find it. A 64-bit hash takes a third of the time (the
    // 172,657 texts of a generated guide looked up in 0.50-0.53 s against 0.79-0.83 s, its index
    // built in 0.06 s against 0.20 s: `psql`, bench/INGEST.md). Two texts may share a hash, so
    // the index is not unique: the merge finds a text by its hash and its words and adds it only
    // when none is found, under the lock that puts merges in turn (postgres-merge-dialect.ts),
    // so each text is still stored once.
    sql: `
      DROP INDEX search_texts_by_words;
      CREATE INDEX search_texts_by_words ON search_texts (hashtextextended(words, 0));
    `,
  },
  {
    version: 18,
    name: "the sources' last health warning",
    // As on SQLite (accounts file, version 9).
    sql: `
      ALTER TABLE sources ADD COLUMN warned_flags TEXT, ADD COLUMN warned_at BIGINT;
    `,
  },
  {
    version: 19,
    name: "the channels' display-names",
    // As on SQLite (catalogue file, version 11): every display-name of the guide, for the feeds.
    sql: `
      ALTER TABLE channels ADD COLUMN display_names TEXT NOT NULL DEFAULT '[]';
    `,
  },
];
