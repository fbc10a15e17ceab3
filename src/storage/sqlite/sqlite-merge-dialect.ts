import type { MergeDialect } from '../ingest-merge/merge-dialect.js';
import { LATE_INDEX_NAMES, type LateIndexes } from '../ingest-merge/merge-steps.js';
import {
  stagedInsert,
  valueKind,
  type StagedTable,
  type StagedType,
} from '../ingest-merge/staged-tables.js';
import type { RowInsert } from './staging-runner.js';

const TYPES: Readonly<Record<StagedType, string>> = {
  // The rowid: a row's number costs nothing more.
  'row-number': 'INTEGER PRIMARY KEY',
  integer: 'INTEGER',
  boolean: 'INTEGER',
  text: 'TEXT',
  'sort-key': 'TEXT',
};

let sessionCount = 0;

/**
 * The merge's SQL on SQLite. Staged tables are TEMP tables of the staging connection, and the
 * statements run in one script in the staging thread (ingest-session.ts).
 */
export const SQLITE_MERGE: MergeDialect = {
  // Unique per session: the `:memory:` fallback stages on the store's own connection, which
  // several sessions may share.
  stagedTableNames() {
    const p = `onair_stage_${++sessionCount}`;
    return {
      programmes: `${p}_programmes`,
      channels: `${p}_channels`,
      candidates: `${p}_candidates`,
      spans: `${p}_spans`,
      repeats: `${p}_repeats`,
      losers: `${p}_losers`,
      texts: `${p}_texts`,
      upserts: `${p}_upserts`,
      fileTexts: `${p}_file_texts`,
    };
  },
  createStagedTable(name: string, table: StagedTable) {
    const columns = table.columns.map((c) => {
      const type = TYPES[c.type];
      if (c.type === 'row-number') return `${c.name} ${type}`;
      return `${c.name} ${type}${c.nullable ? '' : ' NOT NULL'}${c.key ? ' PRIMARY KEY' : ''}`;
    });
    return `CREATE TEMP TABLE ${name} (${columns.join(', ')})${table.keyOrdered ? ' WITHOUT ROWID' : ''};`;
  },
  placeholder: () => '?',
  isDistinct: (a, b) => `${a} IS NOT ${b}`,
  isNotDistinct: (a, b) => `${a} IS ${b}`,
  // Without statistics SQLite chose to scan every stored programme to probe the file's
  // channels: 0.28-0.37 s against 11 ms with 2 million stored (`node bench/ingest.mjs --cases
  // large`, bench/INGEST.md).
  outerLoopJoin: 'CROSS JOIN',
  notIn: (value, table, column) => `${value} NOT IN (SELECT ${column} FROM ${table})`,
  // `p.start_ms IS f.start_ms` probes the (channel, start) index, NULL or not.
  indexesNullSafeEquality: true,
  severalConflictTargets: true,
  conflictTarget: (columns) => `(${columns.join(', ')})`,
  // One index range per channel in each: the planner does not join on an OR of two.
  removePerIndex: true,
  deleteJoined: (spans, on, where) => `DELETE FROM programmes WHERE rowid IN (
      SELECT p.rowid ${SQLITE_MERGE.joinedRows(spans, on, where)})`,
  joinedRows: (spans, on, where) =>
    `FROM ${spans} AS s CROSS JOIN programmes AS p ON ${on} WHERE ${where}`,
  analyseStaged: () => null,
  prepareFileTexts: (fileTexts) =>
    `CREATE INDEX temp.${fileTexts}_by_words ON ${fileTexts} (words)`,
  sameSearchText: (stored, words) => `${stored} = ${words}`,
  // Searches read the words from search_texts (programme-search.ts): 94 bytes a programme of
  // the bench guide, a fifth of its row, were written and never read.
  storesSearchWords: false,
  // File order (by channel): by start, the insert into 2 million stored programmes took
  // 3.75-4.28 s against 3.29-3.46 (bench/INGEST.md).
  insertOrder: null,
  // Only when the file drops programmes: each stored one is checked against the staged ids.
  indexStagedIds: (programmes) =>
    `CREATE INDEX IF NOT EXISTS temp.${programmes}_by_id ON ${programmes} (id)`,
  // Channel by channel on the (channel, start) index: with no index on the start alone, a plain
  // `WHERE start_ms < ?` scanned every stored programme under the write lock: 0.21-0.25 s per 2
  // million even with nothing to prune, against 11-26 ms this way (per-statement timing of
  // `node bench/ingest.mjs --cases large`, bench/INGEST.md).
  prune: (before) =>
    `DELETE FROM programmes WHERE rowid IN (SELECT p.rowid ${SQLITE_MERGE.prunedRows(before)})`,
  prunedRows: (before) =>
    `FROM channels AS c CROSS JOIN programmes AS p ON p.channel_id = c.id AND p.start_ms < ${before}`,
  changesInCommitOrder: null,
};

/** The staging runner's multi-row insert into the staged table `name`. */
export function rowInsertFor(name: string, table: StagedTable): RowInsert {
  const insert = stagedInsert(table);
  return {
    head: `INSERT INTO ${name} (${insert.columnNames.join(', ')})`,
    columns: insert.written.map(valueKind),
    tail: insert.tail,
    // Made by the staging thread, beside the parser rather than on it.
    made: insert.made,
  };
}

/**
 * The page cache (KiB) while the late indexes are built. SQLite's sorter holds as much of an
 * index's keys in memory as the main schema's page cache may hold pages: with the staging
 * connection's 32 MiB, building them peaked 35 MB above the insert before them (the 1 GB guide,
 * RSS sampled during `node bench/ingest.mjs --child worker`).
 */
const BUILD_CACHE_KIB = 8_192;

/**
 * Reads the late indexes' definitions of the catalogue in `schema` (rows: name, sql,
 * cache_size: the connection's main page cache, restored after the build).
 */
export function lateIndexesQuery(schema: string): string {
  return `SELECT name, sql, (SELECT cache_size FROM pragma_cache_size()) AS cache_size
    FROM ${schema}.sqlite_master
    WHERE type = 'index' AND tbl_name = 'programmes'
      AND name IN (${LATE_INDEX_NAMES.map((n) => `'${n}'`).join(', ')})
    ORDER BY name`;
}

/**
 * The late indexes of the catalogue in `schema`, from the rows of lateIndexesQuery: built again
 * from the schema's own definitions (which SQLite keeps without their schema's name), or null
 * when the catalogue lacks one of them.
 */
export function sqliteLateIndexes(
  schema: string,
  rows: readonly Readonly<Record<string, unknown>>[],
): LateIndexes | null {
  const definitions = rows.flatMap(({ name, sql }) => {
    const qualified =
      typeof sql === 'string'
        ? sql.replace(/^CREATE INDEX (\w+)(?=\s)/, `CREATE INDEX ${schema}.$1`)
        : '';
    return typeof name === 'string' && qualified !== sql ? [{ name, sql: qualified }] : [];
  });
  const cacheSize = Number(rows[0]?.['cache_size']);
  if (definitions.length !== LATE_INDEX_NAMES.length || !Number.isInteger(cacheSize)) return null;
  return {
    drop: definitions.map((i) => `DROP INDEX ${schema}.${i.name};`).join('\n'),
    build: [
      `PRAGMA main.cache_size = -${BUILD_CACHE_KIB};`,
      ...definitions.map((i) => `${i.sql};`),
      `PRAGMA main.cache_size = ${cacheSize};`,
    ].join('\n'),
    // The rowid of a new row is one more than the largest: never below the rows' count.
    storedBound: `(SELECT coalesce(max(rowid), 0) FROM ${schema}.programmes)`,
  };
}
