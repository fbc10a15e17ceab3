import { SchemaVersionError } from './errors.js';

/** A numbered step of an engine's schema, applied in order. */
export interface SchemaStep {
  version: number;
  name: string;
}

/** A step written as SQL. */
export interface SchemaMigration extends SchemaStep {
  sql: string;
}

/**
 * The migrations a database at `current` still needs, in order. Refuses a database written by
 * a newer Onair, whichever the engine.
 */
export function pendingMigrations<M extends SchemaStep>(
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
