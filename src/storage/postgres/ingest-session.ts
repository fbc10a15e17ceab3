import type pg from 'pg';
import { DAY_MS } from '../../domain/schedule-window.js';
import { foldForSearch, nameSortKey } from '../../domain/search-folding.js';
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

/** Rows sent to PostgreSQL per staging statement (one `unnest` of column arrays each). */
const PROGRAMME_BATCH_ROWS = 5_000;
const CHANNEL_BATCH_ROWS = 1_000;

// Staging lives in TEMP tables of the ingest's own connection, inside the one transaction
// that also merges: readers see the old catalogue until COMMIT, and a failure rolls it all back.
const CREATE_STAGING = `
  CREATE TEMP TABLE stage_programmes (
    seq BIGINT NOT NULL,
    id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    start TEXT NOT NULL,
    stop TEXT NOT NULL,
    start_ms BIGINT,
    stop_ms BIGINT,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    category TEXT NOT NULL,
    needs_review BOOLEAN NOT NULL,
    line INTEGER NOT NULL
  ) ON COMMIT DROP;
  CREATE TEMP TABLE stage_channels (
    id TEXT PRIMARY KEY,
    xmltv_id TEXT NOT NULL,
    name TEXT NOT NULL,
    name_key TEXT COLLATE "C" NOT NULL,
    name_folded TEXT NOT NULL,
    icon TEXT NOT NULL,
    country TEXT,
    fallback_country TEXT NOT NULL,
    declared BOOLEAN NOT NULL
  ) ON COMMIT DROP;`;

const INSERT_PROGRAMMES = `INSERT INTO stage_programmes (seq, id, channel_id, start, stop,
    start_ms, stop_ms, title, description, category, needs_review, line)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[],
    $6::bigint[], $7::bigint[], $8::text[], $9::text[], $10::text[], $11::boolean[], $12::int[])`;

const INSERT_CHANNELS = `INSERT INTO stage_channels (id, xmltv_id, name, name_key, name_folded,
    icon, country, fallback_country, declared)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
    $7::text[], $8::text[], $9::boolean[])
  ON CONFLICT (id) DO NOTHING`;

/**
 * Once the file is read: the collapse of same (channel, start) (same id) keeping the last in
 * file order, and each channel's earliest start. Touches no catalogue table.
 */
const PREPARE_MERGE = `
  CREATE INDEX ON stage_programmes (id);
  CREATE TEMP TABLE stage_duplicate_ids ON COMMIT DROP AS
    SELECT id FROM stage_programmes GROUP BY id HAVING count(*) > 1;
  CREATE TEMP TABLE stage_repeats ON COMMIT DROP AS
    SELECT seq, id, channel_id, start, line,
      row_number() OVER w AS nth,
      count(*) OVER (PARTITION BY id) AS n,
      (stop IS NOT DISTINCT FROM lag(stop) OVER w
        AND title IS NOT DISTINCT FROM lag(title) OVER w
        AND description IS NOT DISTINCT FROM lag(description) OVER w
        AND category IS NOT DISTINCT FROM lag(category) OVER w) AS same
    FROM stage_programmes WHERE id IN (SELECT id FROM stage_duplicate_ids)
    WINDOW w AS (PARTITION BY id ORDER BY seq);
  CREATE TEMP TABLE stage_losers (seq BIGINT PRIMARY KEY) ON COMMIT DROP;
  INSERT INTO stage_losers SELECT seq FROM stage_repeats WHERE nth < n;
  CREATE TEMP TABLE stage_spans ON COMMIT DROP AS
    SELECT channel_id, min(start_ms) AS min_start FROM stage_programmes GROUP BY channel_id;
  ANALYZE stage_programmes;`;

const WINNERS = 'NOT EXISTS (SELECT 1 FROM stage_losers l WHERE l.seq = f.seq)';

const PROGRAMME_CHANGED = `programmes.channel_id IS DISTINCT FROM excluded.channel_id
  OR programmes.start IS DISTINCT FROM excluded.start
  OR programmes.stop IS DISTINCT FROM excluded.stop
  OR programmes.start_ms IS DISTINCT FROM excluded.start_ms
  OR programmes.stop_ms IS DISTINCT FROM excluded.stop_ms
  OR programmes.title IS DISTINCT FROM excluded.title
  OR programmes.description IS DISTINCT FROM excluded.description
  OR programmes.category IS DISTINCT FROM excluded.category
  OR programmes.needs_review IS DISTINCT FROM excluded.needs_review`;

type Column = unknown[];

/** One ingest over PostgreSQL: its own connection, one transaction from first row to COMMIT. */
class PostgresIngestSession implements IngestSession {
  private programmes: Column[] = emptyColumns(12);
  private channels: Column[] = emptyColumns(9);
  private seq = 0;
  /** Staging statements run one after another; a failure is kept and rethrown. */
  private pending: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private prepared = false;
  private closed = false;

  constructor(private readonly client: pg.Client) {}

  stageChannel(c: ChannelRecord): void {
    this.assertOpen();
    push(this.channels, [
      c.id,
      c.xmltvId,
      c.name,
      nameSortKey(c.name),
      foldForSearch(c.name),
      c.icon,
      c.country,
      c.fallbackCountry,
      c.declared,
    ]);
    if ((this.channels[0]?.length ?? 0) >= CHANNEL_BATCH_ROWS) this.flushChannels();
  }

  stageProgramme(p: ProgrammeRecord): void {
    this.assertOpen();
    push(this.programmes, [
      ++this.seq,
      p.id,
      p.channelId,
      p.start,
      p.stop,
      p.startMs,
      p.stopMs,
      p.title,
      p.desc,
      p.category,
      p.needsReview,
      p.line,
    ]);
    if ((this.programmes[0]?.length ?? 0) >= PROGRAMME_BATCH_ROWS) this.flushProgrammes();
  }

  async drain(): Promise<void> {
    this.assertOpen();
    this.flush();
    await this.settled();
  }

  async analyse({ maxSamples, countOverlaps }: AnalyseOptions): Promise<StagingStats> {
    await this.drain();
    await this.prepareMerge();
    const totals = await this.one(`SELECT
        (SELECT count(*) FROM stage_programmes) - (SELECT count(*) FROM stage_losers) AS programmes,
        (SELECT count(*) FROM stage_duplicate_ids) AS slots,
        (SELECT count(*) FROM stage_repeats WHERE nth > 1 AND same) AS exact,
        (SELECT count(*) FROM stage_repeats WHERE nth > 1 AND NOT same) AS conflicting`);
    let overlaps: number | null = null;
    if (countOverlaps) {
      // Consecutive programmes of a channel in start order.
      const row = await this.one(`SELECT count(*) AS overlaps FROM (
          SELECT start_ms, lag(stop_ms) OVER (PARTITION BY channel_id ORDER BY start_ms) AS prev
          FROM stage_programmes f WHERE start_ms IS NOT NULL AND ${WINNERS}) AS x
        WHERE prev > start_ms`);
      overlaps = Number(row['overlaps'] ?? 0);
    }
    const samples = await this.client.query<Record<string, unknown>>(
      `SELECT min(channel_id) AS channel_id, min(start) AS start,
          max(CASE WHEN nth = 1 THEN line END) AS first_line,
          max(CASE WHEN nth = n THEN line END) AS kept_line,
          count(*) FILTER (WHERE nth > 1 AND same) AS exact,
          count(*) FILTER (WHERE nth > 1 AND NOT same) AS conflicting
        FROM stage_repeats GROUP BY id ORDER BY first_line LIMIT $1`,
      [maxSamples],
    );
    return {
      programmes: Number(totals['programmes'] ?? 0),
      exactDuplicates: Number(totals['exact'] ?? 0),
      conflictingDuplicates: Number(totals['conflicting'] ?? 0),
      duplicateSlots: Number(totals['slots'] ?? 0),
      overlaps,
      duplicateSamples: samples.rows.map(toDuplicateSample),
    };
  }

  async commit(file: SourceFileRecord, options: CommitOptions = {}): Promise<MergeStats> {
    this.assertOpen();
    try {
      await this.drain();
      await this.prepareMerge();
      const now = file.ingestedAt;
      const q = (sql: string, params: unknown[] = []) => this.client.query(sql, params);
      await q(
        `INSERT INTO source_files (id, source, country, size_bytes, sha256, ingested_at, summary)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          file.id,
          file.source,
          file.country,
          file.sizeBytes,
          file.sha256,
          file.ingestedAt,
          JSON.stringify(file.summary),
        ],
      );
      // A name or country the operator fixed (name_fixed, country_fixed) is kept.
      const updated = await q(
        `UPDATE channels SET
           name = CASE WHEN s.declared AND NOT channels.name_fixed THEN s.name
             ELSE channels.name END,
           name_key = CASE WHEN s.declared AND NOT channels.name_fixed THEN s.name_key
             ELSE channels.name_key END,
           name_folded = CASE WHEN s.declared AND NOT channels.name_fixed THEN s.name_folded
             ELSE channels.name_folded END,
           icon = CASE WHEN s.declared THEN s.icon ELSE channels.icon END,
           country = CASE WHEN channels.country_fixed THEN channels.country
             ELSE coalesce(s.country, channels.country) END,
           needs_review = CASE WHEN s.country IS NULL THEN channels.needs_review ELSE false END,
           updated_at = $1
         FROM stage_channels AS s
         WHERE channels.id = s.id AND (
           (s.declared AND (channels.icon IS DISTINCT FROM s.icon OR (NOT channels.name_fixed
             AND (channels.name IS DISTINCT FROM s.name
               OR channels.name_key IS DISTINCT FROM s.name_key
               OR channels.name_folded IS DISTINCT FROM s.name_folded))))
           OR (s.country IS NOT NULL AND ((NOT channels.country_fixed
             AND channels.country IS DISTINCT FROM s.country) OR channels.needs_review)))`,
        [now],
      );
      const inserted = await q(
        `INSERT INTO channels (id, xmltv_id, name, name_key, name_folded, icon, country,
           needs_review, created_at, updated_at)
         SELECT id, xmltv_id, name, name_key, name_folded, icon,
           coalesce(country, fallback_country), country IS NULL, $1, $1
         FROM stage_channels AS s
         WHERE NOT EXISTS (SELECT 1 FROM channels AS c WHERE c.id = s.id)`,
        [now],
      );
      // From each channel's earliest start in the file on, the file's programmes replace the
      // stored ones; programmes whose start never parsed go too for the file's channels.
      const removed = await q(
        `DELETE FROM programmes AS p USING stage_spans AS s
         WHERE p.channel_id = s.channel_id
           AND (p.start_ms >= s.min_start OR p.start_ms IS NULL)
           AND NOT EXISTS (SELECT 1 FROM stage_programmes AS f WHERE f.id = p.id)`,
      );
      const added = await this.one(
        `SELECT count(*) AS added FROM stage_programmes AS f
         WHERE ${WINNERS} AND NOT EXISTS (SELECT 1 FROM programmes AS p WHERE p.id = f.id)`,
      );
      const upserted = await q(
        `INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms, title,
           description, category, needs_review, source_file_id, updated_at)
         SELECT id, channel_id, start, stop, start_ms, stop_ms, title, description, category,
           needs_review, $1, $2
         FROM stage_programmes AS f WHERE ${WINNERS}
         ON CONFLICT (id) DO UPDATE SET
           channel_id = excluded.channel_id, start = excluded.start, stop = excluded.stop,
           start_ms = excluded.start_ms, stop_ms = excluded.stop_ms, title = excluded.title,
           description = excluded.description, category = excluded.category,
           needs_review = excluded.needs_review, source_file_id = excluded.source_file_id,
           updated_at = excluded.updated_at
         WHERE ${PROGRAMME_CHANGED}`,
        [file.id, now],
      );
      const staged = await this.one(
        `SELECT (SELECT count(*) FROM stage_programmes) - (SELECT count(*) FROM stage_losers) AS staged`,
      );
      let pruned = 0;
      const retention = options.retentionDays ?? null;
      if (retention !== null) {
        pruned =
          (await q('DELETE FROM programmes WHERE start_ms < $1', [now - retention * DAY_MS]))
            .rowCount ?? 0;
      }
      await q('COMMIT');
      const programmesAdded = Number(added['added'] ?? 0);
      const programmesUpdated = (upserted.rowCount ?? 0) - programmesAdded;
      return {
        channelsAdded: inserted.rowCount ?? 0,
        channelsUpdated: updated.rowCount ?? 0,
        programmesAdded,
        programmesUpdated,
        programmesUnchanged: Number(staged['staged'] ?? 0) - programmesAdded - programmesUpdated,
        programmesRemoved: removed.rowCount ?? 0,
        programmesPruned: pruned,
      };
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      await this.release();
    }
  }

  async abort(): Promise<void> {
    if (this.closed) return;
    this.programmes = emptyColumns(12);
    this.channels = emptyColumns(9);
    await this.pending.catch(() => {});
    await this.client.query('ROLLBACK').catch(() => {});
    await this.release();
  }

  private async one(sql: string): Promise<Record<string, unknown>> {
    const { rows } = await this.client.query<Record<string, unknown>>(sql);
    return rows[0] ?? {};
  }

  private async prepareMerge(): Promise<void> {
    if (this.prepared) return;
    this.prepared = true;
    await this.client.query(PREPARE_MERGE);
  }

  private async settled(): Promise<void> {
    await this.pending;
    if (this.failure !== null) throw this.failure;
  }

  private async release(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.end().catch(() => {});
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('this ingest session has been committed or aborted');
  }

  private flush(): void {
    this.flushChannels();
    this.flushProgrammes();
  }

  private send(sql: string, columns: Column[]): void {
    this.pending = this.pending.then(async () => {
      if (this.failure !== null) return;
      try {
        await this.client.query(sql, columns);
      } catch (error) {
        this.failure = error;
      }
    });
  }

  private flushProgrammes(): void {
    if ((this.programmes[0]?.length ?? 0) === 0) return;
    this.send(INSERT_PROGRAMMES, this.programmes);
    this.programmes = emptyColumns(12);
  }

  private flushChannels(): void {
    if ((this.channels[0]?.length ?? 0) === 0) return;
    this.send(INSERT_CHANNELS, this.channels);
    this.channels = emptyColumns(9);
  }
}

function emptyColumns(n: number): Column[] {
  return Array.from({ length: n }, () => []);
}

function push(columns: Column[], values: unknown[]): void {
  for (let i = 0; i < values.length; i++) columns[i]?.push(values[i]);
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
        await client.query(CREATE_STAGING);
      } catch (error) {
        await client.end().catch(() => {});
        throw error;
      }
      return new PostgresIngestSession(client);
    },
  };
}
