import type pg from 'pg';
import { foldForSearch, nameSortKey } from '../../domain/search-folding.js';
import {
  CHANNEL_DETAIL_COLUMNS,
  toChannelDetails,
  toChannelScheduleEnd,
  type ChannelDetailsRow,
  type ChannelScheduleEndRow,
} from '../rows.js';
import type { ChannelAdminStore } from '../channel-admin-store.js';
import { POSTGRES_MERGE } from './postgres-merge-dialect.js';

/** Operator review of channels over a PostgreSQL pool (byte order, as on SQLite). */
export function createPostgresChannelAdminStore(pool: pg.Pool): ChannelAdminStore {
  const find = async (key: string) => {
    // An id that is a channel's UUID wins over the same text as another channel's XMLTV id.
    const { rows } = await pool.query<ChannelDetailsRow>(
      `SELECT ${CHANNEL_DETAIL_COLUMNS} FROM channels WHERE id = $1 OR xmltv_id = $1
       ORDER BY id = $1 DESC LIMIT 1`,
      [key],
    );
    const row = rows[0];
    return row === undefined ? null : toChannelDetails(row);
  };
  return {
    findChannel: find,
    async listChannels({ country = null, needsReview }) {
      const { rows } = await pool.query<ChannelDetailsRow>(
        `SELECT ${CHANNEL_DETAIL_COLUMNS} FROM channels
         WHERE ($1::text IS NULL OR country = $1) AND ($2::boolean IS NULL OR needs_review = $2)
         ORDER BY country COLLATE "C", name_key, id COLLATE "C"`,
        [country, needsReview ?? null],
      );
      return rows.map(toChannelDetails);
    },
    async fixChannel(id, change, nowMs) {
      const name = change.name ?? null;
      const params = [
        id,
        name,
        name === null ? null : nameSortKey(name),
        name === null ? null : foldForSearch(name),
        change.country ?? null,
        change.reviewed === true,
        nowMs,
      ];
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // A fix that changes what the API shows of the channel is a change record, numbered
        // in commit order as the merges' are (postgres-merge-dialect.ts).
        if (POSTGRES_MERGE.changesInCommitOrder !== null) {
          await client.query(POSTGRES_MERGE.changesInCommitOrder);
        }
        await client.query(
          `INSERT INTO changes (kind, change, channel_id, programme_id, start, at)
           SELECT 'channel', 'changed', id, NULL, NULL, $5 FROM channels
           WHERE id = $1 AND (($2::text IS NOT NULL AND name IS DISTINCT FROM $2)
             OR ($3::text IS NOT NULL AND country IS DISTINCT FROM $3)
             OR (($3::text IS NOT NULL OR $4) AND needs_review))`,
          [id, name, change.country ?? null, change.reviewed === true, nowMs],
        );
        const result = await client.query(
          `UPDATE channels SET
           name = coalesce($2, name), name_key = coalesce($3, name_key),
           name_folded = coalesce($4, name_folded), name_fixed = name_fixed OR $2 IS NOT NULL,
           country = coalesce($5, country),
           country_fixed = country_fixed OR $5 IS NOT NULL OR $6,
           needs_review = CASE WHEN $5 IS NOT NULL OR $6 THEN false ELSE needs_review END,
           reviewed_at = CASE WHEN $6 THEN $7 ELSE reviewed_at END,
           updated_at = $7
         WHERE id = $1`,
          params,
        );
        await client.query('COMMIT');
        return (result.rowCount ?? 0) === 0 ? null : find(id);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async listScheduleEnds(beforeMs, { country = null, includeEmpty = false }) {
      // A channel's schedule ends at its programmes' latest stop, or start where that is later
      // (a programme without a stop, or one that stops before it starts).
      const { rows } = await pool.query<ChannelScheduleEndRow>(
        `SELECT * FROM (
           SELECT c.id, c.name, c.icon, c.country, c.needs_review, c.xmltv_id, c.name_fixed,
             c.country_fixed, c.reviewed_at, c.created_at, c.updated_at, c.name_key,
             count(p.id) AS programmes,
             max(greatest(p.stop_ms, p.start_ms)) AS latest_end_ms
           FROM channels AS c LEFT JOIN programmes AS p ON p.channel_id = c.id
           WHERE $1::text IS NULL OR c.country = $1
           GROUP BY c.id) AS ends
         WHERE latest_end_ms < $2 OR ($3 AND latest_end_ms IS NULL)
         ORDER BY latest_end_ms IS NOT NULL, latest_end_ms, country COLLATE "C", name_key,
           id COLLATE "C"`,
        [country, beforeMs, includeEmpty],
      );
      return rows.map(toChannelScheduleEnd);
    },
  };
}
