import { parseCountryCode } from './country.js';
import { errors } from './errors.js';
import { parseChannelIds, type RawQuery } from './guide.js';
import { formatXmltvUtc } from './xmltv-time.js';

/**
 * The rules of `GET /api/v1/changes` (issue 25): what a change record is, what a query asks
 * for, and where the next page starts. Pure: the merge writes the records, the store reads
 * them, the route answers.
 */

export const DEFAULT_CHANGES_LIMIT = 500;
export const MAX_CHANGES_LIMIT = 1000;

export type ChangeKind = 'programme' | 'channel';
export type ChangeType = 'added' | 'changed' | 'removed';

/** One record of the change log, as the merge wrote it. */
export interface ChangeRecord {
  /** Its number: records are numbered in the order their ingests committed. */
  seq: number;
  kind: ChangeKind;
  change: ChangeType;
  channelId: string;
  /** Programmes only. */
  programmeId: string | null;
  /** Programmes only: the programme's start as stored (its UTC form when it parsed). */
  start: string | null;
  /** The time of the ingest that made the change (epoch ms), as the programmes' updatedAt. */
  atMs: number;
}

/** A parsed changes query: from where, how many, of which channels. */
export interface ChangesQuery {
  /** Records after this seq; null: from the newest now (an empty first page). */
  since: number | null;
  limit: number;
  /** Stored upper-case form, or null for every country. */
  country: string | null;
  /** Lower-case ids, each once, or null for every channel. */
  channels: string[] | null;
}

/** The log's extent at the time of a read: its newest seq, and the last seq pruned. */
export interface ChangeLogBounds {
  newest: number;
  horizon: number;
}

/** A page of records: the records, where the next page starts, and whether it has more now. */
export interface ChangesPage {
  changes: ChangeRecord[];
  next: number;
  hasMore: boolean;
}

/** Reads `since`, `limit`, `country` and `channels`; other keys are ignored. */
export function parseChangesQuery(query: RawQuery): ChangesQuery {
  const sinceText = query['since'];
  let since: number | null = null;
  if (sinceText !== undefined) {
    since = /^[0-9]{1,15}$/.test(sinceText) ? Number(sinceText) : NaN;
    if (!Number.isSafeInteger(since)) {
      throw errors.invalidParameters(
        'Invalid since: send the `next` of the previous answer (a whole number), or leave it out to start from now',
      );
    }
  }
  const limitText = query['limit'];
  let limit = DEFAULT_CHANGES_LIMIT;
  if (limitText !== undefined) {
    limit = /^[0-9]{1,4}$/.test(limitText) ? Number(limitText) : NaN;
    if (!(limit >= 1 && limit <= MAX_CHANGES_LIMIT)) {
      throw errors.invalidParameters(
        `Invalid limit: use an integer from 1 to ${MAX_CHANGES_LIMIT}`,
      );
    }
  }
  const countryText = query['country'];
  const country =
    countryText === undefined || countryText.trim() === '' ? null : parseCountryCode(countryText);
  const channelsText = query['channels'];
  const channels = channelsText === undefined ? null : parseChannelIds(channelsText);
  return { since, limit, country, channels };
}

/**
 * Where a read starts for `query` given the log's bounds at that read: `since`, or the newest
 * record when it is absent. A `since` before the last record pruned has missed records, and
 * one past the newest belongs to another log (a catalogue made anew): both must start again
 * from now, 410 CURSOR_EXPIRED.
 */
export function changesStart(query: Pick<ChangesQuery, 'since'>, bounds: ChangeLogBounds): number {
  const since = query.since ?? bounds.newest;
  if (since < bounds.horizon) {
    throw errors.cursorExpired(
      `Records after ${since} were pruned (the log keeps those after ${bounds.horizon}): read the catalogue again, then follow the changes from now (leave since out)`,
    );
  }
  if (since > bounds.newest) {
    throw errors.cursorExpired(
      `No record ${since} was ever written here (the newest is ${bounds.newest}): read the catalogue again, then follow the changes from now (leave since out)`,
    );
  }
  return since;
}

/**
 * The page of a read that found `found` (at most limit + 1 records after the start, in seq
 * order, of the query's channels) when the newest record was `newest`: a full page continues
 * after its last record; otherwise every record up to the newest was looked at.
 */
export function changesPage(found: ChangeRecord[], limit: number, newest: number): ChangesPage {
  if (found.length > limit) {
    const changes = found.slice(0, limit);
    return { changes, next: changes.at(-1)?.seq ?? newest, hasMore: true };
  }
  return { changes: found, next: newest, hasMore: false };
}

/**
 * A record as the API (and a webhook) shows it, its fields in the schema's order: the fields
 * every record has, then the programme's, as the schema's serializer writes them (required
 * properties before optional ones), so a webhook's bytes are those of `/api/v1/changes`.
 */
export interface ChangeEntry {
  seq: number;
  kind: ChangeKind;
  change: ChangeType;
  channelId: string;
  at: string;
  programmeId?: string;
  start?: string;
}

export function changeEntry(record: ChangeRecord): ChangeEntry {
  return {
    seq: record.seq,
    kind: record.kind,
    change: record.change,
    channelId: record.channelId,
    at: formatXmltvUtc(record.atMs),
    ...(record.programmeId === null ? {} : { programmeId: record.programmeId }),
    ...(record.start === null ? {} : { start: record.start }),
  };
}
