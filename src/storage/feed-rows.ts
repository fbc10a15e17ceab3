import type { LangText } from '../domain/programme-details.js';
import type { Feed, Lineup } from '../domain/feed.js';
import type { FeedOwner, FeedProgramme, LineupChannel, NewFeed } from './feed-store.js';
import { toAccount } from './rows.js';

/** Feed rows as both engines return them, and the lineup's stored form. */

export interface FeedRow {
  id: string;
  account_id: string;
  name: string;
  /** The country of a country lineup, else null. */
  country: string | null;
  /** JSON array of channel ids ('[]' for a country lineup). */
  channel_ids: string;
  days_ahead: number;
  days_back: number;
  created_at: number;
  updated_at: number;
}

export const FEED_COLUMNS =
  'id, account_id, name, country, channel_ids, days_ahead, days_back, created_at, updated_at';

/** The columns a new feed is inserted with, in FEED_INSERT_COLUMNS order. */
export const FEED_INSERT_COLUMNS = `id, account_id, name, country, channel_ids, days_ahead, days_back,
  token_hash, created_at, updated_at`;

export function feedInsertValues(id: string, feed: NewFeed, nowMs: number): unknown[] {
  const { country, channelIds } = lineupColumns(feed.lineup);
  return [
    id,
    feed.accountId,
    feed.name,
    country,
    channelIds,
    feed.daysAhead,
    feed.daysBack,
    feed.tokenHash,
    nowMs,
    nowMs,
  ];
}

/** The lineup's two columns. */
export function lineupColumns(lineup: Lineup): { country: string | null; channelIds: string } {
  return lineup.kind === 'country'
    ? { country: lineup.country, channelIds: '[]' }
    : { country: null, channelIds: JSON.stringify(lineup.channelIds) };
}

export function toFeed(row: FeedRow): Feed {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    lineup:
      row.country === null
        ? { kind: 'channels', channelIds: JSON.parse(row.channel_ids) as string[] }
        : { kind: 'country', country: row.country },
    daysAhead: row.days_ahead,
    daysBack: row.days_back,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface FeedProgrammeRow {
  start: string;
  stop: string;
  stop_ms: number | null;
  title: string;
  description: string;
  category: string;
  details: string;
}

export const FEED_PROGRAMME_COLUMNS = 'start, stop, stop_ms, title, description, category, details';

export function toFeedProgramme(row: FeedProgrammeRow): FeedProgramme {
  return {
    start: row.start,
    stop: row.stop_ms === null ? '' : row.stop,
    title: row.title,
    desc: row.description,
    category: row.category,
    details: row.details,
  };
}

/** A feed joined with its account (`FROM feeds f JOIN accounts a`). */
export interface FeedOwnerRow extends FeedRow {
  email: string;
  verified_at: number | null;
  access_until: number | null;
  rate_limit: number | null;
  disabled: number | boolean;
  account_created_at: number;
}

export const FEED_OWNER_COLUMNS = `f.id, f.account_id, f.name, f.country, f.channel_ids,
  f.days_ahead, f.days_back, f.created_at, f.updated_at, a.email, a.verified_at, a.access_until,
  a.rate_limit, a.disabled, a.created_at AS account_created_at`;

export function toFeedOwner(row: FeedOwnerRow): FeedOwner {
  return {
    feed: toFeed(row),
    account: toAccount({ ...row, id: row.account_id, created_at: row.account_created_at }),
  };
}

export interface LineupChannelRow {
  id: string;
  xmltv_id: string;
  name: string;
  /** A JSON array of `{ value, lang }`, as the ingest's merge writes it. */
  display_names: string;
  icon: string;
}

/** The columns of a LineupChannelRow, of the channels table aliased `c`. */
export const LINEUP_CHANNEL_COLUMNS = 'c.id, c.xmltv_id, c.name, c.display_names, c.icon';

/** A stored display-name: `{ value, lang }`, or a bare string as the first build of 2026-12-01 wrote them. */
function displayNameOf(stored: unknown): LangText | null {
  if (typeof stored === 'string') return { value: stored, lang: '' };
  if (typeof stored !== 'object' || stored === null) return null;
  const { value, lang } = stored as { value?: unknown; lang?: unknown };
  return typeof value === 'string' ? { value, lang: typeof lang === 'string' ? lang : '' } : null;
}

export function toLineupChannel(row: LineupChannelRow): LineupChannel {
  const names: unknown = JSON.parse(row.display_names);
  return {
    id: row.id,
    xmltvId: row.xmltv_id,
    name: row.name,
    displayNames: Array.isArray(names)
      ? names.map(displayNameOf).filter((n): n is LangText => n !== null)
      : [],
    icon: row.icon,
  };
}
