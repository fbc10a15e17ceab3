import type { SchemaStep } from '../schema-migration.js';
import { moveCatalogueToItsFile } from './catalogue-file.js';
import type { SqliteDatabase } from './connection.js';
import { programmeIndexesSql, programmesTableSql } from './programmes-table.js';

/** A step of the SQLite schema: SQL, or code for what SQL alone cannot decide. */
export type SqliteMigration = SchemaStep & ({ sql: string } | { apply(db: SqliteDatabase): void });

/** The first schema with the catalogue in a file of its own (catalogue-file.ts). */
export const CATALOGUE_FILE_VERSION = 6;

// Tables are STRICT so a value of the wrong type is refused by the database instead of stored.
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'catalogue and accounts',
    sql: `
      CREATE TABLE channels (
        id TEXT PRIMARY KEY,
        xmltv_id TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL,
        name_folded TEXT NOT NULL,
        icon TEXT NOT NULL,
        country TEXT NOT NULL,
        needs_review INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX channels_by_country_name ON channels (country, name_key, id);
      CREATE INDEX channels_by_name ON channels (name_key, id);

      CREATE TABLE source_files (
        id TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        country TEXT,
        size_bytes INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        ingested_at INTEGER NOT NULL,
        summary TEXT NOT NULL
      ) STRICT;

      ${programmesTableSql('programmes', 'id')}
      ${programmeIndexesSql('', 'id')}

      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        email_key TEXT NOT NULL UNIQUE,
        verified_at INTEGER,
        access_until INTEGER,
        rate_limit INTEGER,
        disabled INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        name TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        last_four TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at INTEGER
      ) STRICT;
      CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at);
    `,
  },
  {
    version: 2,
    name: 'sign-in links, sessions, audit trail and usage',
    sql: `
      CREATE TABLE sign_in_links (
        token_hash TEXT PRIMARY KEY,
        purpose TEXT NOT NULL,
        email TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      ) STRICT;
      CREATE INDEX sign_in_links_by_expiry ON sign_in_links (expires_at);

      CREATE TABLE sessions (
        session_hash TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX sessions_by_account ON sessions (account_id);
      CREATE INDEX sessions_by_expiry ON sessions (expires_at);

      CREATE TABLE audit_events (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id),
        at INTEGER NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        details TEXT NOT NULL
      ) STRICT;
      CREATE INDEX audit_events_by_account ON audit_events (account_id, at, id);

      CREATE TABLE usage_hourly (
        account_id TEXT NOT NULL REFERENCES accounts (id),
        hour_start INTEGER NOT NULL,
        requests INTEGER NOT NULL,
        limited INTEGER NOT NULL,
        PRIMARY KEY (account_id, hour_start)
      ) STRICT;
    `,
  },
  {
    version: 3,
    name: 'playground channels',
    // The demo catalogue's preview channels (UUID v5 of onair-news.uk, kelpie-kids.uk,
    // tele-lumiere.fr, rundfunk-sud.de, canal-sol.es) are marked when a database already has
    // them; an empty one gets them when `serve --demo` loads the demo guide.
    sql: `
      CREATE TABLE playground_channels (
        channel_id TEXT PRIMARY KEY REFERENCES channels (id) ON DELETE CASCADE,
        added_at INTEGER NOT NULL
      ) STRICT;
      INSERT INTO playground_channels (channel_id, added_at)
        SELECT id, CAST(strftime('%s', 'now') AS INTEGER) * 1000 FROM channels
        WHERE id IN ('dd41cb78-ddbb-5222-af7d-7173a2d56458', '9a2a919e-4582-5cb5-8dcd-8c763f229632',
                     '5197c011-6bbf-5ccf-82aa-95ba7819ade6', '087e15fc-88d3-5779-b9c6-c922c84331f4',
                     'ef689abc-3e6a-5aab-b45d-0cba62d79133');
    `,
  },
  {
    version: 4,
    name: 'data versions for the read caches',
    // The read path caches keys and serialised bodies and checks these counters (only when the
    // database changed at all, see data-versions.ts). Every write to programmes happens in an
    // ingest, which records its source file in the same transaction, so the source_files and
    // channels triggers see every catalogue change without a per-programme trigger slowing the
    // ingest. Key use and usage counts (last_used_at, usage_hourly) change neither version.
    sql: `
      CREATE TABLE data_versions (
        name TEXT PRIMARY KEY,
        version INTEGER NOT NULL
      ) STRICT;
      -- Random starts: a database made anew never repeats the versions (ETags) of the last one.
      INSERT INTO data_versions (name, version)
        VALUES ('catalogue', abs(random() % 1000000000000)), ('auth', abs(random() % 1000000000000));

      CREATE TRIGGER channels_inserted AFTER INSERT ON channels BEGIN
        UPDATE data_versions SET version = version + 1 WHERE name = 'catalogue'; END;
      CREATE TRIGGER channels_updated AFTER UPDATE ON channels BEGIN
        UPDATE data_versions SET version = version + 1 WHERE name = 'catalogue'; END;
      CREATE TRIGGER channels_deleted AFTER DELETE ON channels BEGIN
        UPDATE data_versions SET version = version + 1 WHERE name = 'catalogue'; END;
      CREATE TRIGGER source_files_inserted AFTER INSERT ON source_files BEGIN
        UPDATE data_versions SET version = version + 1 WHERE name = 'catalogue'; END;
      CREATE TRIGGER source_files_deleted AFTER DELETE ON source_files BEGIN
        UPDATE data_versions SET version = version + 1 WHERE name = 'catalogue'; END;
      -- What the playground serves.
      CREATE TRIGGER playground_channels_inserted AFTER INSERT ON playground_channels BEGIN
        UPDATE data_versions SET version = version + 1 WHERE name = 'catalogue'; END;
      CREATE TRIGGER playground_channels_deleted AFTER DELETE ON playground_channels BEGIN
        UPDATE data_versions SET version = version + 1 WHERE name = 'catalogue'; END;

      CREATE TRIGGER accounts_inserted AFTER INSERT ON accounts BEGIN
        UPDATE data_versions SET version = version + 1 WHERE name = 'auth'; END;
      CREATE TRIGGER accounts_updated AFTER UPDATE ON accounts BEGIN
        UPDATE data_versions SET version = version + 1 WHERE name = 'auth'; END;
      CREATE TRIGGER accounts_deleted AFTER DELETE ON accounts BEGIN
        UPDATE data_versions SET version = version + 1 WHERE name = 'auth'; END;
      CREATE TRIGGER api_keys_inserted AFTER INSERT ON api_keys BEGIN
        UPDATE data_versions SET version = version + 1 WHERE name = 'auth'; END;
      CREATE TRIGGER api_keys_updated AFTER UPDATE OF account_id, key_hash, revoked_at ON api_keys
        BEGIN UPDATE data_versions SET version = version + 1 WHERE name = 'auth'; END;
      CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys BEGIN
        UPDATE data_versions SET version = version + 1 WHERE name = 'auth'; END;
    `,
  },
  {
    version: 5,
    name: 'guide sources and operator fixes of channels',
    sql: `
      -- What the operator fixed by hand; a later ingest keeps these values.
      ALTER TABLE channels ADD COLUMN name_fixed INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE channels ADD COLUMN country_fixed INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE channels ADD COLUMN reviewed_at INTEGER;

      CREATE TABLE sources (
        id TEXT PRIMARY KEY,
        location TEXT NOT NULL UNIQUE,
        country TEXT NOT NULL,
        every_ms INTEGER NOT NULL,
        assume_offset_minutes INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        next_run_at INTEGER NOT NULL,
        failures INTEGER NOT NULL DEFAULT 0,
        last_attempt_at INTEGER,
        last_success_at INTEGER,
        last_ingest_at INTEGER,
        last_status INTEGER,
        last_outcome TEXT,
        last_error TEXT,
        etag TEXT,
        last_modified TEXT,
        content_sha256 TEXT,
        source_file_id TEXT,
        channels INTEGER,
        programmes INTEGER,
        latest_end_ms INTEGER,
        lease_holder TEXT,
        lease_until INTEGER
      ) STRICT;
      CREATE INDEX sources_by_next_run ON sources (next_run_at);
    `,
  },
  {
    version: CATALOGUE_FILE_VERSION,
    name: 'the catalogue in a file of its own',
    apply: moveCatalogueToItsFile,
  },
  {
    version: 7,
    name: 'guide feeds of accounts',
    // In the accounts file: a feed is account data. The lineup is a country, or a JSON array of
    // channel ids in the holder's order (at most 1,000; read whole, never queried inside).
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
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX feeds_by_account ON feeds (account_id, created_at);
    `,
  },
  {
    version: 8,
    name: 'webhooks of accounts and their attempts',
    // In the accounts file: a webhook is account data. Its secret is kept as it is (it signs
    // every request); its filter is a country or a JSON array of at most 100 channel ids.
    // `delivered_seq` is the last change record delivered or passed over, so the next batch
    // reads the change log (in the catalogue file) after it. The retry state and the lease
    // (claimed_by, claimed_until) make one process deliver one batch at a time.
    sql: `
      CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        secret TEXT NOT NULL,
        country TEXT,
        channel_ids TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        delivered_seq INTEGER NOT NULL,
        failures INTEGER NOT NULL DEFAULT 0,
        first_failure_at INTEGER,
        next_attempt_at INTEGER NOT NULL,
        disabled_at INTEGER,
        disabled_reason TEXT,
        claimed_by TEXT,
        claimed_until INTEGER
      ) STRICT;
      CREATE INDEX webhooks_by_account ON webhooks (account_id, created_at);
      CREATE INDEX webhooks_due ON webhooks (next_attempt_at) WHERE disabled_at IS NULL;

      CREATE TABLE webhook_attempts (
        id INTEGER PRIMARY KEY,
        webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        at INTEGER NOT NULL,
        kind TEXT NOT NULL,
        status INTEGER,
        error TEXT,
        duration_ms INTEGER NOT NULL,
        changes INTEGER NOT NULL,
        first_seq INTEGER,
        last_seq INTEGER
      ) STRICT;
      CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts (webhook_id, id);
    `,
  },
  {
    version: 9,
    name: "the sources' last health warning",
    // Recorded by the process that logs it, so that a fleet of servers warns once (Source).
    sql: `
      ALTER TABLE sources ADD COLUMN warned_flags TEXT;
      ALTER TABLE sources ADD COLUMN warned_at INTEGER;
    `,
  },
];
