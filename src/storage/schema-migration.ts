import { SchemaVersionError } from './errors.js';

/** One step of an engine's schema; applied in order, each in its own transaction. */
export interface SchemaMigration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The migrations a database at `current` still needs, in order. Refuses a database written by
 * a newer Onair, whichever the engine.
 */
export function pendingMigrations<M extends SchemaMigration>(
  current: number,
  migrations: readonly M[],
): M[] {
  const latest = Math.max(...migrations.map((m) => m.version));
  if (current > latest) {
    throw new SchemaVersionError(
      `the database schema is version ${current}, newer than this Onair knows (${latest}); upgrade Onair`,
    );
  }
  return migrations.filter((m) => m.version > current);
}
