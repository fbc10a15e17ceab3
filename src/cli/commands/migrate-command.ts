import { Command } from 'commander';
import {
  migrateSqlite,
  openSqliteDatabase,
  currentSchemaVersion,
} from '../../storage/sqlite/database.js';
import { CliError, printResult, type CliContext } from '../cli-context.js';

/** `onair migrate`: bring the database schema up to date (every command also does this). */
export function migrateCommand(ctx: CliContext): Command {
  return new Command('migrate')
    .description('create or upgrade the database schema')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const { database } = ctx.config;
      if (database.engine !== 'sqlite') {
        throw new CliError('DATABASE_URL: PostgreSQL is not supported by this version of Onair');
      }
      const db = openSqliteDatabase(database.path);
      try {
        const applied = migrateSqlite(db, ctx.now());
        const version = currentSchemaVersion(db);
        printResult(
          ctx,
          opts.json === true,
          {
            database: database.path,
            version,
            applied: applied.map((m) => ({ version: m.version, name: m.name })),
          },
          () =>
            applied.length === 0
              ? `Schema of ${database.path} is up to date (version ${version}).`
              : `Applied ${applied.map((m) => `${m.version} (${m.name})`).join(', ')} to ${database.path}; now at version ${version}.`,
        );
      } finally {
        db.close();
      }
    });
}
