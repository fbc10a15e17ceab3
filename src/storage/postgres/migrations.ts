import type { SchemaMigration } from '../schema-migration.js';

/** A step of the PostgreSQL schema. */
export type PostgresMigration = SchemaMigration;

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
    version: 4,
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
];
