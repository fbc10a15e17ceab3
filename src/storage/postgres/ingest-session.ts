import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';
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
  createStagedTablesSql,
  fileTextSteps,
  openStopSteps,
  mergeStats,
  mayBuildIndexesLate,
  mergeSteps,
  mergeStepOptions,
  onlyIfHolds,
  stagingStats,
  type LateIndexes,
  type LateTextIndexes,
  type MergeStep,
  type MergeStepResult,
} from '../ingest-merge/merge-steps.js';
import {
  STAGED_TABLES,
  stagedInsert,
  valueKind,
  writeStagedChannel,
  writeStagedProgramme,
  writeStagedSpan,
  type StagedRowSink,
} from '../ingest-merge/staged-tables.js';
import { RowPacker } from '../packed-rows.js';
import { StagedProgrammes, needsOpenStops } from '../staged-programmes.js';
import { createCopyEncoder } from './copy-encoder.js';
import type { CopyShape } from './copy-text.js';
import {
  LATE_INDEXES_QUERY,
  POSTGRES_MERGE,
  postgresLateIndexes,
  postgresLateTextIndexes,
  unnestInsertFor,
} from './postgres-merge-dialect.js';

/** Rows sent to PostgreSQL per staging statement (one `unnest` of column arrays each). */
const CHANNEL_BATCH_ROWS = 1_000;
/**
 * Programmes gathered before they go to the COPY encoder (about 256 KB of COPY text for the
 * guides of bench/INGEST.md): enough that a message's and a write's overhead is spread over
 * hundreds of rows.
 */
const COPY_BATCH_ROWS = 512;
/** Batches of programmes the reader may run ahead of (about 1 MB of COPY text). */
const MAX_BATCHES_IN_FLIGHT = 4;

const TABLES = POSTGRES_MERGE.stagedTableNames();

// Staging lives in TEMP tables of the ingest's own connection, inside the one transaction
// that also merges: readers see the old catalogue until COMMIT, and a failure rolls it all back.
const CREATE_STAGING = createStagedTablesSql(POSTGRES_MERGE, TABLES);

/**
 * The ingest's transaction runs without JIT compilation. The staged tables have no statistics
 * when the merge's statements are planned, so their estimated costs pass the thresholds at
 * which PostgreSQL compiles expressions with LLVM, and for these statements the compile cost
 * more than it saved: giving the file's texts their ids, 11,309 rows, took 0.25-0.30 s with
 * JIT and 0.04-0.09 s without (the bench guide, per-statement `log_min_duration_statement` of
 * `node bench/ingest.mjs --child postgres FILE`, bench/INGEST.md). The connections that serve
 * requests run without it too (poolSettings in database.ts); this one is the ingest's own.
 */
const INGEST_SETTINGS = 'SET LOCAL jit = off;';

// Programmes, nearly all of a file's rows, are streamed in with COPY as the file is read: 5.6 s
// of a 26 s ingest of the 92 MB guide were the `unnest` inserts that staged them before.
const PROGRAMMES_INSERT = stagedInsert(STAGED_TABLES.programmes);
const COPY_PROGRAMMES = `COPY ${TABLES.programmes} (${PROGRAMMES_INSERT.columnNames.join(', ')}) FROM STDIN`;
/** The programmes' values as the session packs them, and what the encoder makes of them. */
const PROGRAMME_COPY: CopyShape = {
  columns: PROGRAMMES_INSERT.written.map(valueKind),
  made: PROGRAMMES_INSERT.made,
};
const INSERT_CHANNELS = unnestInsertFor(TABLES.channels, STAGED_TABLES.channels);
const INSERT_CANDIDATES = unnestInsertFor(TABLES.candidates, STAGED_TABLES.candidates);
const INSERT_SPANS = unnestInsertFor(TABLES.spans, STAGED_TABLES.spans);

/** A batch of staged rows as column arrays, the parameters of one `unnest` insert. */
class ColumnBatch implements StagedRowSink {
  rows = 0;
  columns: unknown[][];
  private at = 0;

  constructor(private readonly width: number) {
    this.columns = emptyColumns(width);
  }

  text(value: string): void {
    this.columns[this.at++]?.push(value);
  }

  nullableText(value: string | null): void {
    this.columns[this.at++]?.push(value);
  }

  number(value: number | null): void {
    this.columns[this.at++]?.push(value);
  }

  /** Ends a row; returns the rows in the batch. */
  endRow(): number {
    this.at = 0;
    return ++this.rows;
  }

  /** The batch's columns, and an empty batch. */
  take(): unknown[][] {
    const columns = this.columns;
    this.columns = emptyColumns(this.width);
    this.rows = 0;
    this.at = 0;
    return columns;
  }
}

function emptyColumns(n: number): unknown[][] {
  return Array.from({ length: n }, () => []);
}

/** Runs merge steps one by one on `client`, skipping those whose `onlyIf` does not hold. */
async function runSteps(
  client: pg.Client,
  steps: readonly MergeStep[],
): Promise<MergeStepResult[]> {
  const results: MergeStepResult[] = [];
  for (const step of steps) {
    if (!onlyIfHolds(step, steps, results)) {
      results.push({ kind: 'skipped' });
    } else if (step.kind === 'exec') {
      // Several statements, no parameters: the simple query protocol.
      await client.query(step.sql);
      results.push({ kind: 'exec' });
    } else {
      const { rows, rowCount } = await client.query<Record<string, unknown>>(step.sql, [
        ...(step.params ?? []),
      ]);
      if (step.kind === 'run') results.push({ kind: 'run', changes: rowCount ?? 0 });
      else if (step.kind === 'get') results.push({ kind: 'get', row: rows[0] });
      else results.push({ kind: 'all', rows });
    }
  }
  return results;
}

/**
 * One ingest over PostgreSQL: its own connection, one transaction from first row to COMMIT.
 * What the merge needs to know of the file as a whole is gathered as rows go by
 * (StagedProgrammes), as in the SQLite session.
 */
class PostgresIngestSession implements IngestSession {
  // The programmes' staged values, packed for the encoder, which makes their ids and search texts.
  private readonly programmes = new RowPacker(PROGRAMME_COPY.columns, COPY_BATCH_ROWS);
  private readonly encoder = createCopyEncoder(PROGRAMME_COPY);
  /** The COPY of the programmes, opened with the first chunk and ended before the merge. */
  private copy: CopyStreamQuery | null = null;
  /**
   * Set with the first chunk, before the COPY opens (the statements run in turn): from then on
   * no other statement may be sent until it ends, or it would wait behind the COPY for good.
   */
  private copying = false;
  private readonly channels = new ColumnBatch(STAGED_TABLES.channels.columns.length);
  private readonly candidates = new ColumnBatch(STAGED_TABLES.candidates.columns.length);
  private readonly staged = new StagedProgrammes();
  /** Staged rows replaced by a later one with the same id, once the file is read. */
  private losers = 0;
  /** The staged programmes left once repeats are collapsed (losers known after prepareMerge). */
  private get winners(): number {
    return this.staged.count - this.losers;
  }
  /** Staging statements run one after another; a failure is kept and rethrown. */
  private pending: Promise<void> = Promise.resolve();
  /** The programmes' batches on their way, oldest first: each one's end in `pending`. */
  private readonly inFlight: Promise<void>[] = [];
  private failure: unknown = null;
  private prepared = false;
  private closed = false;

  constructor(private readonly client: pg.Client) {}

  stageChannel(c: ChannelRecord): void {
    this.assertOpen();
    writeStagedChannel(this.channels, c);
    // While the programmes' COPY holds the connection, channels wait for its end.
    if (this.channels.endRow() >= CHANNEL_BATCH_ROWS && !this.copying) this.flushChannels();
  }

  stageProgramme(p: ProgrammeRecord): void {
    this.assertOpen();
    this.staged.add(p, this.addCandidate, this.writeProgramme);
  }

  /**
   * Lets the reader go on while at most MAX_BATCHES_IN_FLIGHT batches of programmes are being
   * encoded or written, so the encoder works beside the parser (waiting for every batch after
   * each input chunk kept them taking turns).
   */
  async drain(): Promise<void> {
    this.assertOpen();
    this.flush();
    while (this.inFlight.length > MAX_BATCHES_IN_FLIGHT) await this.inFlight.shift();
    if (this.failure !== null) throw this.failure;
  }

  /** Stages everything gathered, the programmes held for their stop too, and waits. */
  private async stageAll(): Promise<void> {
    this.assertOpen();
    this.staged.releaseHeld(this.writeProgramme);
    this.flush();
    this.inFlight.length = 0;
    await this.settled();
  }

  async analyse({ maxSamples, countOverlaps }: AnalyseOptions): Promise<StagingStats> {
    await this.stageAll();
    await this.prepareMerge();
    const steps = analyseSteps(POSTGRES_MERGE, TABLES, {
      collapsed: this.staged.flagged > 0,
      maxSamples,
      countOverlaps,
    });
    const results = await runSteps(this.client, steps);
    return stagingStats(steps, results, this.winners);
  }

  /** The merge (merge-steps.ts), its statements one by one in the session's transaction. */
  async commit(file: SourceFileRecord, options: CommitOptions = {}): Promise<MergeStats> {
    this.assertOpen();
    try {
      await this.stageAll();
      await this.prepareMerge();
      // Read only when they may be used: one round trip less for a small file.
      const late = mayBuildIndexesLate(this.winners) ? await this.lateIndexes() : null;
      const steps = mergeSteps(
        POSTGRES_MERGE,
        TABLES,
        file,
        mergeStepOptions(
          file,
          options,
          this.staged.flagged > 0,
          this.winners,
          late?.programmes ?? null,
          late?.texts ?? null,
        ),
      );
      const results = await runSteps(this.client, steps);
      // GIN adds the new search texts' words to a pending list that every search then reads
      // through, unsorted, until autovacuum merges it (364 pages, 1.5 ms of a 0.2 ms rare-word
      // search after the bench catalogue's migration): merged now, in bulk, in the same
      // transaction, so searches after an ingest are as fast as before it.
      await this.client.query(`SELECT gin_clean_pending_list('search_texts_words'::regclass)`);
      await this.client.query('COMMIT');
      return mergeStats(steps, results, this.winners);
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      await this.release();
    }
  }

  async abort(): Promise<void> {
    if (this.closed) return;
    this.programmes.take();
    this.channels.take();
    this.candidates.take();
    await this.pending.catch(() => {});
    // A COPY in progress is failed (CopyFail) before the connection can roll back.
    this.copy?.destroy(new Error('ingest aborted'));
    await this.client.query('ROLLBACK').catch(() => {});
    await this.release();
  }

  private readonly writeProgramme = (seq: number, p: ProgrammeRecord): void => {
    writeStagedProgramme(this.programmes, seq, p);
    if (this.programmes.endRow()) this.flushProgrammes();
  };

  private readonly addCandidate = (seq: number): void => {
    this.candidates.number(seq);
    this.candidates.endRow();
  };

  /**
   * Ends the programmes' COPY (the last rows staged), stages the rows that waited for it, each
   * channel's span, collapses repeated ids and makes the file's search texts distinct: once,
   * after the last row, before the merge's first lock.
   */
  private async prepareMerge(): Promise<void> {
    if (this.prepared) return;
    this.prepared = true;
    if (this.copying) {
      await this.settled();
      const copy = this.copy;
      this.copying = false;
      this.copy = null;
      if (copy !== null) {
        copy.end();
        await finished(copy);
      }
      this.flush();
      await this.settled();
    }
    const spans = new ColumnBatch(STAGED_TABLES.spans.columns.length);
    for (const [channelId, span] of this.staged.spans) {
      writeStagedSpan(spans, channelId, span.earliestMs, needsOpenStops(span));
      spans.endRow();
    }
    await this.client.query(INSERT_SPANS, spans.take());
    const collapsed = this.staged.flagged > 0;
    const steps = [
      ...(collapsed ? collapseSteps(POSTGRES_MERGE, TABLES, this.staged.adjacent) : []),
      ...(this.staged.needsOpenStopStep ? openStopSteps(POSTGRES_MERGE, TABLES, collapsed) : []),
      ...fileTextSteps(POSTGRES_MERGE, TABLES, collapsed),
    ];
    this.losers = collapsedLosers(steps, await runSteps(this.client, steps));
  }

  /** The catalogue's late indexes, of its programmes and of its texts (see LateIndexes). */
  private async lateIndexes(): Promise<{
    programmes: LateIndexes | null;
    texts: LateTextIndexes | null;
  }> {
    const { rows } = await this.client.query<Record<string, unknown>>(LATE_INDEXES_QUERY);
    return { programmes: postgresLateIndexes(rows), texts: postgresLateTextIndexes(rows) };
  }

  private async settled(): Promise<void> {
    await this.pending;
    if (this.failure !== null) throw this.failure;
  }

  private async release(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.encoder.close();
    await this.client.end().catch(() => {});
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('this ingest session has been committed or aborted');
  }

  /** Sends what is gathered: programmes to their COPY; the others once it has ended. */
  private flush(): void {
    this.flushProgrammes();
    if (this.copying) return;
    this.flushChannels();
    this.flushCandidates();
  }

  private send(sql: string, batch: ColumnBatch): void {
    if (batch.rows === 0) return;
    const columns = batch.take();
    this.pending = this.pending.then(async () => {
      if (this.failure !== null) return;
      try {
        await this.client.query(sql, columns);
      } catch (error) {
        this.failure = error;
      }
    });
  }

  /**
   * Hands the gathered programmes to the encoder at once, and writes their COPY text in turn,
   * opening the COPY with the first batch; the next statement waits until the connection has
   * taken them, and `drain` until few batches are left (so memory stays bounded).
   */
  private flushProgrammes(): void {
    if (this.programmes.rows === 0) return;
    const encoded = this.encoder.encode(this.programmes.take());
    // Its failure is kept in turn below; until then it is not an unhandled rejection.
    encoded.catch(() => {});
    this.copying = true;
    this.pending = this.pending.then(async () => {
      if (this.failure !== null) return;
      try {
        const chunk = await encoded;
        if (this.copy === null) {
          this.copy = this.client.query(copyFrom(COPY_PROGRAMMES));
          // A COPY refused fails its stream: kept, and thrown at the next drain.
          this.copy.on('error', (error: unknown) => {
            this.failure ??= error;
          });
        }
        if (!this.copy.write(chunk)) await once(this.copy, 'drain');
      } catch (error) {
        this.failure = error;
      }
    });
    this.inFlight.push(this.pending);
  }

  private flushChannels(): void {
    this.send(INSERT_CHANNELS, this.channels);
  }

  private flushCandidates(): void {
    this.send(INSERT_CANDIDATES, this.candidates);
  }
}

/**
 * The PostgreSQL CatalogueWriter: each ingest opens its own connection (no statement timeout:
 * a big merge may take a while) and works in one transaction.
 */
export function createPostgresCatalogueWriter(connect: () => Promise<pg.Client>): CatalogueWriter {
  return {
    async beginIngest() {
      const client = await connect();
      try {
        await client.query('BEGIN');
        await client.query(`${INGEST_SETTINGS}\n${CREATE_STAGING}`);
      } catch (error) {
        await client.end().catch(() => {});
        throw error;
      }
      return new PostgresIngestSession(client);
    },
  };
}
