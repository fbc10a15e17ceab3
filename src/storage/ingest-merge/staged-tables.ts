import { foldForSearch, nameSortKey } from '../../domain/search-folding.js';
import type { ChannelRecord, ProgrammeRecord } from '../catalogue-writer.js';
import { joinSearchedTexts } from '../search-text-memo.js';

/**
 * The tables an ingest stages the file in before the merge, as data: each engine's DDL
 * (merge-dialect.ts), its staging inserts, and the merge's column lists (merge-steps.ts) all
 * come from here, so a programme column is added in PROGRAMME_COLUMNS and the writer below.
 */

/**
 * What a staged column holds; each engine names its own SQL type for it. `row-number` is a
 * row's number in file order, never looked up while rows are staged (SQLite: the rowid, which
 * costs nothing; PostgreSQL: a plain column, since an index would slow every staged row).
 * `sort-key` is text compared byte by byte (the channels' `name_key`).
 */
export type StagedType = 'row-number' | 'integer' | 'boolean' | 'text' | 'sort-key';

export interface StagedColumn {
  readonly name: string;
  readonly type: StagedType;
  readonly nullable?: true;
  /** The table's primary key. */
  readonly key?: true;
  /**
   * A value the store makes in the thread that writes the rows (made-values.ts):
   * `programme-id` is not written by the session but hashed from the row's values
   * (`programmeIdFor(channel_id, start)`) and sent after them; for `search-text` the session
   * writes the programme's searched texts (searchedTextsOf, joined by joinSearchedTexts) and
   * the store puts their search text (searchTextOf) in their place.
   */
  readonly made?: 'programme-id' | 'search-text';
}

/**
 * How the merge treats a programme column. `slot`: part of a unique index of `programmes`
 * (the conflict target of the upsert), never updated. `content`: what the guide says of the
 * programme; compared between repeats of a slot in the file (exact or conflicting duplicates)
 * and updated when it changes. `form`: follows from the slot and the content (the start as
 * text, the parsed stop, the review flag); updated when it changes, not compared between repeats.
 */
export type ProgrammeColumnRole = 'slot' | 'content' | 'form';

export interface ProgrammeColumn extends StagedColumn {
  readonly role: ProgrammeColumnRole;
}

/**
 * The columns a programme has in the catalogue's `programmes` table and in the staged table,
 * in table order, apart from `source_file_id` and `updated_at`, which the merge sets. A new
 * column is added here (and in writeStagedProgramme); the merge's insert, change detection,
 * update and repeat comparison follow from this list.
 */
export const PROGRAMME_COLUMNS: readonly ProgrammeColumn[] = [
  { name: 'id', type: 'text', role: 'slot', made: 'programme-id' },
  { name: 'channel_id', type: 'text', role: 'slot' },
  { name: 'start', type: 'text', role: 'form' },
  { name: 'stop', type: 'text', role: 'content' },
  { name: 'start_ms', type: 'integer', nullable: true, role: 'slot' },
  { name: 'stop_ms', type: 'integer', nullable: true, role: 'form' },
  { name: 'title', type: 'text', role: 'content' },
  { name: 'description', type: 'text', role: 'content' },
  { name: 'category', type: 'text', role: 'content' },
  // The rich data in its stored form (encodeDetails in domain/programme-details.ts): read only
  // by the routes that need it, so the v1 reads never touch it.
  { name: 'details', type: 'text', role: 'content' },
  // What search finds it by: follows from the content (programmeSearchText), so it is not
  // compared between repeats; indexed by each engine (docs/catalogue.md, "The search index").
  { name: 'search_words', type: 'text', role: 'form', made: 'search-text' },
  { name: 'needs_review', type: 'boolean', role: 'form' },
];

export interface StagedTable {
  readonly columns: readonly StagedColumn[];
  /** A row whose key is staged already is dropped (ON CONFLICT DO NOTHING): the first stays. */
  readonly firstWins?: true;
  /** Read by its key only: SQLite keeps it in key order (WITHOUT ROWID). */
  readonly keyOrdered?: true;
}

/** The names of one session's staged tables. */
export interface StagedTableNames {
  /** Staged programmes, in file order (`seq`). */
  readonly programmes: string;
  readonly channels: string;
  /**
   * Staged rows flagged as possible repeats (every row of an id staged more than once but the
   * first, and a few more), with the rows they repeat when those are known.
   */
  readonly candidates: string;
  /** Each channel of the file with its earliest parseable start (NULL when none parses). */
  readonly spans: string;
  /** Every row of an id staged more than once, compared with the occurrence before it. */
  readonly repeats: string;
  /** Rows replaced by a later one with the same id (all but the last of each id). */
  readonly losers: string;
  /**
   * Search texts the merge may leave unused: those of the stored programmes it removes,
   * changes or prunes (each perhaps more than once).
   */
  readonly texts: string;
  /**
   * The staged rows the merge adds or changes (`added` when their slot holds no programme, else
   * `old_text`: the search text of the programme it changes), found once by comparing each
   * staged row with the stored one: the count of stored ones, the texts the changes may leave
   * unused, the change records and the upsert are all made from it.
   */
  readonly upserts: string;
  /**
   * The file's distinct search texts with the id of each in `search_texts`: what the staged
   * programmes find their text's id in, so that each staged row's words are looked up in this
   * small table rather than hashed for the catalogue's index of texts.
   */
  readonly fileTexts: string;
}

export type StagedTableName = keyof StagedTableNames;

// Staged append-only with no index: a unique index on the random ids made staging three times
// slower. Repeated ids are found with StagedProgrammes instead.
export const STAGED_TABLES: Readonly<Record<StagedTableName, StagedTable>> = {
  programmes: {
    columns: [
      { name: 'seq', type: 'row-number' },
      ...PROGRAMME_COLUMNS,
      { name: 'line', type: 'integer' },
    ],
  },
  channels: {
    columns: [
      { name: 'id', type: 'text', key: true },
      { name: 'xmltv_id', type: 'text' },
      { name: 'name', type: 'text' },
      { name: 'name_key', type: 'sort-key' },
      { name: 'name_folded', type: 'text' },
      { name: 'display_names', type: 'text' },
      { name: 'icon', type: 'text' },
      { name: 'country', type: 'text', nullable: true },
      { name: 'fallback_country', type: 'text' },
      { name: 'declared', type: 'boolean' },
    ],
    // The pipeline stages each channel once; should one come twice, the first is kept.
    firstWins: true,
  },
  candidates: { columns: [{ name: 'seq', type: 'integer', key: true }], firstWins: true },
  spans: {
    columns: [
      { name: 'channel_id', type: 'text', key: true },
      { name: 'min_start', type: 'integer', nullable: true },
      // Its programmes without a stop are left to the merge's openStopSteps.
      { name: 'open_stops', type: 'boolean' },
    ],
    keyOrdered: true,
  },
  repeats: {
    columns: [
      { name: 'seq', type: 'integer' },
      { name: 'id', type: 'text' },
      { name: 'channel_id', type: 'text' },
      { name: 'start', type: 'text' },
      { name: 'line', type: 'integer' },
      { name: 'nth', type: 'integer' },
      { name: 'n', type: 'integer' },
      { name: 'same', type: 'boolean' },
    ],
  },
  losers: { columns: [{ name: 'seq', type: 'integer', key: true }] },
  texts: { columns: [{ name: 'id', type: 'integer' }] },
  upserts: {
    columns: [
      { name: 'seq', type: 'integer', key: true },
      { name: 'added', type: 'boolean' },
      { name: 'old_text', type: 'integer', nullable: true },
    ],
  },
  // No key: PostgreSQL's B-tree keys hold at most about 2.7 KB, and a text may be longer (each
  // dialect makes the table findable by its words: MergeDialect.prepareFileTexts).
  fileTexts: {
    columns: [
      { name: 'words', type: 'text' },
      { name: 'id', type: 'integer', nullable: true },
    ],
  },
};

/** The order in which the tables are created (and may be dropped in reverse). */
export const STAGED_TABLE_ORDER: readonly StagedTableName[] = [
  'programmes',
  'channels',
  'candidates',
  'spans',
  'repeats',
  'losers',
  'texts',
  'upserts',
  'fileTexts',
];

/** How a value travels to the staging thread or connection: booleans go as 1 or 0. */
export type StagedValueKind = 'text' | 'nullable-text' | 'number';

export function valueKind(column: StagedColumn): StagedValueKind {
  if (column.type === 'text' || column.type === 'sort-key') {
    return column.nullable ? 'nullable-text' : 'text';
  }
  return 'number';
}

/**
 * Values of a staged row that the store makes from those the session writes (StagedColumn.made),
 * in the thread that writes the rows (made-values.ts).
 */
export interface MadeValues {
  /**
   * Indexes in the written values of the channel id and the start key the programme id is
   * hashed from; the id is sent after the written values. Null: no id.
   */
  readonly programmeIdOf: readonly [number, number] | null;
  /**
   * Index in the written values of the searched texts (joinSearchedTexts), which their search
   * text (searchTextOf) replaces. Null: none.
   */
  readonly searchTextAt: number | null;
}

/** How rows are added to a staged table: the columns a session writes, then a hashed id. */
export interface StagedInsert {
  /** The columns whose values the session writes, in that order. */
  readonly written: readonly StagedColumn[];
  /** Where the values the store makes come from (StagedColumn.made). */
  readonly made: MadeValues;
  /** Every column the insert names, in order. */
  readonly columnNames: readonly string[];
  /** `ON CONFLICT (key) DO NOTHING` for a table where the first row wins, else empty. */
  readonly tail: string;
}

export function stagedInsert(table: StagedTable): StagedInsert {
  const written = table.columns.filter((c) => c.made !== 'programme-id');
  const idColumn = table.columns.find((c) => c.made === 'programme-id');
  const at = (name: string) => {
    const index = written.findIndex((c) => c.name === name);
    if (index < 0) throw new Error(`a programme id needs the staged column ${name}`);
    return index;
  };
  const searchTextAt = written.findIndex((c) => c.made === 'search-text');
  const key = table.columns.find((c) => c.key);
  return {
    written,
    made: {
      programmeIdOf: idColumn === undefined ? null : [at('channel_id'), at('start')],
      searchTextAt: searchTextAt < 0 ? null : searchTextAt,
    },
    columnNames: [
      ...written.map((c) => c.name),
      ...(idColumn === undefined ? [] : [idColumn.name]),
    ],
    tail: table.firstWins && key !== undefined ? `ON CONFLICT (${key.name}) DO NOTHING` : '',
  };
}

/**
 * Where a session writes a staged row's values, in the order of StagedInsert.written: a
 * RowPacker (SQLite's rows, PostgreSQL's programmes) or the PostgreSQL session's column arrays.
 */
export interface StagedRowSink {
  text(value: string): void;
  nullableText(value: string | null): void;
  number(value: number | null): void;
}

// The writers below are straight calls rather than a loop over per-column accessors: they run
// on the parser's thread for every programme. staged-tables.test.ts checks them against the
// lists above.

/** A staged programme's values (its id and search text are made by the store: StagedColumn.made). */
export function writeStagedProgramme(sink: StagedRowSink, seq: number, p: ProgrammeRecord): void {
  sink.number(seq);
  sink.text(p.channelId);
  sink.text(p.start);
  sink.text(p.stop);
  sink.number(p.startMs);
  sink.number(p.stopMs);
  sink.text(p.title);
  sink.text(p.desc);
  sink.text(p.category);
  sink.text(p.details);
  sink.text(joinSearchedTexts(p.searchedTexts));
  sink.number(p.needsReview ? 1 : 0);
  sink.number(p.line);
}

/** A staged channel's values, with its name's sort and search forms. */
export function writeStagedChannel(sink: StagedRowSink, c: ChannelRecord): void {
  sink.text(c.id);
  sink.text(c.xmltvId);
  sink.text(c.name);
  sink.text(nameSortKey(c.name));
  sink.text(foldForSearch(c.name));
  sink.text(JSON.stringify(c.displayNames));
  sink.text(c.icon);
  sink.nullableText(c.country);
  sink.text(c.fallbackCountry);
  sink.number(c.declared ? 1 : 0);
}

/** A channel's span: its earliest parseable start in the file, NaN when none parses. */
export function writeStagedSpan(
  sink: StagedRowSink,
  channelId: string,
  earliestMs: number,
  openStops: boolean,
): void {
  sink.text(channelId);
  sink.number(Number.isNaN(earliestMs) ? null : earliestMs);
  sink.number(openStops ? 1 : 0);
}
