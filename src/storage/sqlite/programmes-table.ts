// The programmes table's DDL, written once for the three places that create it: migration 1
// (in the accounts file, keyed by id), a new catalogue file and the catalogue file's upgrade
// from version 1 to 2 (keyed by slot; catalogue-file.ts). These are the shapes the schema
// versions made, so databases migrated at different times hold the same table: a later change
// is a new version with its own step, not an edit here.

/** How the table is keyed: by its id (migrations 1–5, catalogue file version 1) or by slot. */
export type ProgrammesKey = 'id' | 'slot';

/** The columns after the id, in table order, with their types and constraints. */
const COLUMNS: readonly (readonly [name: string, definition: string])[] = [
  ['channel_id', 'TEXT NOT NULL REFERENCES channels (id)'],
  ['start', 'TEXT NOT NULL'],
  ['stop', 'TEXT NOT NULL'],
  ['start_ms', 'INTEGER'],
  ['stop_ms', 'INTEGER'],
  ['title', 'TEXT NOT NULL'],
  ['description', 'TEXT NOT NULL'],
  ['category', 'TEXT NOT NULL'],
  ['needs_review', 'INTEGER NOT NULL'],
  ['source_file_id', 'TEXT NOT NULL REFERENCES source_files (id)'],
  ['updated_at', 'INTEGER NOT NULL'],
];

/** Every column, in table order, for copying rows between tables of either shape. */
export const PROGRAMME_COLUMNS = ['id', ...COLUMNS.map(([name]) => name)].join(', ');

/**
 * The table, named `name` (qualified with its schema when not `main`). Keyed by slot, it has
 * no index on its id alone: nothing reads a programme by id, and that third B-tree of random
 * keys cost a third of an ingest's merge (bench/INGEST.md).
 */
export function programmesTableSql(name: string, key: ProgrammesKey): string {
  const id = key === 'id' ? 'TEXT PRIMARY KEY' : 'TEXT NOT NULL';
  const columns = [['id', id] as const, ...COLUMNS].map(
    ([column, type]) => `    ${column} ${type}`,
  );
  return `CREATE TABLE ${name} (\n${columns.join(',\n')}\n  ) STRICT;`;
}

/**
 * The table's indexes, their names qualified with `schema` (`catalogue.`, or `''` for main).
 * Keyed by slot: an id is a hash of (channel, start), so the (channel, start) index, unique,
 * keeps one programme per slot; a start that did not parse (NULL `start_ms`, never equal in an
 * index) has its own small index.
 */
export function programmeIndexesSql(schema: string, key: ProgrammesKey): string {
  if (key === 'id') {
    return `
  CREATE INDEX ${schema}programmes_by_channel_start ON programmes (channel_id, start_ms, id);`;
  }
  return `
  CREATE UNIQUE INDEX ${schema}programmes_by_channel_start
    ON programmes (channel_id, start_ms, id);
  CREATE UNIQUE INDEX ${schema}programmes_unparsed
    ON programmes (channel_id, id) WHERE start_ms IS NULL;`;
}
