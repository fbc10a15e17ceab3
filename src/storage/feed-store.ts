import type { LangText } from '../domain/programme-details.js';
import type { Account } from '../domain/account.js';
import type { Feed, FeedSettings } from '../domain/feed.js';
import type { Lineup } from '../domain/feed.js';

export interface NewFeed extends FeedSettings {
  accountId: string;
  tokenHash: string;
}

/** A feed found by its token, with the account whose access rules it answers under. */
export interface FeedOwner {
  feed: Feed;
  account: Account;
}

/** A channel of a lineup as its XMLTV entry names it. */
export interface LineupChannel {
  id: string;
  xmltvId: string;
  name: string;
  /** Every display-name its guide gave, in order (none for a channel not ingested since). */
  displayNames: LangText[];
  icon: string;
}

/** A programme as a feed writes it: its times, v1 texts and stored details text. */
export interface FeedProgramme {
  start: string;
  /** '' when the guide's stop did not parse (the feed then gives none). */
  stop: string;
  title: string;
  desc: string;
  category: string;
  details: string;
}

/** Guide feeds of accounts, and the catalogue reads a feed is written from. */
export interface FeedStore {
  /**
   * Creates a feed; throws FeedLimitError when the account already has MAX_FEEDS_PER_ACCOUNT
   * (checked and inserted in one transaction, so two at once cannot pass the cap).
   */
  createFeed(feed: NewFeed, nowMs: number): Promise<Feed>;
  findFeed(id: string): Promise<Feed | null>;
  /** An account's feeds, oldest first. */
  listFeeds(accountId: string): Promise<Feed[]>;
  /** Replaces name, lineup and days; null when no feed has that id. */
  updateFeed(id: string, settings: FeedSettings, nowMs: number): Promise<Feed | null>;
  /** Replaces the token hash: the old token ends with this write. Null when no such feed. */
  replaceToken(id: string, tokenHash: string, nowMs: number): Promise<Feed | null>;
  /** Deletes a feed; false when there was none. */
  deleteFeed(id: string): Promise<boolean>;
  findFeedByToken(tokenHash: string): Promise<FeedOwner | null>;
  /**
   * The lineup's channels that exist: chosen ones in lineup order, a country's in name order.
   */
  lineupChannels(lineup: Lineup): Promise<LineupChannel[]>;
  /** A channel's programmes starting in [fromMs, toMs), by (start, id). */
  programmesStarting(channelId: string, fromMs: number, toMs: number): Promise<FeedProgramme[]>;
  /** Those of these channels with a programme starting in [fromMs, toMs). */
  channelsWithProgrammes(
    channelIds: readonly string[],
    fromMs: number,
    toMs: number,
  ): Promise<Set<string>>;
  /** The earliest start at or after `atMs` among these channels' programmes, or null. */
  firstStartFrom(channelIds: readonly string[], atMs: number): Promise<number | null>;
}
