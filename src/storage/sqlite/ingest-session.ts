import Database from 'better-sqlite3';
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
} from '../types.js';
import { toDuplicateSample } from '../rows.js';
import { DAY_MS } from '../../domain/schedule-window.js';
import { foldForSearch, nameSortKey } from '../../domain/search-folding.js';
import type { SqliteDatabase } from './database.js';
import {
  createInThreadRunner,
  type RowInsert,
  type SqlStep,
  type SqlStepResult,
  type SqlValue,
  type StagingRunner,
} from './staging-runner.js';
import { createWorkerRunner } from './staging-worker.js';

/** Programme rows buffered in JS before one batched insert into the staging table. */
const PROGRAMME_BATCH_ROWS = 2048;
const CHANNEL_BATCH_ROWS = 512;

/**
 * Names of one session's temp tables, unique per session because the `:memory:` fallback
 * stages on the store's own connection, which several sessions may share.
 */
interface StagingNames {
  /** Staged programmes, in file order (rowid `seq`). */
  programmes: string;
  channels: string;
  /** Ids staged more than once. */
  duplicateIds: string;
  /** Every row of a duplicated id, compared with the occurrence before it. */
  repeats: string;
  /** Rows replaced by a later one with the same id (all but the last of each id). */
  losers: string;
  /** Each channel's earliest parseable start in the file (NULL when none parses). */
  spans: string;
  byId: string;
}

let sessionCount = 0;

function stagingNames(): StagingNames {
  const p = `onair_stage_${++sessionCount}`;
  return {
    programmes: `${p}_programmes`,
    channels: `${p}_channels`,
    duplicateIds: `${p}_duplicate_ids`,
    repeats: `${p}_repeats`,
    losers: `${p}_losers`,
    spans: `${p}_spans`,
    byId: `${p}_programmes_by_id`,
  };
}

function createTablesSql(t: StagingNames): string {
  // Append-only with no index while staging: a unique index on the random ids made staging
  // three times slower; duplicates are found once, after the file is read (prepareMergeSql).
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
    );`;
}

function programmeInsert(t: StagingNames): RowInsert {
  return {
    head: `INSERT INTO ${t.programmes} (id, channel_id, start, stop, start_ms, stop_ms, title,
      description, category, needs_review, line)`,
    columns: 11,
    tail: '',
  };
}

function channelInsert(t: StagingNames): RowInsert {
  return {
    head: `INSERT INTO ${t.channels} (id, xmltv_id, name, name_key, name_folded, icon, country,
      fallback_country, declared)`,
    columns: 9,
    // The pipeline stages each channel once; should one come twice, the first is kept.
    tail: 'ON CONFLICT (id) DO NOTHING',
  };
}

/**
 * Temp-only work done once the file is read: indexes, the collapse of same (channel, start)
 * (same id) keeping the last in file order, and each channel's earliest start. Touches no
 * catalogue table, so it holds no lock on it.
 */
function prepareMergeSql(t: StagingNames): string {
  return `
    CREATE INDEX temp.${t.byId} ON ${t.programmes} (id);
    CREATE TEMP TABLE ${t.duplicateIds} AS
      SELECT id FROM ${t.programmes} GROUP BY id HAVING count(*) > 1;
    CREATE TEMP TABLE ${t.repeats} AS
      SELECT seq, id, channel_id, start, line,
        row_number() OVER w AS nth,
        count(*) OVER (PARTITION BY id) AS n,
        (stop IS lag(stop) OVER w AND title IS lag(title) OVER w
          AND description IS lag(description) OVER w AND category IS lag(category) OVER w) AS same
      FROM ${t.programmes} WHERE id IN (SELECT id FROM ${t.duplicateIds})
      WINDOW w AS (PARTITION BY id ORDER BY seq);
    CREATE TEMP TABLE ${t.losers} (seq INTEGER PRIMARY KEY);
    INSERT INTO ${t.losers} SELECT seq FROM ${t.repeats} WHERE nth < n;
    CREATE TEMP TABLE ${t.spans} AS
      SELECT channel_id, min(start_ms) AS min_start FROM ${t.programmes} GROUP BY channel_id;`;
}

/** The staged programmes that survive the collapse. */
function winners(t: StagingNames): string {
  return `seq NOT IN (SELECT seq FROM ${t.losers})`;
}

function analyseSteps(t: StagingNames, maxSamples: number, countOverlaps: boolean): SqlStep[] {
  const overlaps: SqlStep = countOverlaps
    ? {
        // Consecutive programmes of a channel in start order.
        kind: 'get',
        sql: `SELECT count(*) AS overlaps FROM (
            SELECT start_ms, lag(stop_ms) OVER (PARTITION BY channel_id ORDER BY start_ms) AS prev
            FROM ${t.programmes} WHERE start_ms IS NOT NULL AND ${winners(t)})
          WHERE prev > start_ms`,
      }
    : { kind: 'get', sql: 'SELECT NULL AS overlaps' };
  return [
    {
      kind: 'get',
      sql: `SELECT
          (SELECT count(*) FROM ${t.programmes}) - (SELECT count(*) FROM ${t.losers}) AS programmes,
          (SELECT count(*) FROM ${t.duplicateIds}) AS slots,
          (SELECT coalesce(sum(nth > 1 AND same), 0) FROM ${t.repeats}) AS exact,
          (SELECT coalesce(sum(nth > 1 AND NOT same), 0) FROM ${t.repeats}) AS conflicting`,
    },
    overlaps,
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

const PROGRAMME_CHANGED = `programmes.channel_id IS NOT excluded.channel_id
  OR programmes.start IS NOT excluded.start OR programmes.stop IS NOT excluded.stop
  OR programmes.start_ms IS NOT excluded.start_ms OR programmes.stop_ms IS NOT excluded.stop_ms
  OR programmes.title IS NOT excluded.title OR programmes.description IS NOT excluded.description
  OR programmes.category IS NOT excluded.category
  OR programmes.needs_review IS NOT excluded.needs_review`;

/**
 * The merge, in order (one BEGIN IMMEDIATE transaction): source file row (programmes refer to
 * it), channels updated then added, programmes of the file's channels from each channel's
 * earliest start onwards that the file no longer has removed, staged programmes counted and
 * upserted (unchanged rows are left alone, keeping `updated_at` and `source_file_id`), pruning.
 */
function commitSteps(
  t: StagingNames,
  file: SourceFileRecord,
  pruneBeforeMs: number | null,
): Record<string, SqlStep> {
  const now = file.ingestedAt;
  const steps: Record<string, SqlStep> = {
    sourceFile: {
      kind: 'run',
      sql: `INSERT INTO source_files (id, source, country, size_bytes, sha256, ingested_at, summary)
        VALUES (?, ?, ?, ?, ?, ?, ?)`,
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
    updateChannels: {
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
    insertChannels: {
      kind: 'run',
      sql: `INSERT INTO channels (id, xmltv_id, name, name_key, name_folded, icon, country,
          needs_review, created_at, updated_at)
        SELECT id, xmltv_id, name, name_key, name_folded, icon, coalesce(country, fallback_country),
          country IS NULL, ?, ?
        FROM ${t.channels} AS s
        WHERE NOT EXISTS (SELECT 1 FROM channels AS c WHERE c.id = s.id)`,
      params: [now, now],
    },
    removeParsed: {
      kind: 'run',
      sql: `DELETE FROM programmes WHERE rowid IN (
          SELECT p.rowid FROM ${t.spans} AS s
          JOIN programmes AS p ON p.channel_id = s.channel_id AND p.start_ms >= s.min_start
          WHERE NOT EXISTS (SELECT 1 FROM ${t.programmes} AS f WHERE f.id = p.id))`,
    },
    removeUnparsed: {
      kind: 'run',
      sql: `DELETE FROM programmes WHERE rowid IN (
          SELECT p.rowid FROM ${t.spans} AS s
          JOIN programmes AS p ON p.channel_id = s.channel_id AND p.start_ms IS NULL
          WHERE NOT EXISTS (SELECT 1 FROM ${t.programmes} AS f WHERE f.id = p.id))`,
    },
    countAdded: {
      kind: 'get',
      sql: `SELECT count(*) AS added FROM ${t.programmes} AS f
        WHERE ${winners(t)} AND NOT EXISTS (SELECT 1 FROM programmes AS p WHERE p.id = f.id)`,
    },
    upsert: {
      kind: 'run',
      sql: `INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms, title,
          description, category, needs_review, source_file_id, updated_at)
        SELECT id, channel_id, start, stop, start_ms, stop_ms, title, description, category,
          needs_review, ?, ?
        FROM ${t.programmes} WHERE ${winners(t)}
        ON CONFLICT (id) DO UPDATE SET
          channel_id = excluded.channel_id, start = excluded.start, stop = excluded.stop,
          start_ms = excluded.start_ms, stop_ms = excluded.stop_ms, title = excluded.title,
          description = excluded.description, category = excluded.category,
          needs_review = excluded.needs_review, source_file_id = excluded.source_file_id,
          updated_at = excluded.updated_at
        WHERE ${PROGRAMME_CHANGED}`,
      params: [file.id, now],
    },
    staged: {
      kind: 'get',
      sql: `SELECT (SELECT count(*) FROM ${t.programmes}) - (SELECT count(*) FROM ${t.losers})
        AS staged`,
    },
  };
  if (pruneBeforeMs !== null) {
    steps['prune'] = {
      kind: 'run',
      sql: 'DELETE FROM programmes WHERE start_ms < ?',
      params: [pruneBeforeMs],
    };
  }
  return steps;
}

function dropSql(t: StagingNames): string {
  return [t.programmes, t.channels, t.duplicateIds, t.repeats, t.losers, t.spans]
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
 * One ingest over SQLite: rows are staged in TEMP tables of the runner's connection (a second
 * connection to the same file, so staging holds no lock on the catalogue and readers see
 * nothing of it) in batched transactions, then merged in one BEGIN IMMEDIATE transaction.
 */
class SqliteIngestSession implements IngestSession {
  private programmeValues: SqlValue[] = [];
  private programmeRows = 0;
  private channelValues: SqlValue[] = [];
  private channelRows = 0;
  private closed = false;
  private prepared = false;
  private readonly programmeInsert: RowInsert;
  private readonly channelInsert: RowInsert;

  constructor(
    private readonly runner: StagingRunner,
    private readonly tables: StagingNames,
  ) {
    this.programmeInsert = programmeInsert(tables);
    this.channelInsert = channelInsert(tables);
  }

  stageChannel(c: ChannelRecord): void {
    this.assertOpen();
    this.channelValues.push(
      c.id,
      c.xmltvId,
      c.name,
      nameSortKey(c.name),
      foldForSearch(c.name),
      c.icon,
      c.country,
      c.fallbackCountry,
      c.declared ? 1 : 0,
    );
    if (++this.channelRows >= CHANNEL_BATCH_ROWS) this.flushChannels();
  }

  stageProgramme(p: ProgrammeRecord): void {
    this.assertOpen();
    this.programmeValues.push(
      p.id,
      p.channelId,
      p.start,
      p.stop,
      p.startMs,
      p.stopMs,
      p.title,
      p.desc,
      p.category,
      p.needsReview ? 1 : 0,
      p.line,
    );
    if (++this.programmeRows >= PROGRAMME_BATCH_ROWS) this.flushProgrammes();
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
    const [totals, overlaps, samples] = await this.runner.script(
      analyseSteps(this.tables, maxSamples, countOverlaps),
      'transaction',
    );
    const rows = samples?.kind === 'all' ? samples.rows : [];
    return {
      programmes: field(totals, 'programmes'),
      exactDuplicates: field(totals, 'exact'),
      conflictingDuplicates: field(totals, 'conflicting'),
      duplicateSlots: field(totals, 'slots'),
      overlaps: countOverlaps ? field(overlaps, 'overlaps') : null,
      duplicateSamples: rows.map(toDuplicateSample),
    };
  }

  async commit(file: SourceFileRecord, options: CommitOptions = {}): Promise<MergeStats> {
    this.assertOpen();
    this.flush();
    const retention = options.retentionDays ?? null;
    const pruneBefore = retention === null ? null : file.ingestedAt - retention * DAY_MS;
    try {
      await this.prepareMerge();
      const steps = commitSteps(this.tables, file, pruneBefore);
      const labels = Object.keys(steps);
      const results = await this.runner.script(Object.values(steps), 'immediate');
      const r = (label: string) => results[labels.indexOf(label)];
      const programmesAdded = field(r('countAdded'), 'added');
      const programmesUpdated = changes(r('upsert')) - programmesAdded;
      return {
        channelsAdded: changes(r('insertChannels')),
        channelsUpdated: changes(r('updateChannels')),
        programmesAdded,
        programmesUpdated,
        programmesUnchanged: field(r('staged'), 'staged') - programmesAdded - programmesUpdated,
        programmesRemoved: changes(r('removeParsed')) + changes(r('removeUnparsed')),
        programmesPruned: changes(r('prune')),
      };
    } finally {
      await this.release();
    }
  }

  async abort(): Promise<void> {
    if (this.closed) return;
    this.programmeValues = [];
    this.channelValues = [];
    await this.release();
  }

  private async prepareMerge(): Promise<void> {
    if (this.prepared) return;
    this.prepared = true;
    await this.runner.script([{ kind: 'exec', sql: prepareMergeSql(this.tables) }], 'transaction');
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
  }

  private flushProgrammes(): void {
    if (this.programmeRows === 0) return;
    const values = this.programmeValues;
    const rows = this.programmeRows;
    this.programmeValues = [];
    this.programmeRows = 0;
    this.runner.insertRows(this.programmeInsert, values, rows);
  }

  private flushChannels(): void {
    if (this.channelRows === 0) return;
    const values = this.channelValues;
    const rows = this.channelRows;
    this.channelValues = [];
    this.channelRows = 0;
    this.runner.insertRows(this.channelInsert, values, rows);
  }
}

/**
 * Settings of the staging connection: wait for other writers rather than fail, and big page
 * caches. Staged rows spill to a temp file rather than memory, so a 1 GB guide keeps RSS flat.
 */
const STAGING_PRAGMAS = [
  'busy_timeout = 10000',
  'foreign_keys = ON',
  'synchronous = NORMAL',
  'temp_store = FILE',
  'cache_size = -65536',
  'temp.cache_size = -16384',
];

function openStagingConnection(path: string): SqliteDatabase {
  const conn = new Database(path, { fileMustExist: true });
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
 * The SQLite CatalogueWriter. Each ingest stages on its own connection to `path` (a database
 * in memory cannot be opened twice, so there the store's connection is used).
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
        runner = createWorkerRunner(path, STAGING_PRAGMAS);
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
