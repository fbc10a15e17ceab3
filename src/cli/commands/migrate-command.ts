import { Command } from 'commander';
import { redactConnectionUrl } from '../../config.js';
import type { SchemaStep } from '../../storage/schema-migration.js';
import { printResult, type CliContext } from '../cli-context.js';

/** A SQLite catalogue file's version before and after `migrate` (its own steps, not listed). */
interface CatalogueFileVersion {
  file: string;
  from: number;
  version: number;
}

/** Applies pending migrations to the configured database; returns them and the version now. */
async function migrateDatabase(ctx: CliContext): Promise<{
  database: string;
  version: number;
  applied: SchemaStep[];
  catalogue?: CatalogueFileVersion;
}> {
  const { database } = ctx.config;
  // Only the engine in use is loaded, as in open-store.ts: every command's module is imported
  // at start, and pg alone took 60 ms of a SQLite `bin/onair ingest`'s start.
  if (database.engine === 'postgres') {
    const { createPostgresPool, migratePostgres } =
      await import('../../storage/postgres/database.js');
    const pool = createPostgresPool({ url: database.url });
    try {
      const applied = await migratePostgres(pool, ctx.now());
      const { rows } = await pool.query<{ version: number }>(
        'SELECT max(version) AS version FROM schema_migrations',
      );
      // Shown without the password, in the userinfo or the query (`?password=`).
      const shown = redactConnectionUrl(database.url);
      return { database: shown, version: rows[0]?.version ?? 0, applied };
    } finally {
      await pool.end();
    }
  }
  const { currentSchemaVersion, migrateSqlite, openSqliteDatabase } =
    await import('../../storage/sqlite/database.js');
  const { catalogueVersion, cataloguePathFor } =
    await import('../../storage/sqlite/catalogue-file.js');
  const db = openSqliteDatabase(database.path);
  try {
    const from = catalogueVersion(db);
    const applied = migrateSqlite(db, ctx.now());
    // The catalogue file has versions of its own, upgraded by the same call.
    const catalogue = {
      file: cataloguePathFor(database.path),
      from,
      version: catalogueVersion(db),
    };
    return { database: database.path, version: currentSchemaVersion(db), applied, catalogue };
  } finally {
    db.close();
  }
}

function describeCatalogueFile({ file, from, version }: CatalogueFileVersion): string {
  if (from === version) return `Catalogue file ${file} is up to date (version ${version}).`;
  if (from === 0) return `Catalogue file ${file} made, at version ${version}.`;
  return `Catalogue file ${file} upgraded from version ${from} to ${version}.`;
}

/** `onair migrate`: bring the database schema up to date (every command also does this). */
export function migrateCommand(ctx: CliContext): Command {
  return new Command('migrate')
    .description('create or upgrade the database schema (SQLite or PostgreSQL)')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const { database, version, applied, catalogue } = await migrateDatabase(ctx);
      printResult(
        ctx,
        opts.json === true,
        {
          database,
          version,
          applied: applied.map((m) => ({ version: m.version, name: m.name })),
          ...(catalogue === undefined ? {} : { catalogue }),
        },
        () =>
          (applied.length === 0
            ? `Schema of ${database} is up to date (version ${version}).`
            : `Applied ${applied.map((m) => `${m.version} (${m.name})`).join(', ')} to ${database}; now at version ${version}.`) +
          (catalogue === undefined ? '' : `\n${describeCatalogueFile(catalogue)}`),
      );
    });
}
