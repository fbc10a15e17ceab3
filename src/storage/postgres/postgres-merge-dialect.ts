import type { MergeDialect } from '../ingest-merge/merge-dialect.js';
import {
  LATE_INDEX_NAMES,
  LATE_TEXT_INDEX_NAMES,
  type IndexRebuild,
  type LateIndexes,
  type LateTextIndexes,
} from '../ingest-merge/merge-steps.js';
import { stagedInsert, type StagedTable, type StagedType } from '../ingest-merge/staged-tables.js';

const TYPES: Readonly<Record<StagedType, string>> = {
  // No index: nothing looks a staged row up by its number, and an index would slow staging.
  'row-number': 'BIGINT',
  integer: 'BIGINT',
  boolean: 'BOOLEAN',
  text: 'TEXT',
  // As the catalogue's channels.name_key.
  'sort-key': 'TEXT COLLATE "C"',
};

const ARRAY_TYPES: Readonly<Record<StagedType, string>> = {
  'row-number': 'bigint[]',
  integer: 'bigint[]',
  boolean: 'boolean[]',
  text: 'text[]',
  'sort-key': 'text[]',
};

/** The lock merges take turns by (any number of our own; migrations use another). */
const CHANGES_LOCK = 0x6f6e6163; // "onac"

/**
 * The hash `search_texts` is indexed by (migration 17), of the text `words`: 64 bits, computed
 * in a third of the time of the MD5 it replaced, which was most of a first ingest's lookups of
 * its texts (bench/INGEST.md). Written as the index defines it, so that the planner uses it.
 */
const SEARCH_TEXT_HASH = (words: string) => `hashtextextended(${words}, 0)`;

/**
 * The merge's SQL on PostgreSQL. Staged tables are TEMP tables of the ingest's own connection,
 * dropped at the end of its one transaction; the statements run one by one on that connection
 * (ingest-session.ts).
 */
export const POSTGRES_MERGE: MergeDialect = {
  stagedTableNames: () => ({
    programmes: 'stage_programmes',
    channels: 'stage_channels',
    candidates: 'stage_candidates',
    spans: 'stage_spans',
    repeats: 'stage_repeats',
    losers: 'stage_losers',
    texts: 'stage_texts',
    upserts: 'stage_upserts',
    fileTexts: 'stage_file_texts',
  }),
  createStagedTable(name: string, table: StagedTable) {
    const columns = table.columns.map(
      (c) =>
        `${c.name} ${TYPES[c.type]}${c.nullable ? '' : ' NOT NULL'}${c.key ? ' PRIMARY KEY' : ''}`,
    );
    return `CREATE TEMP TABLE ${name} (${columns.join(', ')}) ON COMMIT DROP;`;
  },
  placeholder: (n) => `$${n}`,
  isDistinct: (a, b) => `${a} IS DISTINCT FROM ${b}`,
  isNotDistinct: (a, b) => `${a} IS NOT DISTINCT FROM ${b}`,
  // The planner has statistics (analyseStaged) and picks the outer loop itself.
  outerLoopJoin: 'JOIN',
  // NOT IN cannot become an anti-join (NULL semantics) and is quadratic beyond work_mem.
  notIn: (value, table, column) =>
    `NOT EXISTS (SELECT 1 FROM ${table} AS l WHERE l.${column} = ${value})`,
  // IS NOT DISTINCT FROM is never an index condition.
  indexesNullSafeEquality: false,
  // One conflict target per INSERT.
  severalConflictTargets: false,
  // The unique indexes compare ids byte by byte (migration 6).
  conflictTarget: (columns) =>
    `(${columns.map((c) => (c === 'id' ? 'id COLLATE "C"' : c)).join(', ')})`,
  // One statement, so the anti-join reads the staged rows once.
  removePerIndex: false,
  deleteJoined: (spans, on, where) =>
    `DELETE FROM programmes AS p USING ${spans} AS s WHERE ${on} AND ${where}`,
  joinedRows: (spans, on, where) =>
    `FROM ${spans} AS s JOIN programmes AS p ON ${on} WHERE ${where}`,
  // Only when the file replaces stored programmes, where the planner needs it for the
  // anti-join that finds the programmes to remove (0.5 s per 98,000 staged rows: bench/INGEST.md,
  // `node bench/ingest.mjs --cases postgres-again`).
  analyseStaged: (programmes) => `ANALYZE ${programmes}`,
  indexStagedIds: () => null,
  // A hash join on the words then: the 92 MB guide's 294,294 rows found their texts in
  // 0.35 s, against 1.78 s joining search_texts on the MD5 of every row's words (`EXPLAIN
  // ANALYZE` of both joins when texts were found by MD5; bench/INGEST.md).
  prepareFileTexts: (fileTexts) => `ANALYZE ${fileTexts}`,
  // The index by the words' hash (migration 17): two texts may share a hash, so the words too.
  sameSearchText: (stored, words) =>
    `${SEARCH_TEXT_HASH(stored)} = ${SEARCH_TEXT_HASH(words)} AND ${stored} = ${words}`,
  // A walk in result order tests them on the row it reads anyway (catalogue-reader.ts).
  storesSearchWords: true,
  // By start: the index in search order, the largest kept up row by row, then takes the new
  // entries in its own order, page after page, rather than at random across the window (with
  // the pages it reads beyond shared_buffers): into 2 million stored programmes the 92 MB
  // guide's insert 7.0-9.2 -> 6.1-7.1 s. Not for a first ingest, whose indexes are built
  // after its rows: there the sort only cost (1.0 -> 1.5-1.9 s; bench/INGEST.md).
  insertOrder: 'f.start_ms',
  prune: (before) => `DELETE FROM programmes WHERE start_ms < ${before}`,
  prunedRows: (before) => `FROM programmes AS p WHERE p.start_ms < ${before}`,
  // An identity column numbers rows as they are written, not as their transactions commit: two
  // merges at once could commit numbers 101–150 before 1–100, and a client that read up to 150
  // would never see the others. Merges take turns from their first step to COMMIT.
  changesInCommitOrder: `SELECT pg_advisory_xact_lock(${CHANGES_LOCK})`,
};

/**
 * The staging insert into the staged table `name`: one parameter per column, an array of the
 * batch's values (`unnest`), in the order of stagedInsert's column names.
 */
export function unnestInsertFor(name: string, table: StagedTable): string {
  const insert = stagedInsert(table);
  const types = [
    ...insert.written.map((c) => ARRAY_TYPES[c.type]),
    ...(insert.made.programmeIdOf === null ? [] : [ARRAY_TYPES.text]),
  ];
  return `INSERT INTO ${name} (${insert.columnNames.join(', ')})
    SELECT * FROM unnest(${types.map((type, i) => `$${i + 1}::${type}`).join(', ')}) ${insert.tail}`;
}

/**
 * The indexes of `programmes` a first ingest builds after its rows on PostgreSQL: those out of
 * file order (LATE_INDEX_NAMES) and the (channel, start) slot index too. SQLite keeps its slot
 * indexes, which follow the file's order, as its late path may also be taken beside other
 * channels' stored programmes; PostgreSQL takes it only into a catalogue holding none
 * (postgresLateIndexes), where the insert is a plain one that needs no slot index (a repeated
 * slot, which the collapse rules out, would fail when the unique index is built, rolling the
 * ingest back as the insert would). Kept up row by row, the three slot indexes cost more than
 * built after (until 2026-12-02): the 92 MB guide's insert 2.04 s with them,
 * 1.05 s without, and the indexes' build 1.15 s → 1.53 s (`STATEMENT_TIMES_MIN_MS=100 node
 * --import ./bench/statement-times.mjs bench/ingest.mjs --child postgres GUIDE`, bench/INGEST.md).
 * The two partial slot indexes (starts that did not parse, long programmes) stay: they hold a
 * few rows, so kept up they cost the insert a test of their condition per row, while each
 * build reads the whole table again (77–92 ms each for the same guide, in `psql`).
 */
export const POSTGRES_LATE_INDEX_NAMES: readonly string[] = [
  ...LATE_INDEX_NAMES,
  'programmes_by_channel_start',
];

/**
 * Reads the definitions of the late indexes of `programmes` and `search_texts` in the
 * connection's schema, in one round trip: rows of index (its name), name (schema-qualified,
 * quoted) and definition, as PostgreSQL prints it (storage parameters included), with the
 * tablespace an operator may have put an index in, which the printed definition leaves out.
 */
export const LATE_INDEXES_QUERY = `SELECT indexname AS index,
    format('%I.%I', schemaname, indexname) AS name,
    indexdef || coalesce(' TABLESPACE ' || quote_ident(tablespace), '') AS definition
  FROM pg_indexes
  WHERE schemaname = current_schema() AND tablename IN ('programmes', 'search_texts')
    AND indexname = ANY(ARRAY[${[...POSTGRES_LATE_INDEX_NAMES, ...LATE_TEXT_INDEX_NAMES]
      .map((n) => `'${n}'`)
      .join(', ')}])
  ORDER BY indexname`;

/**
 * Drops and builds again the indexes `names` from the rows of LATE_INDEXES_QUERY, or null when
 * one of them lacks.
 */
function dropAndBuild(
  rows: readonly Readonly<Record<string, unknown>>[],
  names: readonly string[],
): IndexRebuild | null {
  const indexes = rows.flatMap(({ index, name, definition }) =>
    typeof index === 'string' &&
    names.includes(index) &&
    typeof name === 'string' &&
    typeof definition === 'string'
      ? [{ name, definition }]
      : [],
  );
  if (indexes.length !== names.length) return null;
  return {
    drop: `DROP INDEX ${indexes.map((i) => i.name).join(', ')}`,
    build: indexes.map((i) => `${i.definition};`).join('\n'),
  };
}

/**
 * The late indexes from the rows of LATE_INDEXES_QUERY (built again from PostgreSQL's own
 * definitions), or null when `programmes` lacks one of them. Taken only into a catalogue
 * holding no programme: DROP INDEX holds the table's ACCESS EXCLUSIVE lock until the commit, so
 * readers of programmes wait for the merge (about 2 s for the 92 MB guide) where they would
 * otherwise read the old rows; with none stored, they wait for the first ones instead of reading
 * nothing. Merges and channel fixes take turns by an advisory lock before they touch a table
 * (changesInCommitOrder), so none waits here holding a lock the merge needs. The 92 MB guide's
 * 294,294 programmes: the insert with every index 3.2–3.4 s, without the three out of file order
 * 1.3–1.4 s and 0.7–0.8 s to build them (`psql`, bench/INGEST.md); for the slot indexes see
 * POSTGRES_LATE_INDEX_NAMES.
 */
export function postgresLateIndexes(
  rows: readonly Readonly<Record<string, unknown>>[],
): LateIndexes | null {
  const late = dropAndBuild(rows, POSTGRES_LATE_INDEX_NAMES);
  if (late === null) return null;
  return {
    ...late,
    // 0 with no programme stored, else more than any file brings.
    storedBound: `(CASE WHEN EXISTS (SELECT 1 FROM programmes) THEN ${Number.MAX_SAFE_INTEGER} ELSE 0 END)`,
  };
}

/**
 * The late indexes of `search_texts` from the rows of LATE_INDEXES_QUERY, or null. Taken
 * when no text is stored (so no programme either), for the reasons of postgresLateIndexes: the
 * file's texts go in without their hash and word indexes, which are built after them. 173,115
 * distinct texts (a generated guide whose descriptions never repeat): the insert 2.1–2.2 s with
 * both, 0.29–0.35 s without and 0.9–0.95 s to build them (`psql`, bench/INGEST.md).
 */
export function postgresLateTextIndexes(
  rows: readonly Readonly<Record<string, unknown>>[],
): LateTextIndexes | null {
  return dropAndBuild(rows, LATE_TEXT_INDEX_NAMES);
}
