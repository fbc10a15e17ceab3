import type { AuditActor } from '../domain/account.js';
import { isoCountryNote } from '../domain/country.js';
import {
  checkFeedSettings,
  FeedSettingsError,
  generateFeedToken,
  hashFeedToken,
  type Feed,
  type FeedSettings,
} from '../domain/feed.js';
import type { AccountStore } from '../storage/account-store.js';
import type { FeedStore } from '../storage/feed-store.js';

/** A feed with its token: the only moment the token exists outside the holder's media server. */
export interface IssuedFeed {
  feed: Feed;
  token: string;
}

interface FeedStores {
  feeds: FeedStore;
  accounts: AccountStore;
}

/** The settings checked, and the lineup's channels found in the catalogue. */
async function checkedSettings(feeds: FeedStore, settings: FeedSettings): Promise<FeedSettings> {
  const checked = checkFeedSettings(settings);
  const found = await feeds.lineupChannels(checked.lineup);
  if (checked.lineup.kind === 'country') {
    if (found.length === 0) {
      const { country } = checked.lineup;
      throw new FeedSettingsError(`no channels in country ${country}${isoCountryNote(country)}`);
    }
  } else if (found.length !== checked.lineup.channelIds.length) {
    const known = new Set(found.map((c) => c.id));
    const missing = checked.lineup.channelIds.find((id) => !known.has(id));
    throw new FeedSettingsError(`no channel with id ${missing}`);
  }
  return checked;
}

/** Creates a feed (at most MAX_FEEDS_PER_ACCOUNT, else FeedLimitError) and records it. */
export async function createAuditedFeed(
  stores: FeedStores,
  accountId: string,
  settings: FeedSettings,
  actor: AuditActor,
  nowMs: number,
): Promise<IssuedFeed> {
  const checked = await checkedSettings(stores.feeds, settings);
  const token = generateFeedToken();
  const feed = await stores.feeds.createFeed(
    { ...checked, accountId, tokenHash: hashFeedToken(token) },
    nowMs,
  );
  await stores.accounts.recordAudit(
    { accountId, actor, action: 'feed.created', details: { feedId: feed.id, name: feed.name } },
    nowMs,
  );
  return { feed, token };
}

/** Replaces a feed's settings; null when the feed is gone. */
export async function updateAuditedFeed(
  stores: FeedStores,
  feed: Feed,
  settings: FeedSettings,
  actor: AuditActor,
  nowMs: number,
): Promise<Feed | null> {
  const checked = await checkedSettings(stores.feeds, settings);
  const updated = await stores.feeds.updateFeed(feed.id, checked, nowMs);
  if (updated !== null) {
    await stores.accounts.recordAudit(
      { accountId: feed.accountId, actor, action: 'feed.updated', details: { feedId: feed.id } },
      nowMs,
    );
  }
  return updated;
}

/** Gives a feed a new token; the old one is refused from this moment. Null when it is gone. */
export async function regenerateAuditedFeedToken(
  stores: FeedStores,
  feed: Feed,
  actor: AuditActor,
  nowMs: number,
): Promise<IssuedFeed | null> {
  const token = generateFeedToken();
  const updated = await stores.feeds.replaceToken(feed.id, hashFeedToken(token), nowMs);
  if (updated === null) return null;
  await stores.accounts.recordAudit(
    {
      accountId: feed.accountId,
      actor,
      action: 'feed.token-replaced',
      details: { feedId: feed.id },
    },
    nowMs,
  );
  return { feed: updated, token };
}

export async function deleteAuditedFeed(
  stores: FeedStores,
  feed: Feed,
  actor: AuditActor,
  nowMs: number,
): Promise<boolean> {
  const deleted = await stores.feeds.deleteFeed(feed.id);
  if (deleted) {
    await stores.accounts.recordAudit(
      { accountId: feed.accountId, actor, action: 'feed.deleted', details: { feedId: feed.id } },
      nowMs,
    );
  }
  return deleted;
}
