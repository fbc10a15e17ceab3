import type {
  CommitOptions,
  MergeStats,
  SourceFileRecord,
  StagingStats,
} from '../catalogue-writer.js';
import { DAY_MS } from '../../domain/schedule-window.js';
import { toDuplicateSample } from '../rows.js';
import type { MergeDialect } from './merge-dialect.js';
import {
  PROGRAMME_COLUMNS,
  STAGED_TABLE_ORDER,
  STAGED_TABLES,
  type StagedTableNames,
} from './staged-tables.js';

/**
 * The ingest's merge, written once for both engines: the collapse of repeated slots, the
 * analysis of the staged rows, and the merge itself, as labelled steps over the staged tables
 * (staged-tables.ts) with the engine's pieces (merge-dialect.ts). Each engine runs the steps
 * in order: SQLite as one script on its staging connection, PostgreSQL one by one on its
 * client, both in the ingest's transaction and skipping a step whose `onlyIf` does not hold.
 * The rules are in docs/catalogue.md ("The merge rules").
 */

export type MergeValue = string | number | null;

export interface MergeStep {
  /** What the step does; a step done in one statement per index has a statement per index. */
  readonly label: string;
  /** `run` reports changes, `get` the first row, `all` every row; `exec` may hold several. */
  readonly kind: 'run' | 'get' | 'all' | 'exec';
  readonly sql: string;
  readonly params?: readonly MergeValue[];
  /** Run only when `column` of the row of the earlier `get` step `label` is true. */
  readonly onlyIf?: { readonly label: string; readonly column: string };
}

export type MergeRow = Readonly<Record<string, unknown>>;

export type MergeStepResult =
  | { readonly kind: 'run'; readonly changes: number }
  | { readonly kind: 'get'; readonly row: MergeRow | undefined }
  | { readonly kind: 'all'; readonly rows: readonly MergeRow[] }
  | { readonly kind: 'exec' }
  | { readonly kind: 'skipped' };

/** The index in `steps` of the `get` step `label`, which an `onlyIf` refers to. */
export function conditionStep(steps: readonly MergeStep[], label: string): number {
  const at = steps.findIndex((s) => s.label === label && s.kind === 'get');
  if (at < 0) throw new Error(`no get step labelled ${label}`);
  return at;
}

/** Whether `step` runs, given the results of the steps before it. */
export function onlyIfHolds(
  step: MergeStep,
  steps: readonly MergeStep[],
  results: readonly MergeStepResult[],
): boolean {
  if (step.onlyIf === undefined) return true;
  const earlier = results[conditionStep(steps, step.onlyIf.label)];
  const row = earlier?.kind === 'get' ? earlier.row : undefined;
  return row !== undefined && Boolean(row[step.onlyIf.column]);
}

/** The DDL of one session's staged tables. */
export function createStagedTablesSql(d: MergeDialect, t: StagedTableNames): string {
  return STAGED_TABLE_ORDER.map((name) => d.createStagedTable(t[name], STAGED_TABLES[name])).join(
    '\n',
  );
}

/** A statement's SQL and parameters in one pass: `p(value)` is the next parameter. */
function bound(
  d: MergeDialect,
  build: (p: (value: MergeValue) => string) => string,
): { sql: string; params: MergeValue[] } {
  const params: MergeValue[] = [];
  const sql = build((value) => {
    params.push(value);
    return d.placeholder(params.length);
  });
  return { sql, params };
}

/**
 * The unique indexes of `programmes`: one on (channel, start, id) for parsed starts, one on
 * (channel, id) for starts that did not parse (NULL `start_ms`, never equal in an index).
 * `staged` picks a staged row (`f`) of the index; `stored` finds its stored slot (`p`);
 * `replaced` picks the stored programmes of a file's channel (span `s`) that the file replaces.
 */
const SLOT_INDEXES = [
  {
    staged: 'f.start_ms IS NOT NULL',
    stored: 'p.start_ms = f.start_ms',
    replaced: 'p.start_ms >= s.min_start',
    target: ['channel_id', 'start_ms', 'id'],
    partial: '',
  },
  {
    staged: 'f.start_ms IS NULL',
    stored: 'p.start_ms IS NULL',
    replaced: 'p.start_ms IS NULL',
    target: ['channel_id', 'id'],
    partial: 'WHERE start_ms IS NULL',
  },
] as const;

/**
 * The programme columns the merge writes on `d`'s engine, in table order: all of
 * PROGRAMME_COLUMNS but the search words where the engine does not keep them
 * (storesSearchWords). `updatable`: those an upsert may change and compares, all but the slot,
 * which its conflict target fixes.
 */
function storedColumns(d: MergeDialect): { names: string[]; updatable: string[] } {
  const stored = PROGRAMME_COLUMNS.filter((c) => d.storesSearchWords || c.made !== 'search-text');
  return {
    names: stored.map((c) => c.name),
    updatable: stored.filter((c) => c.role !== 'slot').map((c) => c.name),
  };
}
const content = PROGRAMME_COLUMNS.filter((c) => c.role === 'content').map((c) => c.name);
/**
 * A programme is written with its channel's sort key and country (the copies search orders and
 * filters by: docs/catalogue.md, "The search index"), read from `channels` as the steps before
 * left them; when a channel changes later, a trigger of each engine updates its programmes'.
 * And with its search text's id (`search_text`), which follows from its `search_words`.
 */
const programmeInsert = (names: readonly string[]) =>
  `INSERT INTO programmes (${names.join(', ')}, source_file_id, updated_at,
    channel_name_key, channel_country, search_text)`;

/** The staged programmes (alias `f`) that survive the collapse. */
function winners(d: MergeDialect, t: StagedTableNames, collapsed: boolean): string {
  return collapsed ? d.notIn('f.seq', t.losers, 'seq') : 'true';
}

/**
 * Temp-only work once the file is read, when the filter flagged ids (StagedProgrammes): the
 * rows of those ids, then the collapse of same (channel, start) (same id) keeping the last in
 * file order. When every flagged row repeated its channel's previous programme (`adjacent`),
 * the candidates hold all the rows of those ids; otherwise one scan of the staged rows finds
 * them (still no sort of every staged id). Touches no catalogue table, so it takes no lock.
 * The `losers` step counts the rows replaced.
 */
export function collapseSteps(
  d: MergeDialect,
  t: StagedTableNames,
  adjacent: boolean,
): MergeStep[] {
  const rows = adjacent
    ? `seq IN (SELECT seq FROM ${t.candidates})`
    : `id IN (SELECT s.id FROM ${t.candidates} AS c JOIN ${t.programmes} AS s ON s.seq = c.seq)`;
  const same = content.map((c) => d.isNotDistinct(c, `lag(${c}) OVER w`)).join(' AND ');
  const repeats = STAGED_TABLES.repeats.columns.map((c) => c.name).join(', ');
  return [
    {
      label: 'collapse',
      kind: 'exec',
      sql: `
        INSERT INTO ${t.repeats} (${repeats})
          SELECT seq, id, channel_id, start, line,
            row_number() OVER w, count(*) OVER (PARTITION BY id), ${same}
          FROM ${t.programmes} WHERE ${rows}
          WINDOW w AS (PARTITION BY id ORDER BY seq);
        DELETE FROM ${t.repeats} WHERE n = 1;
        INSERT INTO ${t.losers} (seq) SELECT seq FROM ${t.repeats} WHERE nth < n;`,
    },
    { label: 'losers', kind: 'get', sql: `SELECT count(*) AS losers FROM ${t.losers}` },
  ];
}

/**
 * Temp-only work once the file is read and its repeats collapsed (collapseSteps): the file's
 * distinct search texts, which the merge then finds or adds in `search_texts`. Touches no
 * catalogue table, so it runs before the merge takes the catalogue's write lock (0.15-0.25 s of
 * the 92 MB guide's merge on either engine: `bin/onair ingest` of it, bench/INGEST.md).
 */
export function fileTextSteps(
  d: MergeDialect,
  t: StagedTableNames,
  collapsed: boolean,
): MergeStep[] {
  return [
    {
      label: 'fileTexts',
      kind: 'run',
      sql: `INSERT INTO ${t.fileTexts} (words)
        SELECT DISTINCT f.search_words FROM ${t.programmes} AS f
        WHERE ${winners(d, t, collapsed)}`,
    },
  ];
}

/**
 * Temp-only work once the file is read and its repeats collapsed, when some programmes have a
 * start and no stop at all (XMLTV's stop is optional): each ends where the next programme of
 * its channel in the file starts, as XMLTV's tools read such a guide, so the guide grid and
 * now/next place it (their reads need a stop). Its `stop` text stays `""`, as the guide wrote
 * it; a channel's last such programme keeps no stop. Only the channels whose stops
 * StagedProgrammes could not all set as the rows were staged are sorted (`open_stops` of their
 * span: a channel not in start order, a repeated programme without a stop), and only when there
 * is one (needsOpenStopStep).
 */
export function openStopSteps(
  d: MergeDialect,
  t: StagedTableNames,
  collapsed: boolean,
): MergeStep[] {
  const survivors = winners(d, t, collapsed);
  return [
    {
      label: 'openStops',
      kind: 'run',
      sql: `UPDATE ${t.programmes} AS o SET stop_ms = n.next_start
        FROM (SELECT f.seq, lead(f.start_ms) OVER (
                PARTITION BY f.channel_id ORDER BY f.start_ms, f.seq) AS next_start
              FROM ${t.programmes} AS f
              WHERE f.start_ms IS NOT NULL AND ${survivors} AND f.channel_id IN (
                SELECT channel_id FROM ${t.spans} WHERE open_stops)
             ) AS n
        WHERE o.seq = n.seq AND o.stop = '' AND o.start_ms IS NOT NULL
          AND n.next_start > o.start_ms`,
    },
  ];
}

/** The number in `column` of the row of the first `get` step `label` (0 when it did not run). */
function numberOf(
  steps: readonly MergeStep[],
  results: readonly MergeStepResult[],
  label: string,
  column: string,
): number {
  const result = results[steps.findIndex((s) => s.label === label && s.kind === 'get')];
  return result?.kind === 'get' ? Number(result.row?.[column] ?? 0) : 0;
}

/** Rows replaced by a later one with the same id, from the results of collapseSteps. */
export function collapsedLosers(
  steps: readonly MergeStep[],
  results: readonly MergeStepResult[],
): number {
  return numberOf(steps, results, 'losers', 'losers');
}

export interface AnalyseStepOptions {
  /** True when the staged rows were collapsed (collapseSteps ran). */
  collapsed: boolean;
  maxSamples: number;
  countOverlaps: boolean;
}

/**
 * The counts of duplicates (when rows were collapsed), their first samples by line, and (when
 * asked: for files not in start order) the overlaps of consecutive programmes of a channel in
 * start order. No steps when there is nothing to count.
 */
export function analyseSteps(
  d: MergeDialect,
  t: StagedTableNames,
  { collapsed, maxSamples, countOverlaps }: AnalyseStepOptions,
): MergeStep[] {
  const steps: MergeStep[] = [];
  if (collapsed) {
    steps.push(
      {
        label: 'totals',
        kind: 'get',
        sql: `SELECT
            (SELECT count(*) FROM ${t.repeats} WHERE nth = 1) AS slots,
            (SELECT count(*) FROM ${t.repeats} WHERE nth > 1 AND same) AS exact,
            (SELECT count(*) FROM ${t.repeats} WHERE nth > 1 AND NOT same) AS conflicting`,
      },
      {
        label: 'samples',
        kind: 'all',
        // One id is one slot: its channel and start (in UTC form when it parses) are the same
        // on every row.
        ...bound(
          d,
          (p) => `SELECT min(channel_id) AS channel_id, min(start) AS start,
              max(CASE WHEN nth = 1 THEN line END) AS first_line,
              max(CASE WHEN nth = n THEN line END) AS kept_line,
              count(*) FILTER (WHERE nth > 1 AND same) AS exact,
              count(*) FILTER (WHERE nth > 1 AND NOT same) AS conflicting
            FROM ${t.repeats} GROUP BY id ORDER BY first_line LIMIT ${p(maxSamples)}`,
        ),
      },
    );
  }
  if (countOverlaps) {
    steps.push({
      label: 'overlaps',
      kind: 'get',
      sql: `SELECT count(*) AS overlaps FROM (
          SELECT start_ms, lag(stop_ms) OVER (PARTITION BY channel_id ORDER BY start_ms) AS prev
          FROM ${t.programmes} AS f WHERE start_ms IS NOT NULL AND ${winners(d, t, collapsed)}
        ) AS consecutive
        WHERE prev > start_ms`,
    });
  }
  return steps;
}

/** The StagingStats of `programmes` staged rows left after the collapse, from analyseSteps. */
export function stagingStats(
  steps: readonly MergeStep[],
  results: readonly MergeStepResult[],
  programmes: number,
): StagingStats {
  const samples = results[steps.findIndex((s) => s.label === 'samples')];
  const counted = steps.some((s) => s.label === 'overlaps');
  return {
    programmes,
    exactDuplicates: numberOf(steps, results, 'totals', 'exact'),
    conflictingDuplicates: numberOf(steps, results, 'totals', 'conflicting'),
    duplicateSlots: numberOf(steps, results, 'totals', 'slots'),
    overlaps: counted ? numberOf(steps, results, 'overlaps', 'overlaps') : null,
    duplicateSamples: samples?.kind === 'all' ? samples.rows.map(toDuplicateSample) : [],
  };
}

/**
 * Below this many programmes to insert, an engine does not offer to build indexes after the
 * rows (LateIndexes): small inserts gain little, and the schema change makes every connection
 * prepare its statements again.
 */
export const LATE_INDEX_MIN_ROWS = 5_000;

/** Whether a merge of `winners` programmes may build indexes after its rows (LateIndexes). */
export function mayBuildIndexesLate(winners: number): boolean {
  return winners >= LATE_INDEX_MIN_ROWS;
}

/** Indexes dropped before a merge's rows and built again after them, in its transaction. */
export interface IndexRebuild {
  /** Drops the indexes. */
  readonly drop: string;
  /** Builds them again, as the schema defines them. */
  readonly build: string;
}

/**
 * Indexes of `programmes` that an insert into a catalogue holding fewer programmes than the file
 * brings drops first and builds again after its rows, in the same transaction. Rows are
 * inserted in file order (by channel), so an index in another order (by start, by text) takes
 * each row at a random page; once such an index outgrows the page cache each row costs a page
 * read and written, and a 1 GB guide's insert into an empty catalogue took 146 s of its 237 s,
 * against 26 s for the rows and 19 s to build the three indexes after them (per-statement timing
 * of `node bench/ingest.mjs --child worker` on the 1 GB guide, bench/INGEST.md). SQLite's
 * readers keep the schema of their snapshot, so it takes this path whenever the file is the
 * larger. PostgreSQL's DROP INDEX locks the table until the commit, so readers of programmes
 * wait for the merge: it takes the path only into a catalogue holding no programme, where a
 * reader waits for the first ones instead of reading none (postgres-merge-dialect.ts).
 */
export interface LateIndexes extends IndexRebuild {
  /**
   * An SQL expression, cheap to read, never below the number of stored programmes: the path is
   * taken when the file brings at least as many.
   */
  readonly storedBound: string;
}

/**
 * The indexes of `programmes` not in file order, which a LateIndexes drops and builds (the same
 * names on both engines): search's two in search order and the one by text. The (channel,
 * start) indexes follow the file's order and stay, but for PostgreSQL's first ingest
 * (POSTGRES_LATE_INDEX_NAMES).
 */
export const LATE_INDEX_NAMES: readonly string[] = [
  'programmes_by_search_text',
  'programmes_in_search_order',
  'programmes_in_country_search_order',
];

/**
 * The indexes of `search_texts` (LATE_TEXT_INDEX_NAMES), which the file's texts, when none is
 * stored, go in without and are built after (PostgreSQL: see postgres-merge-dialect.ts). SQLite
 * offers none: its texts are unique by a constraint of the table, an index it cannot drop, and
 * its full-text index follows the table by trigger.
 */
export type LateTextIndexes = IndexRebuild;

/** The indexes of `search_texts` a LateTextIndexes drops and builds: by hash, and the words'. */
export const LATE_TEXT_INDEX_NAMES: readonly string[] = [
  'search_texts_by_words',
  'search_texts_words',
];

export interface MergeStepOptions {
  /** True when the staged rows were collapsed (collapseSteps ran). */
  collapsed: boolean;
  /** The staged programmes left once repeats are collapsed. */
  winners: number;
  /** Programmes that started before this instant (epoch ms) are pruned; null: none are. */
  pruneBeforeMs: number | null;
  /** Change records written before this instant (epoch ms) are pruned; null: none are. */
  changesBeforeMs: number | null;
  /** The indexes a large insert builds after its rows, or null (see LateIndexes). */
  lateIndexes: LateIndexes | null;
  /** The indexes of the texts a large first ingest builds after them, or null. */
  lateTextIndexes: LateTextIndexes | null;
}

/** The merge's options for an ingest of `file` committed with `options`. */
export function mergeStepOptions(
  file: SourceFileRecord,
  options: CommitOptions,
  collapsed: boolean,
  winners: number,
  lateIndexes: LateIndexes | null = null,
  lateTextIndexes: LateTextIndexes | null = null,
): MergeStepOptions {
  const before = (days: number | null | undefined) =>
    days === null || days === undefined ? null : file.ingestedAt - days * DAY_MS;
  return {
    collapsed,
    winners,
    pruneBeforeMs: before(options.retentionDays),
    changesBeforeMs: before(options.changesRetentionDays),
    lateIndexes: mayBuildIndexesLate(winners) ? lateIndexes : null,
    lateTextIndexes: mayBuildIndexesLate(winners) ? lateTextIndexes : null,
  };
}

/** The columns of a change record the merge writes, in this order. */
const CHANGE_INSERT = 'INSERT INTO changes (kind, change, channel_id, programme_id, start, at)';

/**
 * The merge, in order, in one transaction: the source file row (programmes refer to it),
 * channels updated then added, the file's search texts with their ids, then the programmes.
 * `plan` counts the stored programmes the file replaces (its channels', from each one's
 * earliest start in the file, and those whose start never parsed), on the (channel, start)
 * index. Then either:
 *
 * - none (a first ingest, or new channels): the programmes are inserted;
 * - some: each staged programme is compared with the stored one in its slot, once
 *   (`gatherUpserts`), keeping those to add or change; `match` counts the staged programmes
 *   that are stored (`existing`: the same id in the same channel and slot, all among the
 *   replaced ones), the others. When `stored > existing` the file drops programmes, which are
 *   removed. The rows kept are then upserted on their slot; unchanged rows are not touched
 *   (keeping `updated_at` and `source_file_id`).
 *
 * Programmes are keyed by slot, (channel, start), not by id alone: an id another channel holds
 * (63 bits of a hash: never by chance) is that channel's, and both stay.
 *
 * Pruning comes last.
 */
export function mergeSteps(
  d: MergeDialect,
  t: StagedTableNames,
  file: SourceFileRecord,
  {
    collapsed,
    winners: winnerCount,
    pruneBeforeMs,
    changesBeforeMs,
    lateIndexes,
    lateTextIndexes,
  }: MergeStepOptions,
): MergeStep[] {
  const now = file.ingestedAt;
  const join = d.outerLoopJoin;
  const survivors = winners(d, t, collapsed);
  // The stored programmes the file replaces, counted on the (channel, start) index, one range
  // per channel and index.
  const stored = `(${SLOT_INDEXES.map(
    (i) => `(SELECT count(*) FROM ${t.spans} AS s
      ${join} programmes AS p ON p.channel_id = s.channel_id AND ${i.replaced})`,
  ).join('\n    + ')})`;
  /** The stored channel `c` differs from the staged `s` in what the file may change. */
  const channelChanges = (c: string) => `(
      (s.declared AND (${d.isDistinct(`${c}.icon`, 's.icon')}
        OR (NOT ${c}.name_fixed AND (${d.isDistinct(`${c}.name`, 's.name')}
          OR ${d.isDistinct(`${c}.name_key`, 's.name_key')}
          OR ${d.isDistinct(`${c}.name_folded`, 's.name_folded')}))))
      OR (s.country IS NOT NULL AND ((NOT ${c}.country_fixed
        AND ${d.isDistinct(`${c}.country`, 's.country')}) OR ${c}.needs_review)))`;
  /** A change record of each programme (`a`: its alias) the FROM and WHERE of `rows` give. */
  const programmeChanges = (
    change: string,
    a: string,
    rows: (p: (value: MergeValue) => string) => string,
  ) =>
    bound(
      d,
      (p) => `${CHANGE_INSERT} SELECT 'programme', ${change}, ${a}.channel_id, ${a}.id, ${a}.start,
          ${p(now)} ${rows(p)}`,
    );
  const sameText = (words: string) => d.sameSearchText('t.words', words);
  const { names, updatable } = storedColumns(d);
  const insert = (
    stagedRows: string,
    staged = `${t.programmes} AS f`,
    order: string | null = null,
  ) =>
    bound(
      d,
      (p) => `${programmeInsert(names)} SELECT ${names.map((c) => `f.${c}`).join(', ')},
          ${p(file.id)}, ${p(now)},
          c.name_key, c.country, t.id
        FROM ${staged} JOIN channels AS c ON c.id = f.channel_id
          JOIN ${t.fileTexts} AS t ON t.words = f.search_words
        WHERE ${stagedRows}${order === null ? '' : ` ORDER BY ${order}`}`,
    );
  const update = `DO UPDATE SET
      ${[...updatable, 'search_text', 'source_file_id', 'updated_at']
        .map((c) => `${c} = excluded.${c}`)
        .join(', ')}
    WHERE ${updatable.map((c) => d.isDistinct(`programmes.${c}`, `excluded.${c}`)).join(' OR ')}`;
  const onConflict = (i: (typeof SLOT_INDEXES)[number]) =>
    `ON CONFLICT ${d.conflictTarget(i.target)} ${i.partial} ${update}`;
  // A conflict target per unique index of programmes: parsed starts, then unparsed ones. Only
  // the rows found to add or change (t.upserts): an unchanged row costs the upsert a probe
  // of its slot and a comparison of every column, which gatherUpserts has done already.
  const upsert = (stagedRows: string, indexes: readonly (typeof SLOT_INDEXES)[number][]) => {
    const { sql, params } = insert(
      stagedRows,
      `${t.upserts} AS u ${d.outerLoopJoin} ${t.programmes} AS f ON f.seq = u.seq`,
    );
    return { sql: `${sql} ${indexes.map(onConflict).join(' ')}`, params };
  };
  const upserts = d.severalConflictTargets
    ? [upsert(survivors, SLOT_INDEXES)]
    : SLOT_INDEXES.map((i) => upsert(`${survivors} AND ${i.staged}`, [i]));
  // The replaced programmes whose id (in their channel) the file no longer has.
  const dropped = `NOT EXISTS (SELECT 1 FROM ${t.programmes} AS f
      WHERE f.id = p.id AND f.channel_id = p.channel_id)`;
  const removals = d.removePerIndex
    ? SLOT_INDEXES.map((i) => `p.channel_id = s.channel_id AND ${i.replaced}`)
    : [`p.channel_id = s.channel_id AND (${SLOT_INDEXES.map((i) => i.replaced).join(' OR ')})`];
  // The staged programmes the upsert adds (no stored slot) or changes (a column differs): a
  // probe of the slot per staged row, per unique index where the upsert goes by index. Kept
  // in t.upserts for the change records and the upsert, which then touches only these: an
  // identical re-ingest of the 92 MB guide compared its 294,294 rows twice, 0.30 s for the
  // records and 0.57 s in the upsert (per-statement timing of `node bench/ingest.mjs --child
  // again FILE`, bench/INGEST.md).
  const gather = (stagedRows: string, storedSlot: string) =>
    `INSERT INTO ${t.upserts} (seq, added, old_text) SELECT f.seq, p.id IS NULL, p.search_text
      FROM ${t.programmes} AS f LEFT JOIN programmes AS p ON p.channel_id = f.channel_id
        AND ${storedSlot} AND p.id = f.id
      WHERE ${stagedRows} AND (p.id IS NULL
        OR ${updatable.map((c) => d.isDistinct(`p.${c}`, `f.${c}`)).join(' OR ')})`;
  const gatherUpserts = d.indexesNullSafeEquality
    ? [gather(survivors, d.isNotDistinct('p.start_ms', 'f.start_ms'))]
    : SLOT_INDEXES.map((i) => gather(`${survivors} AND ${i.staged}`, i.stored));
  const upsertedChanges = programmeChanges(
    `CASE WHEN u.added THEN 'added' ELSE 'changed' END`,
    'f',
    () => `FROM ${t.upserts} AS u ${d.outerLoopJoin} ${t.programmes} AS f ON f.seq = u.seq`,
  );
  const overlapping = { label: 'plan', column: 'overlapping' };
  const late = { label: 'plan', column: 'late' };
  const lateTexts = { label: 'textsPlan', column: 'late' };
  const remove = { label: 'match', column: 'remove' };
  const analyse = d.analyseStaged(t.programmes);
  const index = d.indexStagedIds(t.programmes);

  const steps: MergeStep[] = [
    ...(d.changesInCommitOrder === null
      ? []
      : [{ label: 'inCommitOrder', kind: 'exec' as const, sql: d.changesInCommitOrder }]),
    {
      label: 'sourceFile',
      kind: 'run',
      ...bound(
        d,
        (p) => `INSERT INTO source_files (id, source, country, size_bytes, sha256, ingested_at,
            summary) VALUES (${p(file.id)}, ${p(file.source)}, ${p(file.country)},
            ${p(file.sizeBytes)}, ${p(file.sha256)}, ${p(file.ingestedAt)},
            ${p(JSON.stringify(file.summary))})`,
      ),
    },
    {
      label: 'logChannels',
      kind: 'run',
      // Before they change: the channels the update below changes, and those it adds. Other
      // display-names alone change no field the API shows: the update writes them, unlogged.
      ...bound(
        d,
        (p) => `${CHANGE_INSERT} SELECT 'channel',
            CASE WHEN c.id IS NULL THEN 'added' ELSE 'changed' END, s.id, NULL, NULL, ${p(now)}
          FROM ${t.channels} AS s LEFT JOIN channels AS c ON c.id = s.id
          WHERE c.id IS NULL OR ${channelChanges('c')}`,
      ),
    },
    {
      label: 'updateChannels',
      kind: 'run',
      // A name or country the operator fixed (name_fixed, country_fixed) is kept.
      ...bound(
        d,
        (p) => `UPDATE channels SET
            name = CASE WHEN s.declared AND NOT channels.name_fixed THEN s.name
              ELSE channels.name END,
            name_key = CASE WHEN s.declared AND NOT channels.name_fixed THEN s.name_key
              ELSE channels.name_key END,
            name_folded = CASE WHEN s.declared AND NOT channels.name_fixed THEN s.name_folded
              ELSE channels.name_folded END,
            icon = CASE WHEN s.declared THEN s.icon ELSE channels.icon END,
            display_names = CASE WHEN s.declared THEN s.display_names
              ELSE channels.display_names END,
            country = CASE WHEN channels.country_fixed THEN channels.country
              ELSE coalesce(s.country, channels.country) END,
            needs_review = CASE WHEN s.country IS NULL THEN channels.needs_review ELSE false END,
            updated_at = ${p(now)}
          FROM ${t.channels} AS s
          WHERE channels.id = s.id AND (${channelChanges('channels')}
            OR (s.declared AND ${d.isDistinct('channels.display_names', 's.display_names')}))`,
      ),
    },
    {
      label: 'insertChannels',
      kind: 'run',
      ...bound(
        d,
        (p) => `INSERT INTO channels (id, xmltv_id, name, name_key, name_folded, display_names,
            icon, country, needs_review, created_at, updated_at)
          SELECT id, xmltv_id, name, name_key, name_folded, display_names, icon,
            coalesce(country, fallback_country), country IS NULL, ${p(now)}, ${p(now)}
          FROM ${t.channels} AS s
          WHERE NOT EXISTS (SELECT 1 FROM channels AS c WHERE c.id = s.id)`,
      ),
    },
    // Each distinct search text once (docs/catalogue.md, "The search index"): the file's texts,
    // made distinct before the merge (fileTextSteps), its new ones added (the full-text index
    // follows them), and each gets its id; the programmes written below find theirs among these
    // by their words. PostgreSQL finds a text in search_texts by a hash of its words (an MD5
    // then): hashing every staged row's words took 0.89 s to look the texts up and 1.78 s to
    // join the programmes to them (the 92 MB guide), its 11,309 distinct texts 0.2 s and the
    // join here 0.35 s (`EXPLAIN ANALYZE`; bench/INGEST.md).
    ...(lateTextIndexes === null
      ? []
      : [
          {
            label: 'textsPlan',
            kind: 'get' as const,
            sql: 'SELECT NOT EXISTS (SELECT 1 FROM search_texts) AS late',
          },
          {
            label: 'dropLateTextIndexes',
            kind: 'exec' as const,
            sql: lateTextIndexes.drop,
            onlyIf: lateTexts,
          },
        ]),
    {
      label: 'addSearchTexts',
      kind: 'run',
      sql: `INSERT INTO search_texts (words) SELECT n.words FROM ${t.fileTexts} AS n
        WHERE NOT EXISTS (SELECT 1 FROM search_texts AS t WHERE ${sameText('n.words')})`,
    },
    ...(lateTextIndexes === null
      ? []
      : [
          {
            label: 'buildLateTextIndexes',
            kind: 'exec' as const,
            sql: lateTextIndexes.build,
            onlyIf: lateTexts,
          },
        ]),
    {
      label: 'fileTextIds',
      kind: 'run',
      sql: `UPDATE ${t.fileTexts} SET id = (SELECT t.id FROM search_texts AS t
        WHERE ${sameText(`${t.fileTexts}.words`)})`,
    },
    { label: 'prepareFileTexts', kind: 'exec', sql: d.prepareFileTexts(t.fileTexts) },
    {
      label: 'plan',
      kind: 'get',
      // MATERIALIZED: counted once (PostgreSQL would otherwise count for each of the two).
      // `late`: an insert of more programmes than the catalogue holds builds the late indexes
      // after its rows.
      // `in_place`: inserted with every index kept up (in the dialect's insertOrder).
      ...bound(d, (p) => {
        // Made once per use: each binds its own parameter.
        const late = () =>
          lateIndexes === null
            ? 'false'
            : `stored = 0 AND ${p(winnerCount)} >= ${lateIndexes.storedBound}`;
        return `WITH replaced AS MATERIALIZED (SELECT ${stored} AS stored)
          SELECT stored = 0 AS separate, stored > 0 AS overlapping, ${late()} AS late,
            stored = 0 AND NOT (${late()}) AS in_place
          FROM replaced`;
      }),
    },
    {
      label: 'logInsert',
      kind: 'run',
      ...programmeChanges(`'added'`, 'f', () => `FROM ${t.programmes} AS f WHERE ${survivors}`),
      onlyIf: { label: 'plan', column: 'separate' },
    },
    ...(lateIndexes === null
      ? []
      : [{ label: 'dropLateIndexes', kind: 'exec' as const, sql: lateIndexes.drop, onlyIf: late }]),
    {
      label: 'insert',
      kind: 'run',
      // Nothing stored in the file's slots: a conflict here would be a bug, and fails.
      ...insert(survivors),
      onlyIf: d.insertOrder === null ? { label: 'plan', column: 'separate' } : late,
    },
    // Where the dialect has an order for an insert among stored programmes, the same rows so.
    ...(d.insertOrder === null
      ? []
      : [
          {
            label: 'insert',
            kind: 'run' as const,
            ...insert(survivors, undefined, d.insertOrder),
            onlyIf: { label: 'plan', column: 'in_place' },
          },
        ]),
    ...(lateIndexes === null
      ? []
      : [
          {
            label: 'buildLateIndexes',
            kind: 'exec' as const,
            sql: lateIndexes.build,
            onlyIf: late,
          },
        ]),
    ...(analyse === null
      ? []
      : [{ label: 'analyseStaged', kind: 'exec' as const, sql: analyse, onlyIf: overlapping }]),
    // No staged row shares its slot with a programme removed below (the id follows from the
    // slot), so the rows to add or change are found first, and what `match` counts with them.
    ...gatherUpserts.map((sql) => ({
      label: 'gatherUpserts',
      kind: 'run' as const,
      sql,
      onlyIf: overlapping,
    })),
    {
      label: 'match',
      kind: 'get',
      // The staged programmes stored in their slot: all those not added.
      ...bound(
        d,
        (p) => `WITH matched AS MATERIALIZED (SELECT ${p(winnerCount)}
            - (SELECT count(*) FROM ${t.upserts} AS u WHERE u.added) AS existing)
          SELECT existing, ${stored} > existing AS remove FROM matched`,
      ),
      onlyIf: overlapping,
    },
    ...(index === null
      ? []
      : [{ label: 'indexStaged', kind: 'exec' as const, sql: index, onlyIf: remove }]),
    // The texts of the programmes removed or changed below: they may leave a text unused
    // (dropSearchTexts), and only these can. Unchanged programmes keep theirs.
    ...removals.map((on) => ({
      label: 'gatherTexts',
      kind: 'run' as const,
      sql: `INSERT INTO ${t.texts} (id) SELECT DISTINCT p.search_text
        ${d.joinedRows(t.spans, on, dropped)}`,
      onlyIf: remove,
    })),
    {
      label: 'gatherTexts',
      kind: 'run',
      sql: `INSERT INTO ${t.texts} (id) SELECT DISTINCT u.old_text FROM ${t.upserts} AS u
        WHERE u.old_text IS NOT NULL`,
      onlyIf: overlapping,
    },
    ...removals.map((on) => ({
      label: 'logRemove',
      kind: 'run' as const,
      ...programmeChanges(`'removed'`, 'p', () => d.joinedRows(t.spans, on, dropped)),
      onlyIf: remove,
    })),
    ...removals.map((on) => ({
      label: 'remove',
      kind: 'run' as const,
      sql: d.deleteJoined(t.spans, on, dropped),
      onlyIf: remove,
    })),
    { label: 'logUpsert', kind: 'run', ...upsertedChanges, onlyIf: overlapping },
    ...upserts.map((s) => ({ label: 'upsert', kind: 'run' as const, ...s, onlyIf: overlapping })),
  ];
  if (pruneBeforeMs !== null) {
    steps.push(
      {
        label: 'logPrune',
        kind: 'run',
        ...programmeChanges(`'removed'`, 'p', (p) => d.prunedRows(p(pruneBeforeMs))),
      },
      {
        label: 'gatherTexts',
        kind: 'run',
        ...bound(
          d,
          (p) => `INSERT INTO ${t.texts} (id)
            SELECT DISTINCT p.search_text ${d.prunedRows(p(pruneBeforeMs))}`,
        ),
      },
      { label: 'prune', kind: 'run', ...bound(d, (p) => d.prune(p(pruneBeforeMs))) },
    );
  }
  // Of the texts gathered, those no programme points at any more: one probe of the
  // programmes' index of texts each. Not every stored text: on PostgreSQL each probe reads a
  // programme's row, and 29,417 texts over 1.8 million programmes took 13 s from disk.
  steps.push({
    label: 'dropSearchTexts',
    kind: 'run',
    sql: `DELETE FROM search_texts WHERE id IN (SELECT id FROM ${t.texts})
      AND NOT EXISTS (SELECT 1 FROM programmes AS p WHERE p.search_text = search_texts.id)`,
  });
  if (changesBeforeMs !== null) {
    // Records are written in time order, so those before the retention are a prefix of the
    // log: its end is found from the oldest record on, on the seq key (no index of the times,
    // which cost a third of writing the records), and the prefix is deleted by seq.
    steps.push(
      {
        label: 'changesHorizon',
        kind: 'run',
        // The last record pruned: a `since` before it has missed some.
        ...bound(
          d,
          (p) => `UPDATE changes_horizon SET seq = coalesce((SELECT max(seq) FROM changes
              WHERE seq < coalesce((SELECT seq FROM changes WHERE at >= ${p(changesBeforeMs)}
                ORDER BY seq LIMIT 1), ${p(Number.MAX_SAFE_INTEGER)})), seq)`,
        ),
      },
      {
        label: 'pruneChanges',
        kind: 'run',
        sql: 'DELETE FROM changes WHERE seq <= (SELECT seq FROM changes_horizon)',
      },
    );
  }
  return steps;
}

/** The sum of the changes of every `run` step labelled `label` that ran. */
function changes(
  steps: readonly MergeStep[],
  results: readonly MergeStepResult[],
  label: string,
): number {
  let sum = 0;
  steps.forEach((step, i) => {
    const result = results[i];
    if (step.label === label && result?.kind === 'run') sum += result.changes;
  });
  return sum;
}

/** How the catalogue changed, from the results of mergeSteps and the staged rows left. */
export function mergeStats(
  steps: readonly MergeStep[],
  results: readonly MergeStepResult[],
  winners: number,
): MergeStats {
  const inserted = steps.some((s, i) => s.label === 'insert' && results[i]?.kind === 'run');
  const programmesAdded = inserted
    ? changes(steps, results, 'insert')
    : winners - numberOf(steps, results, 'match', 'existing');
  // The upsert's changes are the added and the updated rows.
  const programmesUpdated = inserted ? 0 : changes(steps, results, 'upsert') - programmesAdded;
  return {
    channelsAdded: changes(steps, results, 'insertChannels'),
    channelsUpdated: changes(steps, results, 'updateChannels'),
    programmesAdded,
    programmesUpdated,
    programmesUnchanged: winners - programmesAdded - programmesUpdated,
    programmesRemoved: changes(steps, results, 'remove'),
    programmesPruned: changes(steps, results, 'prune'),
  };
}
