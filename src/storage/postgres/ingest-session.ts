import type pg from 'pg';
import { programmeIdFor } from '../../domain/programme-id.js';
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
} from '../catalogue-writer.js';
import { toDuplicateSample } from '../rows.js';
import { StagedProgrammes } from '../staged-programmes.js';

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
  ) ON COMMIT DROP;
  CREATE TEMP TABLE stage_candidates (seq BIGINT PRIMARY KEY) ON COMMIT DROP;
  CREATE TEMP TABLE stage_spans (channel_id TEXT PRIMARY KEY, min_start BIGINT) ON COMMIT DROP;
  CREATE TEMP TABLE stage_repeats (seq BIGINT, id TEXT, channel_id TEXT, start TEXT,
    line INTEGER, nth BIGINT, n BIGINT, same BOOLEAN) ON COMMIT DROP;
  CREATE TEMP TABLE stage_losers (seq BIGINT PRIMARY KEY) ON COMMIT DROP;`;

const INSERT_PROGRAMMES = `INSERT INTO stage_programmes (seq, id, channel_id, start, stop,
    start_ms, stop_ms, title, description, category, needs_review, line)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[],
    $6::bigint[], $7::bigint[], $8::text[], $9::text[], $10::text[], $11::boolean[], $12::int[])`;

const INSERT_CHANNELS = `INSERT INTO stage_channels (id, xmltv_id, name, name_key, name_folded,
    icon, country, fallback_country, declared)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
    $7::text[], $8::text[], $9::boolean[])
  ON CONFLICT (id) DO NOTHING`;

const INSERT_CANDIDATES = `INSERT INTO stage_candidates (seq)
  SELECT * FROM unnest($1::bigint[]) ON CONFLICT (seq) DO NOTHING`;

const INSERT_SPANS = `INSERT INTO stage_spans (channel_id, min_start)
  SELECT * FROM unnest($1::text[], $2::bigint[])`;

/**
 * Once the file is read, when the duplicate filter flagged rows (see StagedProgrammes): the
 * rows of those ids, then the collapse of same (channel, start) (same id) keeping the last in
 * file order. When every flagged row repeated its channel's previous programme, the candidates
 * are all the rows of those ids; otherwise one scan of the staged rows finds them.
 */
function collapseSql(adjacent: boolean): string {
  const rows = adjacent
    ? 'seq IN (SELECT seq FROM stage_candidates)'
    : 'id IN (SELECT s.id FROM stage_candidates AS c JOIN stage_programmes AS s USING (seq))';
  return `
    INSERT INTO stage_repeats
      SELECT seq, id, channel_id, start, line,
        row_number() OVER w AS nth,
        count(*) OVER (PARTITION BY id) AS n,
        (stop IS NOT DISTINCT FROM lag(stop) OVER w
          AND title IS NOT DISTINCT FROM lag(title) OVER w
          AND description IS NOT DISTINCT FROM lag(description) OVER w
          AND category IS NOT DISTINCT FROM lag(category) OVER w) AS same
      FROM stage_programmes WHERE ${rows}
      WINDOW w AS (PARTITION BY id ORDER BY seq);
    DELETE FROM stage_repeats WHERE n = 1;
    INSERT INTO stage_losers SELECT seq FROM stage_repeats WHERE nth < n;`;
}

/** The staged programmes (alias `f`) that survive the collapse. */
function winners(collapsed: boolean): string {
  return collapsed ? 'NOT EXISTS (SELECT 1 FROM stage_losers l WHERE l.seq = f.seq)' : 'true';
}

const PROGRAMME_INSERT = `INSERT INTO programmes (id, channel_id, start, stop, start_ms, stop_ms,
  title, description, category, needs_review, source_file_id, updated_at)`;

// A conflict target fixes the channel, the start and the id: the rest may change.
const PROGRAMME_CHANGED = `programmes.start IS DISTINCT FROM excluded.start
  OR programmes.stop IS DISTINCT FROM excluded.stop
  OR programmes.stop_ms IS DISTINCT FROM excluded.stop_ms
  OR programmes.title IS DISTINCT FROM excluded.title
  OR programmes.description IS DISTINCT FROM excluded.description
  OR programmes.category IS DISTINCT FROM excluded.category
  OR programmes.needs_review IS DISTINCT FROM excluded.needs_review`;

type Column = unknown[];

/**
 * One ingest over PostgreSQL: its own connection, one transaction from first row to COMMIT.
 * What the merge needs to know of the file as a whole is gathered as rows go by
 * (StagedProgrammes), as in the SQLite session.
 */
class PostgresIngestSession implements IngestSession {
  private programmes: Column[] = emptyColumns(12);
  private channels: Column[] = emptyColumns(9);
  private candidates: Column[] = emptyColumns(1);
  private readonly staged = new StagedProgrammes();
  /** Staged rows replaced by a later one with the same id, once the file is read. */
  private losers = 0;
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
      this.staged.add(p, this.addCandidate),
      programmeIdFor(p.channelId, p.start),
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
    const collapsed = this.staged.flagged > 0;
    let totals: Record<string, unknown> = {};
    let samples: Record<string, unknown>[] = [];
    if (collapsed) {
      totals = await this.one(`SELECT
          (SELECT count(*) FROM stage_repeats WHERE nth = 1) AS slots,
          (SELECT count(*) FROM stage_repeats WHERE nth > 1 AND same) AS exact,
          (SELECT count(*) FROM stage_repeats WHERE nth > 1 AND NOT same) AS conflicting`);
      const result = await this.client.query<Record<string, unknown>>(
        `SELECT min(channel_id) AS channel_id, min(start) AS start,
            max(CASE WHEN nth = 1 THEN line END) AS first_line,
            max(CASE WHEN nth = n THEN line END) AS kept_line,
            count(*) FILTER (WHERE nth > 1 AND same) AS exact,
            count(*) FILTER (WHERE nth > 1 AND NOT same) AS conflicting
          FROM stage_repeats GROUP BY id ORDER BY first_line LIMIT $1`,
        [maxSamples],
      );
      samples = result.rows;
    }
    let overlaps: number | null = null;
    if (countOverlaps) {
      // Consecutive programmes of a channel in start order.
      const row = await this.one(`SELECT count(*) AS overlaps FROM (
          SELECT start_ms, lag(stop_ms) OVER (PARTITION BY channel_id ORDER BY start_ms) AS prev
          FROM stage_programmes f WHERE start_ms IS NOT NULL AND ${winners(collapsed)}) AS x
        WHERE prev > start_ms`);
      overlaps = Number(row['overlaps'] ?? 0);
    }
    return {
      programmes: this.staged.count - this.losers,
      exactDuplicates: Number(totals['exact'] ?? 0),
      conflictingDuplicates: Number(totals['conflicting'] ?? 0),
      duplicateSlots: Number(totals['slots'] ?? 0),
      overlaps,
      duplicateSamples: samples.map(toDuplicateSample),
    };
  }

  /**
   * The merge, with the same rules and counts as SQLite's (see its commitSteps): when the
   * file replaces no stored programme, an insert; otherwise the programmes the file drops are
   * removed and the staged ones upserted on their slot (channel, start).
   */
  async commit(file: SourceFileRecord, options: CommitOptions = {}): Promise<MergeStats> {
    this.assertOpen();
    try {
      await this.drain();
      await this.prepareMerge();
      const now = file.ingestedAt;
      const survivors = winners(this.staged.flagged > 0);
      const winnerCount = this.staged.count - this.losers;
      const parsed = `${survivors} AND f.start_ms IS NOT NULL`;
      const unparsed = `${survivors} AND f.start_ms IS NULL`;
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
      // The stored programmes the file replaces: its channels' from each one's earliest start
      // in the file on, and those whose start never parsed.
      const stored = Number(
        (
          await this.one(`SELECT count(*) AS stored FROM stage_spans AS s
            JOIN programmes AS p ON p.channel_id = s.channel_id
              AND (p.start_ms >= s.min_start OR p.start_ms IS NULL)`)
        )['stored'] ?? 0,
      );
      const select = (which: string) => `SELECT id, channel_id, start, stop, start_ms, stop_ms,
          title, description, category, needs_review, $1, $2
        FROM stage_programmes AS f WHERE ${which}`;
      const update = `DO UPDATE SET
          start = excluded.start, stop = excluded.stop, stop_ms = excluded.stop_ms,
          title = excluded.title, description = excluded.description,
          category = excluded.category, needs_review = excluded.needs_review,
          source_file_id = excluded.source_file_id, updated_at = excluded.updated_at
        WHERE ${PROGRAMME_CHANGED}`;
      // One statement per unique index of programmes (PostgreSQL takes one conflict target).
      const upserts = [
        `${PROGRAMME_INSERT} ${select(parsed)}
          ON CONFLICT (channel_id, start_ms, id COLLATE "C") ${update}`,
        `${PROGRAMME_INSERT} ${select(unparsed)}
          ON CONFLICT (channel_id, id COLLATE "C") WHERE start_ms IS NULL ${update}`,
      ];
      let programmesAdded: number;
      let programmesUpdated = 0;
      let removed = 0;
      if (stored === 0) {
        // A first ingest, or new channels: nothing to compare with, nothing to remove.
        // Nothing stored in the file's slots: a conflict here would be a bug, and fails.
        const result = await q(`${PROGRAMME_INSERT} ${select(survivors)}`, [file.id, now]);
        programmesAdded = result.rowCount ?? 0;
      } else {
        await q('ANALYZE stage_programmes');
        removed =
          (
            await q(
              `DELETE FROM programmes AS p USING stage_spans AS s
               WHERE p.channel_id = s.channel_id
                 AND (p.start_ms >= s.min_start OR p.start_ms IS NULL)
                 AND NOT EXISTS (SELECT 1 FROM stage_programmes AS f
                   WHERE f.id = p.id AND f.channel_id = p.channel_id)`,
            )
          ).rowCount ?? 0;
        // The staged programmes not stored in their slot, one probe of an index each.
        const added = await this.one(
          `SELECT
             (SELECT count(*) FROM stage_programmes AS f WHERE ${parsed} AND NOT EXISTS (
               SELECT 1 FROM programmes AS p WHERE p.channel_id = f.channel_id
                 AND p.start_ms = f.start_ms AND p.id = f.id))
           + (SELECT count(*) FROM stage_programmes AS f WHERE ${unparsed} AND NOT EXISTS (
               SELECT 1 FROM programmes AS p WHERE p.channel_id = f.channel_id
                 AND p.start_ms IS NULL AND p.id = f.id)) AS added`,
        );
        programmesAdded = Number(added['added'] ?? 0);
        let written = 0;
        for (const upsert of upserts) written += (await q(upsert, [file.id, now])).rowCount ?? 0;
        programmesUpdated = written - programmesAdded;
      }
      let pruned = 0;
      const retention = options.retentionDays ?? null;
      if (retention !== null) {
        pruned =
          (await q('DELETE FROM programmes WHERE start_ms < $1', [now - retention * DAY_MS]))
            .rowCount ?? 0;
      }
      await q('COMMIT');
      return {
        channelsAdded: inserted.rowCount ?? 0,
        channelsUpdated: updated.rowCount ?? 0,
        programmesAdded,
        programmesUpdated,
        programmesUnchanged: winnerCount - programmesAdded - programmesUpdated,
        programmesRemoved: removed,
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
    this.candidates = emptyColumns(1);
    await this.pending.catch(() => {});
    await this.client.query('ROLLBACK').catch(() => {});
    await this.release();
  }

  private readonly addCandidate = (seq: number): void => {
    push(this.candidates, [seq]);
  };

  private async one(sql: string): Promise<Record<string, unknown>> {
    const { rows } = await this.client.query<Record<string, unknown>>(sql);
    return rows[0] ?? {};
  }

  /** Stages each channel's span and collapses repeated ids, once, after the last row. */
  private async prepareMerge(): Promise<void> {
    if (this.prepared) return;
    this.prepared = true;
    const ids: string[] = [];
    const starts: (number | null)[] = [];
    for (const [channelId, span] of this.staged.spans) {
      ids.push(channelId);
      starts.push(Number.isNaN(span.earliestMs) ? null : span.earliestMs);
    }
    await this.client.query(INSERT_SPANS, [ids, starts]);
    if (this.staged.flagged === 0) return;
    await this.client.query(collapseSql(this.staged.adjacent));
    this.losers = Number((await this.one('SELECT count(*) AS losers FROM stage_losers'))['losers']);
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
    this.flushCandidates();
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

  private flushCandidates(): void {
    if ((this.candidates[0]?.length ?? 0) === 0) return;
    this.send(INSERT_CANDIDATES, this.candidates);
    this.candidates = emptyColumns(1);
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
