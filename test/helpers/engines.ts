import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { POSTGRES_MIGRATIONS } from '../../src/storage/postgres/migrations.js';
import {
  openPostgresStore,
  type PostgresStore,
} from '../../src/storage/postgres/postgres-store.js';
import { openTempStore, type TempStore } from './temp-store.js';

export type EngineName = 'sqlite' | 'postgres';

/** Engines the store tests run on: both by default; ONAIR_TEST_ENGINES=sqlite narrows it. */
export const ENGINES: EngineName[] = (process.env.ONAIR_TEST_ENGINES ?? 'sqlite,postgres')
  .split(',')
  .map((e) => e.trim())
  .filter((e): e is EngineName => e === 'sqlite' || e === 'postgres');

/** The machine's PostgreSQL; each test store lives in a database of its own, dropped after. */
export const TEST_POSTGRES_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A store on PostgreSQL, in a database of its own. */
export interface PostgresEngineStore {
  engine: 'postgres';
  store: PostgresStore;
  /** DATABASE_URL of this store, for a server or CLI run over the same data. */
  databaseUrl: string;
  /**
   * Runs one raw statement (tests that reach under the Store interface); returns the rows as
   * SQLite gives them on either engine: booleans as 0 and 1, JSON as text (BIGINT is already
   * a number: the store's pool parses it so).
   */
  sql(text: string): Promise<Record<string, unknown>[]>;
  dispose(): Promise<void>;
}

/** A fresh store on either engine; `engine` tells which (SQLite's has its file and `db`). */
export type EngineStore = TempStore | PostgresEngineStore;

/**
 * The engine a suite that runs once per vitest project uses: ONAIR_TEST_ENGINE, which the
 * `postgres` project of vitest.config.ts sets; SQLite otherwise.
 */
export const TEST_ENGINE: EngineName =
  process.env.ONAIR_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.href;
}

/** Templates of other schemas kept when a new one is made (see migratedTemplateName). */
const KEPT_TEMPLATES = 3;

/** Held while a template database is looked for or made (any number of vitest workers). */
const TEMPLATE_LOCK = 0x6f6e7474; // "ontt"

/**
 * The name of a database migrated to the current schema, made once per schema (its name holds
 * a hash of the migrations) and copied for each test store: creating and migrating a database
 * per store took 0.41-0.51 s, most of the PostgreSQL project's setup. When a new one is made,
 * the templates of other schemas are dropped but the newest KEPT_TEMPLATES: a checkout of
 * another version running its suite at the same time (a branch beside main) still copies
 * its own (dropping every other one failed such a run's next store).
 */
let migratedTemplate: Promise<string> | null = null;
function migratedTemplateName(): Promise<string> {
  migratedTemplate ??= (async () => {
    const schema = createHash('sha256')
      .update(JSON.stringify(POSTGRES_MIGRATIONS.map((m) => [m.version, m.name, m.sql])))
      .digest('hex')
      .slice(0, 12);
    const name = `onair_test_template_${schema}`;
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    try {
      await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
      const { rows } = await admin.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname LIKE 'onair\\_test\\_template\\_%'
         ORDER BY oid DESC`,
      );
      if (!rows.some((r) => r.datname === name)) {
        for (const { datname } of rows.slice(KEPT_TEMPLATES)) {
          await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
        }
        // Made under another name and renamed once whole, so a cut run leaves no half template.
        const partial = `${name}_partial`;
        await admin.query(`DROP DATABASE IF EXISTS ${partial} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${partial}`);
        const store = await openPostgresStore({
          url: withDatabase(TEST_POSTGRES_URL, partial),
          nowMs: 0,
        });
        await store.close();
        await admin.query(`ALTER DATABASE ${partial} RENAME TO ${name}`);
      }
    } finally {
      await admin.end();
    }
    return name;
  })();
  // A failure is not kept: the next store tries again.
  migratedTemplate.catch(() => (migratedTemplate = null));
  return migratedTemplate;
}

/**
 * A fresh PostgreSQL database, empty or (`migrated`) a copy of the current schema's template;
 * returns its URL and how to drop it.
 */
export async function freshPostgresDatabase(
  options: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `onair_test_${randomBytes(6).toString('hex')}`;
  const template = options.migrated === true ? await migratedTemplateName() : null;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(
      template === null
        ? `CREATE DATABASE ${name}`
        : `CREATE DATABASE ${name} TEMPLATE ${template}`,
    );
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(TEST_POSTGRES_URL, name),
    async drop() {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

const { BOOL, JSON: JSON_TYPE, JSONB } = pg.types.builtins;

/** A PostgreSQL row with its values as SQLite holds them, so one assertion fits both engines. */
function asSqliteRow(row: Record<string, unknown>, fields: pg.FieldDef[]): Record<string, unknown> {
  const out = { ...row };
  for (const { name, dataTypeID } of fields) {
    const value = out[name];
    if (value === null || value === undefined) continue;
    if (dataTypeID === BOOL) out[name] = value === true ? 1 : 0;
    else if (dataTypeID === JSON_TYPE || dataTypeID === JSONB) out[name] = JSON.stringify(value);
  }
  return out;
}

export async function openEngineStore(engine: EngineName, nowMs: number): Promise<EngineStore> {
  if (engine === 'sqlite') return openTempStore(nowMs);
  const database = await freshPostgresDatabase({ migrated: true });
  const store = await openPostgresStore({ url: database.url, nowMs });
  return {
    engine: 'postgres',
    store,
    databaseUrl: database.url,
    async sql(text) {
      const result = await store.pool.query<Record<string, unknown>>(text);
      // Written under the store: wait until its notification is in, as a next request would
      // once it arrives.
      await store.syncVersions();
      return result.rows.map((row) => asSqliteRow(row, result.fields));
    },
    async dispose() {
      await store.close();
      await database.drop();
    },
  };
}

/**
 * A store with an empty catalogue for each test of the file that calls this (at its top
 * level): a new SQLite file each time; on PostgreSQL one database for the file, its catalogue
 * tables emptied after each test. Creating and migrating a database per test made the file
 * three times slower (`npx vitest run --project postgres test/ingest/merge.test.ts`: 23 s
 * that way, 8.7 s this way, on the shared 2-core machine).
 */
export function storeForEachTest(engine: EngineName, nowMs: number): () => EngineStore {
  let current: EngineStore | undefined;
  if (engine === 'sqlite') {
    beforeEach(() => {
      current = openTempStore(nowMs);
    });
    afterEach(async () => {
      await current?.dispose();
      current = undefined;
    });
  } else {
    beforeAll(async () => {
      current = await openEngineStore(engine, nowMs);
    });
    afterEach(async () => {
      // What an ingest writes; CASCADE also empties what refers to it (playground channels).
      await current?.sql('TRUNCATE channels, programmes, source_files, search_texts CASCADE');
    });
    afterAll(async () => {
      await current?.dispose();
    });
  }
  return () => {
    if (current === undefined) throw new Error('storeForEachTest: no store outside a test');
    return current;
  };
}
