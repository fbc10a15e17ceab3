import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { MAX_FEEDS_PER_ACCOUNT } from '../../domain/feed.js';
import { FeedLimitError } from '../errors.js';
import {
  FEED_COLUMNS,
  FEED_INSERT_COLUMNS,
  feedInsertValues,
  FEED_OWNER_COLUMNS,
  FEED_PROGRAMME_COLUMNS,
  lineupColumns,
  toFeed,
  toFeedOwner,
  toFeedProgramme,
  LINEUP_CHANNEL_COLUMNS,
  toLineupChannel,
  type FeedOwnerRow,
  type FeedProgrammeRow,
  type FeedRow,
  type LineupChannelRow,
} from '../feed-rows.js';
import type { FeedStore } from '../feed-store.js';

/** Feeds and their catalogue reads over a PostgreSQL pool. */
export function createPostgresFeedStore(pool: pg.Pool): FeedStore {
  const find = async (id: string) => {
    const { rows } = await pool.query<FeedRow>(`SELECT ${FEED_COLUMNS} FROM feeds WHERE id = $1`, [
      id,
    ]);
    return rows[0] === undefined ? null : toFeed(rows[0]);
  };

  return {
    async createFeed(feed, nowMs) {
      const id = randomUUID();
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // The account's row lock makes two creations of one account take turns at the cap.
        await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [feed.accountId]);
        const { rows } = await client.query<{ n: string }>(
          'SELECT count(*) AS n FROM feeds WHERE account_id = $1',
          [feed.accountId],
        );
        if (Number(rows[0]?.n ?? 0) >= MAX_FEEDS_PER_ACCOUNT) {
          throw new FeedLimitError(`an account holds at most ${MAX_FEEDS_PER_ACCOUNT} feeds`);
        }
        await client.query(
          `INSERT INTO feeds (${FEED_INSERT_COLUMNS})
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          feedInsertValues(id, feed, nowMs),
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
      const created = await find(id);
      if (created === null) throw new Error('feed vanished after insert');
      return created;
    },
    findFeed: find,
    async listFeeds(accountId) {
      const { rows } = await pool.query<FeedRow>(
        `SELECT ${FEED_COLUMNS} FROM feeds WHERE account_id = $1 ORDER BY created_at, id COLLATE "C"`,
        [accountId],
      );
      return rows.map(toFeed);
    },
    async updateFeed(id, settings, nowMs) {
      const { country, channelIds } = lineupColumns(settings.lineup);
      await pool.query(
        `UPDATE feeds SET name = $1, country = $2, channel_ids = $3, days_ahead = $4,
           days_back = $5, updated_at = $6 WHERE id = $7`,
        [settings.name, country, channelIds, settings.daysAhead, settings.daysBack, nowMs, id],
      );
      return find(id);
    },
    async replaceToken(id, tokenHash, nowMs) {
      await pool.query('UPDATE feeds SET token_hash = $1, updated_at = $2 WHERE id = $3', [
        tokenHash,
        nowMs,
        id,
      ]);
      return find(id);
    },
    async deleteFeed(id) {
      const { rowCount } = await pool.query('DELETE FROM feeds WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },
    async findFeedByToken(tokenHash) {
      const { rows } = await pool.query<FeedOwnerRow>(
        `SELECT ${FEED_OWNER_COLUMNS} FROM feeds f JOIN accounts a ON a.id = f.account_id
         WHERE f.token_hash = $1`,
        [tokenHash],
      );
      return rows[0] === undefined ? null : toFeedOwner(rows[0]);
    },
    async lineupChannels(lineup) {
      const { rows } =
        lineup.kind === 'country'
          ? await pool.query<LineupChannelRow>(
              `SELECT ${LINEUP_CHANNEL_COLUMNS} FROM channels c WHERE country = $1
               ORDER BY name_key, id COLLATE "C"`,
              [lineup.country],
            )
          : await pool.query<LineupChannelRow>(
              `SELECT ${LINEUP_CHANNEL_COLUMNS}
               FROM unnest($1::text[]) WITH ORDINALITY AS j(id, n) JOIN channels c ON c.id = j.id
               ORDER BY j.n`,
              [lineup.channelIds],
            );
      return rows.map(toLineupChannel);
    },
    async programmesStarting(channelId, fromMs, toMs) {
      const { rows } = await pool.query<FeedProgrammeRow>(
        `SELECT ${FEED_PROGRAMME_COLUMNS} FROM programmes
         WHERE channel_id = $1 AND start_ms >= $2 AND start_ms < $3
         ORDER BY start_ms, id COLLATE "C"`,
        [channelId, fromMs, toMs],
      );
      return rows.map(toFeedProgramme);
    },
    async channelsWithProgrammes(channelIds, fromMs, toMs) {
      const { rows } = await pool.query<{ id: string }>(
        `SELECT c.id FROM unnest($1::text[]) AS c(id) WHERE EXISTS (SELECT 1 FROM programmes p
           WHERE p.channel_id = c.id AND p.start_ms >= $2 AND p.start_ms < $3)`,
        [channelIds, fromMs, toMs],
      );
      return new Set(rows.map((row) => row.id));
    },
    async firstStartFrom(channelIds, atMs) {
      // Per channel on the (channel, start) index, one row each.
      const { rows } = await pool.query<{ first: number | null }>(
        `SELECT min(p.start_ms) AS first FROM unnest($1::text[]) AS c(id)
         CROSS JOIN LATERAL (SELECT start_ms FROM programmes
           WHERE channel_id = c.id AND start_ms >= $2 ORDER BY start_ms LIMIT 1) AS p`,
        [channelIds, atMs],
      );
      const first = rows[0]?.first;
      return first === null || first === undefined ? null : Number(first);
    },
  };
}
