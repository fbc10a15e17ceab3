import type { ChangeLogBounds, ChangeRecord, ChangeType } from '../domain/changes.js';

/** What a read of the change log asks: records after `after`, of the country or the channels. */
export interface ChangeLogRead {
  after: number;
  /** Most records returned. */
  limit: number;
  /** Stored upper-case form (the channels' country now), or null for every country. */
  country: string | null;
  /** Lower-case channel ids, or null for every channel. */
  channels: readonly string[] | null;
}

/** The change log the merges write (ingest-merge/merge-steps.ts), read by `/api/v1/changes`. */
export interface ChangeLog {
  /**
   * The log's bounds and the records after `read.after`, in seq order, at most `read.limit`,
   * all in one snapshot (so the newest seq says how far the records read reach).
   */
  read(query: ChangeLogRead): Promise<{ bounds: ChangeLogBounds; records: ChangeRecord[] }>;
}

/** A change record as both engines return it. */
export interface ChangeRow {
  seq: number | string;
  kind: string;
  change: string;
  channel_id: string;
  programme_id: string | null;
  start: string | null;
  at: number | string;
}

export function toChangeRecord(row: ChangeRow): ChangeRecord {
  return {
    seq: Number(row.seq),
    kind: row.kind === 'channel' ? 'channel' : 'programme',
    change: row.change as ChangeType,
    channelId: row.channel_id,
    programmeId: row.programme_id,
    start: row.start,
    atMs: Number(row.at),
  };
}

/**
 * The statement of a read, written once for both engines with `p` numbering parameters: one row
 * of bounds (seq NULL) then the records, so the bounds and the records are of one snapshot.
 */
export function changeLogStatement(
  read: ChangeLogRead,
  p: (value: string | number | readonly string[]) => string,
  channelIn: (parameter: string) => string,
): string {
  const where = [`ch.seq > ${p(read.after)}`];
  if (read.country !== null) {
    where.push(`ch.channel_id IN (SELECT id FROM channels WHERE country = ${p(read.country)})`);
  }
  if (read.channels !== null) where.push(channelIn(p(read.channels)));
  // Typed NULLs: PostgreSQL takes an untyped one in a UNION for text.
  const none = (type: 'BIGINT' | 'TEXT') => `CAST(NULL AS ${type})`;
  return `SELECT ${none('BIGINT')} AS seq, ${none('TEXT')} AS kind, ${none('TEXT')} AS change,
      ${none('TEXT')} AS channel_id, ${none('TEXT')} AS programme_id, ${none('TEXT')} AS start,
      ${none('BIGINT')} AS at, (SELECT coalesce(max(seq), 0) FROM changes) AS newest,
      (SELECT seq FROM changes_horizon) AS horizon
    UNION ALL
    SELECT * FROM (SELECT ch.seq, ch.kind, ch.change, ch.channel_id, ch.programme_id, ch.start,
        ch.at, ${none('BIGINT')} AS newest, ${none('BIGINT')} AS horizon
      FROM changes AS ch WHERE ${where.join(' AND ')} ORDER BY ch.seq LIMIT ${p(read.limit)}
    ) AS page`;
}

/** The rows of changeLogStatement as bounds and records. */
export function changeLogResult(
  rows: readonly (ChangeRow & {
    newest: number | string | null;
    horizon: number | string | null;
  })[],
): { bounds: ChangeLogBounds; records: ChangeRecord[] } {
  const [first, ...records] = rows;
  const horizon = Number(first?.horizon ?? 0);
  // Every record may have been pruned: the newest is then the last one pruned.
  const newest = Math.max(Number(first?.newest ?? 0), horizon);
  return { bounds: { newest, horizon }, records: records.map(toChangeRecord) };
}
