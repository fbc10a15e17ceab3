import { randomUUID } from 'node:crypto';
import { MAX_FEEDS_PER_ACCOUNT } from '../../domain/feed.js';
import { FeedLimitError } from '../errors.js';
import {
  FEED_COLUMNS,
  FEED_INSERT_COLUMNS,
  feedInsertValues,
  FEED_OWNER_COLUMNS,
  toFeedOwner,
  LINEUP_CHANNEL_COLUMNS,
  toLineupChannel,
  type FeedOwnerRow,
  type LineupChannelRow,
  FEED_PROGRAMME_COLUMNS,
  lineupColumns,
  toFeed,
  toFeedProgramme,
  type FeedProgrammeRow,
  type FeedRow,
} from '../feed-rows.js';
import type { FeedStore } from '../feed-store.js';
import type { SqliteDatabase } from './connection.js';

/** Feeds in the accounts file; their catalogue reads in the attached catalogue file. */
export function createSqliteFeedStore(db: SqliteDatabase): FeedStore {
  const countOfAccount = db.prepare<[string], { n: number }>(
    'SELECT count(*) AS n FROM feeds WHERE account_id = ?',
  );
  const insert = db.prepare(
    `INSERT INTO feeds (${FEED_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const byId = db.prepare<[string], FeedRow>(`SELECT ${FEED_COLUMNS} FROM feeds WHERE id = ?`);
  const ofAccount = db.prepare<[string], FeedRow>(
    `SELECT ${FEED_COLUMNS} FROM feeds WHERE account_id = ? ORDER BY created_at, id`,
  );
  const update = db.prepare(
    `UPDATE feeds SET name = ?, country = ?, channel_ids = ?, days_ahead = ?, days_back = ?,
       updated_at = ? WHERE id = ?`,
  );
  const setToken = db.prepare('UPDATE feeds SET token_hash = ?, updated_at = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM feeds WHERE id = ?');
  const byToken = db.prepare<[string], FeedOwnerRow>(
    `SELECT ${FEED_OWNER_COLUMNS} FROM feeds f JOIN accounts a ON a.id = f.account_id
     WHERE f.token_hash = ?`,
  );
  const chosenChannels = db.prepare<[string], LineupChannelRow>(
    `SELECT ${LINEUP_CHANNEL_COLUMNS} FROM json_each(?) AS j JOIN channels c ON c.id = j.value
     ORDER BY j.key`,
  );
  const countryChannels = db.prepare<[string], LineupChannelRow>(
    `SELECT ${LINEUP_CHANNEL_COLUMNS} FROM channels c WHERE country = ? ORDER BY name_key, id`,
  );
  const starting = db.prepare<[string, number, number], FeedProgrammeRow>(
    `SELECT ${FEED_PROGRAMME_COLUMNS} FROM programmes
     WHERE channel_id = ? AND start_ms >= ? AND start_ms < ? ORDER BY start_ms, id`,
  );
  const anyStarting = db.prepare<[string, number, number], { found: number }>(
    `SELECT 1 AS found FROM programmes WHERE channel_id = ? AND start_ms >= ? AND start_ms < ?
     LIMIT 1`,
  );
  const firstFrom = db.prepare<[string, number], { start_ms: number }>(
    'SELECT start_ms FROM programmes WHERE channel_id = ? AND start_ms >= ? ORDER BY start_ms LIMIT 1',
  );
  const createTx = db.transaction((values: unknown[], accountId: string) => {
    if ((countOfAccount.get(accountId)?.n ?? 0) >= MAX_FEEDS_PER_ACCOUNT) {
      throw new FeedLimitError(`an account holds at most ${MAX_FEEDS_PER_ACCOUNT} feeds`);
    }
    insert.run(...values);
  });

  const find = (id: string) => {
    const row = byId.get(id);
    return row === undefined ? null : toFeed(row);
  };

  return {
    async createFeed(feed, nowMs) {
      const id = randomUUID();
      const values = feedInsertValues(id, feed, nowMs);
      createTx.immediate(values, feed.accountId);
      const created = find(id);
      if (created === null) throw new Error('feed vanished after insert');
      return created;
    },
    async findFeed(id) {
      return find(id);
    },
    async listFeeds(accountId) {
      return ofAccount.all(accountId).map(toFeed);
    },
    async updateFeed(id, settings, nowMs) {
      const { country, channelIds } = lineupColumns(settings.lineup);
      update.run(
        settings.name,
        country,
        channelIds,
        settings.daysAhead,
        settings.daysBack,
        nowMs,
        id,
      );
      return find(id);
    },
    async replaceToken(id, tokenHash, nowMs) {
      setToken.run(tokenHash, nowMs, id);
      return find(id);
    },
    async deleteFeed(id) {
      return remove.run(id).changes > 0;
    },
    async findFeedByToken(tokenHash) {
      const row = byToken.get(tokenHash);
      return row === undefined ? null : toFeedOwner(row);
    },
    async lineupChannels(lineup) {
      const rows =
        lineup.kind === 'country'
          ? countryChannels.all(lineup.country)
          : chosenChannels.all(JSON.stringify(lineup.channelIds));
      return rows.map(toLineupChannel);
    },
    async programmesStarting(channelId, fromMs, toMs) {
      return starting.all(channelId, fromMs, toMs).map(toFeedProgramme);
    },
    async channelsWithProgrammes(channelIds, fromMs, toMs) {
      return new Set(channelIds.filter((id) => anyStarting.get(id, fromMs, toMs) !== undefined));
    },
    async firstStartFrom(channelIds, atMs) {
      let first: number | null = null;
      for (const channelId of channelIds) {
        const row = firstFrom.get(channelId, atMs);
        if (row !== undefined && (first === null || row.start_ms < first)) first = row.start_ms;
      }
      return first;
    },
  };
}
