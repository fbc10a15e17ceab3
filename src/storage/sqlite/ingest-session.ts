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
import {
  analyseSteps,
  collapsedLosers,
  collapseSteps,
  conditionStep,
  createStagedTablesSql,
  fileTextSteps,
  openStopSteps,
  mayBuildIndexesLate,
  mergeStats,
  mergeSteps,
  mergeStepOptions,
  stagingStats,
  type LateIndexes,
  type MergeStep,
} from '../ingest-merge/merge-steps.js';
import {
  STAGED_TABLE_ORDER,
  STAGED_TABLES,
  writeStagedChannel,
  writeStagedProgramme,
  writeStagedSpan,
  type StagedTableNames,
} from '../ingest-merge/staged-tables.js';
import { CATALOGUE_SCHEMA, cataloguePathFor } from './catalogue-file.js';
import type { SqliteDatabase } from './connection.js';
import { isInMemory, openCatalogueFile } from './database.js';
import { RowPacker } from '../packed-rows.js';
import { StagedProgrammes, needsOpenStops } from '../staged-programmes.js';
import {
  lateIndexesQuery,
  rowInsertFor,
  sqliteLateIndexes,
  SQLITE_MERGE,
} from './sqlite-merge-dialect.js';
import {
  createInThreadRunner,
  runSteps,
  statementCache,
  type RowInsert,
  type SqlStep,
  type StagingRunner,
} from './staging-runner.js';
import { createWorkerRunner } from './staging-worker.js';

/** Programme rows packed in JS before one batched insert into the staging table. */
const PROGRAMME_BATCH_ROWS = 2048;
const CHANNEL_BATCH_ROWS = 512;
/** Rows flagged as possible repeats (StagedProgrammes), sent to the table of candidates in batches. */
const CANDIDATE_BATCH_ROWS = 256;

function dropSql(t: StagedTableNames): string {
  return STAGED_TABLE_ORDER.map((name) => `DROP TABLE IF EXISTS temp.${t[name]};`).join('\n');
}

/** The steps in order, each `onlyIf` turned into the runner's `when` (by step index). */
function toScript(steps: readonly MergeStep[]): SqlStep[] {
  return steps.map(({ label: _label, onlyIf, ...step }) =>
    onlyIf === undefined
      ? step
      : { ...step, when: { step: conditionStep(steps, onlyIf.label), column: onlyIf.column } },
  );
}

/**
 * Creates one session's staging tables on `db` and returns its merge's statements (every step,
 * duplicates collapsed, pruning on), so a test can check how SQLite plans them.
 */
export function stageMergeForPlanCheck(db: SqliteDatabase, file: SourceFileRecord): SqlStep[] {
  const tables = SQLITE_MERGE.stagedTableNames();
  db.exec(createStagedTablesSql(SQLITE_MERGE, tables));
  runSteps(
    db,
    statementCache(db),
    toScript([
      ...collapseSteps(SQLITE_MERGE, tables, false),
      ...fileTextSteps(SQLITE_MERGE, tables, true),
    ]),
  );
  return toScript(
    mergeSteps(SQLITE_MERGE, tables, file, {
      collapsed: true,
      winners: 0,
      pruneBeforeMs: file.ingestedAt,
      changesBeforeMs: file.ingestedAt,
      lateIndexes: null,
      lateTextIndexes: null,
    }),
  );
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
  private readonly spanInsert: RowInsert;
  private readonly staged = new StagedProgrammes();
  private readonly stagedChannels = new Set<string>();
  /** Staged rows replaced by a later one with the same id, once the file is read. */
  private losers = 0;
  /** The staged programmes left once repeats are collapsed (losers known after prepareMerge). */
  private get winners(): number {
    return this.staged.count - this.losers;
  }
  private closed = false;
  private prepared = false;

  constructor(
    private readonly runner: StagingRunner,
    private readonly tables: StagedTableNames,
    /** The schema of the catalogue on the runner's connection. */
    private readonly schema: string,
    /**
     * The staging tables made: awaited before the session waits on the runner's scripts, so
     * their failure is the one reported (rows sent before it are run after it, in order).
     */
    private readonly ready: Promise<void>,
  ) {
    this.programmeInsert = rowInsertFor(tables.programmes, STAGED_TABLES.programmes);
    this.channelInsert = rowInsertFor(tables.channels, STAGED_TABLES.channels);
    this.candidateInsert = rowInsertFor(tables.candidates, STAGED_TABLES.candidates);
    this.spanInsert = rowInsertFor(tables.spans, STAGED_TABLES.spans);
    this.programmes = new RowPacker(this.programmeInsert.columns, PROGRAMME_BATCH_ROWS);
    this.channels = new RowPacker(this.channelInsert.columns, CHANNEL_BATCH_ROWS);
    this.candidates = new RowPacker(this.candidateInsert.columns, CANDIDATE_BATCH_ROWS);
  }

  stageChannel(c: ChannelRecord): void {
    this.assertOpen();
    writeStagedChannel(this.channels, c);
    this.stagedChannels.add(c.id);
    if (this.channels.endRow()) this.flushChannels();
  }

  stageProgramme(p: ProgrammeRecord): void {
    this.assertOpen();
    this.staged.add(p, this.addCandidate, this.writeProgramme);
    // Flushed only between rows: a row may add two candidates.
    if (this.candidates.rows >= CANDIDATE_BATCH_ROWS - 2) this.flushCandidates();
  }

  async drain(): Promise<void> {
    this.assertOpen();
    this.flush();
    try {
      // Not after `ready`: a small file is read whole while the staging thread starts.
      await this.runner.drain();
    } catch (error) {
      // Rows fail when their tables were not made: that failure is the one to report.
      await this.ready;
      throw error;
    }
  }

  async analyse({ maxSamples, countOverlaps }: AnalyseOptions): Promise<StagingStats> {
    this.assertOpen();
    this.flushLast();
    await this.ready;
    await this.prepareMerge();
    const steps = analyseSteps(SQLITE_MERGE, this.tables, {
      collapsed: this.staged.flagged > 0,
      maxSamples,
      countOverlaps,
    });
    const results =
      steps.length === 0 ? [] : await this.runner.script(toScript(steps), 'transaction');
    return stagingStats(steps, results, this.winners);
  }

  async commit(file: SourceFileRecord, options: CommitOptions = {}): Promise<MergeStats> {
    this.assertOpen();
    this.flushLast();
    // The staging connection does not check foreign keys (see STAGING_PRAGMAS): every
    // programme's channel must be staged (and so inserted) with the programme.
    for (const channelId of this.staged.spans.keys()) {
      if (!this.stagedChannels.has(channelId)) {
        await this.abort();
        throw new Error(`programmes were staged for channel ${channelId}, which was not staged`);
      }
    }
    try {
      await this.ready;
      await this.prepareMerge();
      const steps = mergeSteps(
        SQLITE_MERGE,
        this.tables,
        file,
        mergeStepOptions(
          file,
          options,
          this.staged.flagged > 0,
          this.winners,
          // Read only when they may be used: one round trip less for a small file.
          mayBuildIndexesLate(this.winners) ? await this.lateIndexes() : null,
        ),
      );
      // The whole merge is one script: one round trip to the staging thread, one BEGIN IMMEDIATE.
      const results = await this.runner.script(toScript(steps), 'immediate');
      return mergeStats(steps, results, this.winners);
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

  /** The catalogue's late indexes (see LateIndexes), read before the merge's transaction. */
  private async lateIndexes(): Promise<LateIndexes | null> {
    const [read] = await this.runner.script(
      [{ kind: 'all', sql: lateIndexesQuery(this.schema) }],
      'plain',
    );
    return read?.kind === 'all' ? sqliteLateIndexes(this.schema, read.rows) : null;
  }

  /**
   * Stages each channel's span, collapses repeated ids and makes the file's search texts
   * distinct, once, after the last row: temp-only work, before the merge's lock.
   */
  private async prepareMerge(): Promise<void> {
    if (this.prepared) return;
    this.prepared = true;
    const spans = new RowPacker(this.spanInsert.columns, this.staged.spans.size);
    for (const [channelId, span] of this.staged.spans) {
      writeStagedSpan(spans, channelId, span.earliestMs, needsOpenStops(span));
      spans.endRow();
    }
    // The worker runs messages in order, so the scripts below see these rows.
    this.runner.insertRows(this.spanInsert, spans.take());
    const collapsed = this.staged.flagged > 0;
    if (collapsed) this.flushCandidates();
    // One script, one round trip to the staging thread: the collapse (when rows repeat), then
    // the file's distinct texts from what it left.
    const steps = [
      ...(collapsed ? collapseSteps(SQLITE_MERGE, this.tables, this.staged.adjacent) : []),
      ...(this.staged.needsOpenStopStep ? openStopSteps(SQLITE_MERGE, this.tables, collapsed) : []),
      ...fileTextSteps(SQLITE_MERGE, this.tables, collapsed),
    ];
    const results = await this.runner.script(toScript(steps), 'transaction');
    this.losers = collapsedLosers(steps, results);
  }

  private async release(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const made = await this.ready.then(
      () => true,
      () => false,
    );
    try {
      if (made) await this.runner.script([{ kind: 'exec', sql: dropSql(this.tables) }], 'plain');
    } finally {
      await this.runner.close();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('this ingest session has been committed or aborted');
  }

  /** Once the file is read: flush, the programmes held for their stop too (see add). */
  private flushLast(): void {
    this.staged.releaseHeld(this.writeProgramme);
    this.flush();
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

  private readonly writeProgramme = (seq: number, p: ProgrammeRecord): void => {
    writeStagedProgramme(this.programmes, seq, p);
    if (this.programmes.endRow()) this.flushProgrammes();
  };

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
      // The store's own connection holds the catalogue beside the accounts; a staging
      // connection opens the catalogue file alone.
      let schema = 'main';
      if (isInMemory(db, path)) {
        runner = createInThreadRunner(db, false);
        schema = CATALOGUE_SCHEMA;
      } else if (options.staging === 'in-thread') {
        runner = createInThreadRunner(openStagingConnection(path), true);
      } else {
        runner = createWorkerRunner(cataloguePathFor(path), STAGING_PRAGMAS);
      }
      const tables = SQLITE_MERGE.stagedTableNames();
      // Not awaited here: the file is read while the staging thread starts (0.1-0.2 s of
      // loading its modules and opening the file, most of a small guide's ingest: `hyperfine
      // 'bin/onair ingest SMALL.xml'`); the session awaits it before it waits on the thread.
      const ready = runner
        .script([{ kind: 'exec', sql: createStagedTablesSql(SQLITE_MERGE, tables) }], 'plain')
        .then(() => undefined);
      // Handled here so that a failure is not an unhandled rejection before the session
      // awaits it; awaiting `ready` still throws it.
      ready.catch(() => undefined);
      return new SqliteIngestSession(runner, tables, schema, ready);
    },
  };
}
