import type {
  AnalyseOptions,
  CatalogueWriter,
  ChannelRecord,
  CommitOptions,
  IngestSession,
  MergeStats,
  ProgrammeRecord,
  SourceFileRecord,
  StagingStats,
} from '../catalogue-writer.js';
import { toDuplicateSample } from '../rows.js';
import { DAY_MS } from '../../domain/schedule-window.js';
import { foldForSearch, nameSortKey } from '../../domain/search-folding.js';
import { cataloguePathFor } from './catalogue-file.js';
import type { SqliteDatabase } from './connection.js';
import { openCatalogueFile } from './database.js';
import { StagedProgrammes } from '../staged-programmes.js';
import {
  RowPacker,
  createInThreadRunner,
  type RowInsert,
  type SqlStep,
  type SqlStepResult,
  type StagingRunner,
} from './staging-runner.js';
import { createWorkerRunner } from './staging-worker.js';

/** Programme rows packed in JS before one batched insert into the staging table. */
const PROGRAMME_BATCH_ROWS = 2048;
const CHANNEL_BATCH_ROWS = 512;
/** Rows flagged as possible repeats (StagedProgrammes), sent to the table of candidates in batches. */
const CANDIDATE_BATCH_ROWS = 256;

/**
 * Names of one session's temp tables, unique per session because the `:memory:` fallback
 * stages on the store's own connection, which several sessions may share.
 */
interface StagingNames {
  /** Staged programmes, in file order (rowid `seq`). */
  programmes: string;
  channels: string;
  /**
   * Staged rows flagged as possible repeats (every row of an id staged more than once but the
   * first, and a few more), with the rows they repeat when those are known.
   */
  candidates: string;
  /** Every row of an id staged more than once, compared with the occurrence before it. */
  repeats: string;
  /** Rows replaced by a later one with the same id (all but the last of each id). */
  losers: string;
  /** Each channel of the file with its earliest parseable start (NULL when none parses). */
  spans: string;
  byId: string;
}

let sessionCount = 0;

function stagingNames(): StagingNames {
  const p = `onair_stage_${++sessionCount}`;
  return {
    programmes: `${p}_programmes`,
    channels: `${p}_channels`,
    candidates: `${p}_candidates`,
    repeats: `${p}_repeats`,
    losers: `${p}_losers`,
    spans: `${p}_spans`,
    byId: `${p}_programmes_by_id`,
  };
}

function createTablesSql(t: StagingNames): string {
  // Append-only with no index while staging: a unique index on the random ids made staging
  // three times slower. Repeated ids are found with StagedProgrammes instead. The id is
  // hashed by the staging thread (RowInsert.programmeIdOf), not the parser's.
  return `
    CREATE TEMP TABLE ${t.programmes} (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL,
      channel_id TEXT NOT NULL,
      start TEXT NOT NULL,
      stop TEXT NOT NULL,
      start_ms INTEGER,
      stop_ms INTEGER,
      title TEXT NOT NULL,
      description TEXT NOT NULL,
      category TEXT NOT NULL,
      needs_review INTEGER NOT NULL,
      line INTEGER NOT NULL
    );
    CREATE TEMP TABLE ${t.channels} (
      id TEXT PRIMARY KEY,
      xmltv_id TEXT NOT NULL,
      name TEXT NOT NULL,
      name_key TEXT NOT NULL,
      name_folded TEXT NOT NULL,
      icon TEXT NOT NULL,
      country TEXT,
      fallback_country TEXT NOT NULL,
      declared INTEGER NOT NULL
    );
    CREATE TEMP TABLE ${t.candidates} (seq INTEGER PRIMARY KEY);
    CREATE TEMP TABLE ${t.spans} (channel_id TEXT PRIMARY KEY, min_start INTEGER) WITHOUT ROWID;`;
}

function programmeInsert(t: StagingNames): RowInsert {
  return {
    head: `INSERT INTO ${t.programmes} (seq, channel_id, start, stop, start_ms, stop_ms,
      title, description, category, needs_review, line, id)`,
    columns: [
      'number',
      'text',
      'text',
      'text',
      'number',
      'number',
      'text',
      'text',
      'text',
      'number',
      'number',
    ],
    tail: '',
    // channel_id, start
    programmeIdOf: [1, 2],
  };
}

function channelInsert(t: StagingNames): RowInsert {
  return {
    head: `INSERT INTO ${t.channels} (id, xmltv_id, name, name_key, name_folded, icon, country,
      fallback_country, declared)`,
    columns: ['text', 'text', 'text', 'text', 'text', 'text', 'nullable-text', 'text', 'number'],
    // The pipeline stages each channel once; should one come twice, the first is kept.
    tail: 'ON CONFLICT (id) DO NOTHING',
  };
}

function candidateInsert(t: StagingNames): RowInsert {
  return {
    head: `INSERT INTO ${t.candidates} (seq)`,
    columns: ['number'],
    tail: 'ON CONFLICT (seq) DO NOTHING',
  };
}

function spanInsert(t: StagingNames): RowInsert {
  return {
    head: `INSERT INTO ${t.spans} (channel_id, min_start)`,
    columns: ['text', 'number'],
    tail: '',
  };
}

/**
 * Temp-only work once the file is read, when the filter flagged ids: the rows of those ids,
 * then the collapse of same (channel, start) (same id) keeping the last in file order. When
 * every flagged row repeated its channel's previous programme (`adjacent`), the candidates
 * hold all the rows of those ids; otherwise one scan of the staged rows finds them (still no
 * sort of every staged id). Touches no catalogue table, so it holds no lock.
 */
function collapseSql(t: StagingNames, adjacent: boolean): string {
  const rows = adjacent
    ? `seq IN (SELECT seq FROM ${t.candidates})`
    : `id IN (SELECT s.id FROM ${t.candidates} AS c JOIN ${t.programmes} AS s ON s.seq = c.seq)`;
  return `
    CREATE TEMP TABLE ${t.repeats} AS
      SELECT seq, id, channel_id, start, line,
        row_number() OVER w AS nth,
        count(*) OVER (PARTITION BY id) AS n,
        (stop IS lag(stop) OVER w AND title IS lag(title) OVER w
          AND description IS lag(description) OVER w AND category IS lag(category) OVER w) AS same
      FROM ${t.programmes} WHERE ${rows}
      WINDOW w AS (PARTITION BY id ORDER BY seq);
    DELETE FROM ${t.repeats} WHERE n = 1;
    CREATE TEMP TABLE ${t.losers} (seq INTEGER PRIMARY KEY);
    INSERT INTO ${t.losers} SELECT seq FROM ${t.repeats} WHERE nth < n;`;
}

function analyseSteps(t: StagingNames, maxSamples: number): SqlStep[] {
  return [
    {
      kind: 'get',
      sql: `SELECT
          (SELECT count(*) FROM ${t.losers}) AS losers,
          (SELECT count(*) FROM ${t.repeats} WHERE nth = 1) AS slots,
          (SELECT coalesce(sum(nth > 1 AND same), 0) FROM ${t.repeats}) AS exact,
          (SELECT coalesce(sum(nth > 1 AND NOT same), 0) FROM ${t.repeats}) AS conflicting`,
    },
    {
      kind: 'all',
      sql: `SELECT channel_id, start,
          max(CASE WHEN nth = 1 THEN line END) AS first_line,
          max(CASE WHEN nth = n THEN line END) AS kept_line,
          sum(nth > 1 AND same) AS exact,
          sum(nth > 1 AND NOT same) AS conflicting
        FROM ${t.repeats} GROUP BY id ORDER BY first_line LIMIT ?`,
      params: [maxSamples],
    },
  ];
}

/** Consecutive programmes of a channel in start order, for files not in start order. */
function overlapStep(t: StagingNames, collapsed: boolean): SqlStep {
  return {
    kind: 'get',
    sql: `SELECT count(*) AS overlaps FROM (
        SELECT start_ms, lag(stop_ms) OVER (PARTITION BY channel_id ORDER BY start_ms) AS prev
        FROM ${t.programmes} AS f WHERE start_ms IS NOT NULL AND ${winners(t, collapsed)})
      WHERE prev > start_ms`,
  };
}

/** The staged programmes that survive the collapse (alias `f`). */
function winners(t: StagingNames, collapsed: boolean): string {
  return collapsed ? `f.seq NOT IN (SELECT seq FROM ${t.losers})` : 'true';
}

// A conflict target fixes the channel, the start and the id: the rest may change.
const PROGRAMME_CHANGED = `programmes.start IS NOT excluded.start OR programmes.stop IS NOT excluded.stop
  OR programmes.stop_ms IS NOT excluded.stop_ms
  OR programmes.title IS NOT excluded.title OR programmes.description IS NOT excluded.description
  OR programmes.category IS NOT excluded.category
  OR programmes.needs_review IS NOT excluded.needs_review`;

const PROGRAMME_INSERT = `INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms,
  title, description, category, needs_review, source_file_id, updated_at)`;

/** A step of the merge, run only when `column` of the row of the earlier step `label` is true. */
type MergeStep = SqlStep & { onlyIf?: { label: string; column: string } };

/**
 * The merge, in order (one BEGIN IMMEDIATE transaction): source file row (programmes refer to
 * it), channels updated then added, then the programmes. `plan` counts the stored programmes
 * the file replaces (its channels', from each one's earliest start in the file, and those whose
 * start never parsed), on the (channel, start) index. Then either:
 *
 * - none (a first ingest, or new channels): the programmes are inserted;
 * - some: `match` counts the staged programmes that are stored (`existing`): the same id in the
 *   same channel and slot, all among the replaced ones. When `stored > existing` the file drops
 *   programmes, which are removed; only then are the staged ids indexed, to be checked one by
 *   one. The staged programmes are then upserted on their slot, unchanged rows left alone
 *   (keeping `updated_at` and `source_file_id`).
 *
 * Programmes are keyed by slot, (channel, start), not by id alone (catalogue-file.ts): an id
 * another channel holds (63 bits of a hash: never by chance) is that channel's, and both stay.
 *
 * Pruning comes last.
 */
function commitSteps(
  t: StagingNames,
  file: SourceFileRecord,
  collapsed: boolean,
  pruneBeforeMs: number | null,
): Map<string, MergeStep> {
  const now = file.ingestedAt;
  const survivors = winners(t, collapsed);
  const select = `SELECT id, channel_id, start, stop, start_ms, stop_ms, title, description,
      category, needs_review, ?, ?
    FROM ${t.programmes} AS f WHERE ${survivors}`;
  // The stored programmes the file replaces, counted on the (channel, start) index. CROSS JOIN
  // keeps the file's channels as the outer loop: without statistics SQLite chose to scan every
  // stored programme instead (0.3 s with 2 million stored, for a file of new channels).
  const stored = `((SELECT count(*) FROM ${t.spans} AS s
      CROSS JOIN programmes AS p ON p.channel_id = s.channel_id AND p.start_ms >= s.min_start)
    + (SELECT count(*) FROM ${t.spans} AS s
      CROSS JOIN programmes AS p ON p.channel_id = s.channel_id AND p.start_ms IS NULL))`;
  const update = `DO UPDATE SET
      start = excluded.start, stop = excluded.stop, stop_ms = excluded.stop_ms,
      title = excluded.title, description = excluded.description, category = excluded.category,
      needs_review = excluded.needs_review, source_file_id = excluded.source_file_id,
      updated_at = excluded.updated_at
    WHERE ${PROGRAMME_CHANGED}`;
  // One conflict target per unique index of programmes: parsed starts, then unparsed ones.
  const upsert = `${PROGRAMME_INSERT} ${select}
    ON CONFLICT (channel_id, start_ms, id) ${update}
    ON CONFLICT (channel_id, id) WHERE start_ms IS NULL ${update}`;
  const steps = new Map<string, MergeStep>([
    [
      'sourceFile',
      {
        kind: 'run',
        sql: `INSERT INTO source_files (id, source, country, size_bytes, sha256, ingested_at,
            summary) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        params: [
          file.id,
          file.source,
          file.country,
          file.sizeBytes,
          file.sha256,
          file.ingestedAt,
          JSON.stringify(file.summary),
        ],
      },
    ],
    [
      'updateChannels',
      {
        kind: 'run',
        // A name or country the operator fixed (name_fixed, country_fixed) is kept.
        sql: `UPDATE channels SET
            name = CASE WHEN s.declared AND NOT channels.name_fixed THEN s.name
              ELSE channels.name END,
            name_key = CASE WHEN s.declared AND NOT channels.name_fixed THEN s.name_key
              ELSE channels.name_key END,
            name_folded = CASE WHEN s.declared AND NOT channels.name_fixed THEN s.name_folded
              ELSE channels.name_folded END,
            icon = CASE WHEN s.declared THEN s.icon ELSE channels.icon END,
            country = CASE WHEN channels.country_fixed THEN channels.country
              ELSE coalesce(s.country, channels.country) END,
            needs_review = CASE WHEN s.country IS NULL THEN channels.needs_review ELSE 0 END,
            updated_at = ?
          FROM ${t.channels} AS s
          WHERE channels.id = s.id AND (
            (s.declared AND (channels.icon IS NOT s.icon OR (NOT channels.name_fixed AND (
              channels.name IS NOT s.name OR channels.name_key IS NOT s.name_key
              OR channels.name_folded IS NOT s.name_folded))))
            OR (s.country IS NOT NULL AND ((NOT channels.country_fixed
              AND channels.country IS NOT s.country) OR channels.needs_review <> 0)))`,
        params: [now],
      },
    ],
    [
      'insertChannels',
      {
        kind: 'run',
        sql: `INSERT INTO channels (id, xmltv_id, name, name_key, name_folded, icon, country,
            needs_review, created_at, updated_at)
          SELECT id, xmltv_id, name, name_key, name_folded, icon,
            coalesce(country, fallback_country), country IS NULL, ?, ?
          FROM ${t.channels} AS s
          WHERE NOT EXISTS (SELECT 1 FROM channels AS c WHERE c.id = s.id)`,
        params: [now, now],
      },
    ],
    [
      'plan',
      {
        kind: 'get',
        sql: `SELECT stored = 0 AS separate, stored > 0 AS overlapping
          FROM (SELECT ${stored} AS stored)`,
      },
    ],
    [
      'insert',
      {
        kind: 'run',
        // Nothing stored in the file's slots: a conflict here would be a bug, and fails.
        sql: `${PROGRAMME_INSERT} ${select}`,
        params: [file.id, now],
        onlyIf: { label: 'plan', column: 'separate' },
      },
    ],
    [
      'match',
      {
        kind: 'get',
        // CROSS JOIN keeps the staged rows as the outer loop: one probe of the (channel, start)
        // index each (IS: an unparsed start is NULL on both sides).
        sql: `SELECT existing, ${stored} > existing AS remove FROM (SELECT count(*) AS existing
            FROM ${t.programmes} AS f CROSS JOIN programmes AS p ON p.channel_id = f.channel_id
              AND p.start_ms IS f.start_ms AND p.id = f.id
            WHERE ${survivors})`,
        onlyIf: { label: 'plan', column: 'overlapping' },
      },
    ],
    [
      'indexStaged',
      {
        kind: 'exec',
        sql: `CREATE INDEX IF NOT EXISTS temp.${t.byId} ON ${t.programmes} (id)`,
        onlyIf: { label: 'match', column: 'remove' },
      },
    ],
    [
      'removeParsed',
      {
        kind: 'run',
        sql: `DELETE FROM programmes WHERE rowid IN (
            SELECT p.rowid FROM ${t.spans} AS s
            CROSS JOIN programmes AS p ON p.channel_id = s.channel_id AND p.start_ms >= s.min_start
            WHERE NOT EXISTS (SELECT 1 FROM ${t.programmes} AS f
              WHERE f.id = p.id AND f.channel_id = p.channel_id))`,
        onlyIf: { label: 'match', column: 'remove' },
      },
    ],
    [
      'removeUnparsed',
      {
        kind: 'run',
        sql: `DELETE FROM programmes WHERE rowid IN (
            SELECT p.rowid FROM ${t.spans} AS s
            CROSS JOIN programmes AS p ON p.channel_id = s.channel_id AND p.start_ms IS NULL
            WHERE NOT EXISTS (SELECT 1 FROM ${t.programmes} AS f
              WHERE f.id = p.id AND f.channel_id = p.channel_id))`,
        onlyIf: { label: 'match', column: 'remove' },
      },
    ],
    [
      'upsert',
      {
        kind: 'run',
        sql: upsert,
        params: [file.id, now],
        onlyIf: { label: 'plan', column: 'overlapping' },
      },
    ],
  ]);
  if (pruneBeforeMs !== null) {
    steps.set('prune', {
      kind: 'run',
      // Channel by channel on the (channel, start) index: with no index on the start alone, a
      // plain `WHERE start_ms < ?` scanned every stored programme under the write lock (0.21-0.25
      // s per 2 million even with nothing to prune, against 11-26 ms this way).
      sql: `DELETE FROM programmes WHERE rowid IN (SELECT p.rowid FROM channels AS c
          CROSS JOIN programmes AS p ON p.channel_id = c.id AND p.start_ms < ?)`,
      params: [pruneBeforeMs],
    });
  }
  return steps;
}

/** The steps in order, each `onlyIf` turned into the runner's `when` (by step index). */
function toScript(steps: Map<string, MergeStep>): SqlStep[] {
  const labels = [...steps.keys()];
  return [...steps.values()].map(({ onlyIf, ...step }) =>
    onlyIf === undefined
      ? step
      : { ...step, when: { step: labels.indexOf(onlyIf.label), column: onlyIf.column } },
  );
}

/**
 * Creates one session's staging tables on `db` and returns its merge's statements (every step,
 * duplicates collapsed, pruning on), so a test can check how SQLite plans them.
 */
export function stageMergeForPlanCheck(db: SqliteDatabase, file: SourceFileRecord): SqlStep[] {
  const tables = stagingNames();
  db.exec(createTablesSql(tables));
  db.exec(collapseSql(tables, false));
  return toScript(commitSteps(tables, file, true, file.ingestedAt));
}

function dropSql(t: StagingNames): string {
  return [t.programmes, t.channels, t.candidates, t.repeats, t.losers, t.spans]
    .map((table) => `DROP TABLE IF EXISTS temp.${table};`)
    .join('\n');
}

function changes(result: SqlStepResult | undefined): number {
  return result?.kind === 'run' ? result.changes : 0;
}

function field(result: SqlStepResult | undefined, name: string): number {
  return result?.kind === 'get' ? Number(result.row?.[name] ?? 0) : 0;
}

/**
 * One ingest over SQLite: rows are staged in TEMP tables of the runner's connection (a
 * connection of its own to the catalogue file, so staging holds no lock on the catalogue and
 * readers see nothing of it) in batched transactions, then merged in one BEGIN IMMEDIATE
 * transaction, which locks the catalogue file only: account writes go on meanwhile.
 * What the merge needs to know of the file as a whole is gathered here as rows go by: each
 * channel's earliest start, and (with DuplicateIdFilter) the few ids that may repeat.
 */
class SqliteIngestSession implements IngestSession {
  private readonly programmes: RowPacker;
  private readonly channels: RowPacker;
  private readonly candidates: RowPacker;
  private readonly programmeInsert: RowInsert;
  private readonly channelInsert: RowInsert;
  private readonly candidateInsert: RowInsert;
  private readonly staged = new StagedProgrammes();
  private readonly stagedChannels = new Set<string>();
  /** Staged rows replaced by a later one with the same id, once the file is read. */
  private losers = 0;
  private closed = false;
  private prepared = false;

  constructor(
    private readonly runner: StagingRunner,
    private readonly tables: StagingNames,
  ) {
    this.programmeInsert = programmeInsert(tables);
    this.channelInsert = channelInsert(tables);
    this.candidateInsert = candidateInsert(tables);
    this.programmes = new RowPacker(this.programmeInsert.columns, PROGRAMME_BATCH_ROWS);
    this.channels = new RowPacker(this.channelInsert.columns, CHANNEL_BATCH_ROWS);
    this.candidates = new RowPacker(this.candidateInsert.columns, CANDIDATE_BATCH_ROWS);
  }

  stageChannel(c: ChannelRecord): void {
    this.assertOpen();
    const k = this.channels;
    k.text(c.id);
    k.text(c.xmltvId);
    k.text(c.name);
    k.text(nameSortKey(c.name));
    k.text(foldForSearch(c.name));
    k.text(c.icon);
    k.nullableText(c.country);
    k.text(c.fallbackCountry);
    k.number(c.declared ? 1 : 0);
    this.stagedChannels.add(c.id);
    if (k.endRow()) this.flushChannels();
  }

  stageProgramme(p: ProgrammeRecord): void {
    this.assertOpen();
    const k = this.programmes;
    k.number(this.staged.add(p, this.addCandidate));
    k.text(p.channelId);
    k.text(p.start);
    k.text(p.stop);
    k.number(p.startMs);
    k.number(p.stopMs);
    k.text(p.title);
    k.text(p.desc);
    k.text(p.category);
    k.number(p.needsReview ? 1 : 0);
    k.number(p.line);
    if (k.endRow()) this.flushProgrammes();
    // Flushed only between rows: a row may add two candidates.
    if (this.candidates.rows >= CANDIDATE_BATCH_ROWS - 2) this.flushCandidates();
  }

  async drain(): Promise<void> {
    this.assertOpen();
    this.flush();
    await this.runner.drain();
  }

  async analyse({ maxSamples, countOverlaps }: AnalyseOptions): Promise<StagingStats> {
    this.assertOpen();
    this.flush();
    await this.prepareMerge();
    const collapsed = this.staged.flagged > 0;
    const steps = collapsed ? analyseSteps(this.tables, maxSamples) : [];
    if (countOverlaps) steps.push(overlapStep(this.tables, collapsed));
    const results = steps.length === 0 ? [] : await this.runner.script(steps, 'transaction');
    const totals = collapsed ? results[0] : undefined;
    const samples = collapsed ? results[1] : undefined;
    const rows = samples?.kind === 'all' ? samples.rows : [];
    return {
      programmes: this.staged.count - this.losers,
      exactDuplicates: field(totals, 'exact'),
      conflictingDuplicates: field(totals, 'conflicting'),
      duplicateSlots: field(totals, 'slots'),
      overlaps: countOverlaps ? field(results[results.length - 1], 'overlaps') : null,
      duplicateSamples: rows.map(toDuplicateSample),
    };
  }

  async commit(file: SourceFileRecord, options: CommitOptions = {}): Promise<MergeStats> {
    this.assertOpen();
    this.flush();
    // The staging connection does not check foreign keys (see STAGING_PRAGMAS): every
    // programme's channel must be staged (and so inserted) with the programme.
    for (const channelId of this.staged.spans.keys()) {
      if (!this.stagedChannels.has(channelId)) {
        await this.abort();
        throw new Error(`programmes were staged for channel ${channelId}, which was not staged`);
      }
    }
    const retention = options.retentionDays ?? null;
    const pruneBefore = retention === null ? null : file.ingestedAt - retention * DAY_MS;
    try {
      await this.prepareMerge();
      const winners = this.staged.count - this.losers;
      const collapsed = this.staged.flagged > 0;
      const steps = commitSteps(this.tables, file, collapsed, pruneBefore);
      const labels = [...steps.keys()];
      const results = await this.runner.script(toScript(steps), 'immediate');
      const r = (label: string) => results[labels.indexOf(label)];
      let programmesAdded: number;
      let programmesUpdated: number;
      if (r('insert')?.kind === 'run') {
        programmesAdded = changes(r('insert'));
        programmesUpdated = 0;
      } else {
        programmesAdded = winners - field(r('match'), 'existing');
        // The upsert's changes are the added and the updated rows.
        programmesUpdated = changes(r('upsert')) - programmesAdded;
      }
      return {
        channelsAdded: changes(r('insertChannels')),
        channelsUpdated: changes(r('updateChannels')),
        programmesAdded,
        programmesUpdated,
        programmesUnchanged: winners - programmesAdded - programmesUpdated,
        programmesRemoved: changes(r('removeParsed')) + changes(r('removeUnparsed')),
        programmesPruned: changes(r('prune')),
      };
    } finally {
      await this.release();
    }
  }

  async abort(): Promise<void> {
    if (this.closed) return;
    this.programmes.take();
    this.channels.take();
    this.candidates.take();
    await this.release();
  }

  /** Stages each channel's span and collapses repeated ids, once, after the last row. */
  private async prepareMerge(): Promise<void> {
    if (this.prepared) return;
    this.prepared = true;
    const spans = new RowPacker(['text', 'number'], this.staged.spans.size);
    for (const [channelId, span] of this.staged.spans) {
      spans.text(channelId);
      spans.number(Number.isNaN(span.earliestMs) ? null : span.earliestMs);
      spans.endRow();
    }
    // The worker runs messages in order, so the script below sees these rows.
    this.runner.insertRows(spanInsert(this.tables), spans.take());
    if (this.staged.flagged === 0) return;
    this.flushCandidates();
    const results = await this.runner.script(
      [
        { kind: 'exec', sql: collapseSql(this.tables, this.staged.adjacent) },
        { kind: 'get', sql: `SELECT count(*) AS losers FROM ${this.tables.losers}` },
      ],
      'transaction',
    );
    this.losers = field(results[1], 'losers');
  }

  private async release(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.runner.script([{ kind: 'exec', sql: dropSql(this.tables) }], 'plain');
    } finally {
      await this.runner.close();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('this ingest session has been committed or aborted');
  }

  private flush(): void {
    this.flushChannels();
    this.flushProgrammes();
    this.flushCandidates();
  }

  private flushProgrammes(): void {
    if (this.programmes.rows > 0) {
      this.runner.insertRows(this.programmeInsert, this.programmes.take());
    }
  }

  private flushChannels(): void {
    if (this.channels.rows > 0) this.runner.insertRows(this.channelInsert, this.channels.take());
  }

  private readonly addCandidate = (seq: number): void => {
    this.candidates.number(seq);
    this.candidates.endRow();
  };

  private flushCandidates(): void {
    // After the programmes: a candidate's row is staged before the candidate itself.
    if (this.candidates.rows > 0) {
      this.flushProgrammes();
      this.runner.insertRows(this.candidateInsert, this.candidates.take());
    }
  }
}

/**
 * Settings of the staging connection: wait for other writers rather than fail, and big page
 * caches. Staged rows spill to a temp file rather than memory, so a 1 GB guide keeps RSS flat.
 */
const STAGING_PRAGMAS = [
  'busy_timeout = 10000',
  // The merge inserts each programme with its channel and source file, all staged by the
  // session (checked in commit); foreign-key checks cost two index lookups per programme,
  // 30 % of the merge's inserts (measured). Every other connection keeps them on.
  'foreign_keys = OFF',
  'synchronous = NORMAL',
  'temp_store = FILE',
  'cache_size = -32768',
  'temp.cache_size = -8192',
  // Before the first staging table. Staged rows are long (descriptions): 16 KiB pages made the
  // ingest of the 92 MB guide 21 % faster (bench/INGEST.md). The catalogue file has its own
  // page size (CATALOGUE_PAGE_SIZE).
  'temp.page_size = 16384',
];

function openStagingConnection(path: string): SqliteDatabase {
  const conn = openCatalogueFile(path);
  try {
    for (const pragma of STAGING_PRAGMAS) conn.pragma(pragma);
  } catch (error) {
    conn.close();
    throw error;
  }
  return conn;
}

/** Where an ingest's staging connection runs. */
export interface SqliteWriterOptions {
  /**
   * 'worker' (default): in a worker thread, beside the parser; 'in-thread': in this thread.
   * A database in memory always stages in this thread, on the store's own connection.
   */
  staging?: 'worker' | 'in-thread';
}

/**
 * The SQLite CatalogueWriter. Each ingest stages on its own connection to the catalogue file of
 * the database at `path` (a database in memory cannot be opened twice, so there the store's
 * connection is used).
 */
export function createSqliteCatalogueWriter(
  db: SqliteDatabase,
  path: string,
  options: SqliteWriterOptions = {},
): CatalogueWriter {
  return {
    async beginIngest() {
      let runner: StagingRunner;
      if (path === ':memory:' || path === '' || db.memory) {
        runner = createInThreadRunner(db, false);
      } else if (options.staging === 'in-thread') {
        runner = createInThreadRunner(openStagingConnection(path), true);
      } else {
        runner = createWorkerRunner(cataloguePathFor(path), STAGING_PRAGMAS);
      }
      const tables = stagingNames();
      try {
        await runner.script([{ kind: 'exec', sql: createTablesSql(tables) }], 'plain');
      } catch (error) {
        await runner.close();
        throw error;
      }
      return new SqliteIngestSession(runner, tables);
    },
  };
}
