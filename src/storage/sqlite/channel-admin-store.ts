import { foldForSearch, nameSortKey } from '../../domain/search-folding.js';
import {
  CHANNEL_DETAIL_COLUMNS,
  toChannelDetails,
  toChannelScheduleEnd,
  type ChannelDetailsRow,
  type ChannelScheduleEndRow,
} from '../rows.js';
import type { ChannelAdminStore } from '../channel-admin-store.js';
import type { SqliteDatabase } from './connection.js';

interface FixParams {
  id: string;
  name: string | null;
  nameKey: string | null;
  nameFolded: string | null;
  country: string | null;
  reviewed: number;
  now: number;
}

/** Operator review of channels over one SQLite connection. */
export function createSqliteChannelAdminStore(db: SqliteDatabase): ChannelAdminStore {
  // An id that is a channel's UUID wins over the same text as another channel's XMLTV id.
  const find = db.prepare<{ key: string }, ChannelDetailsRow>(
    `SELECT ${CHANNEL_DETAIL_COLUMNS} FROM channels WHERE id = @key OR xmltv_id = @key
     ORDER BY id = @key DESC LIMIT 1`,
  );
  const fix = db.prepare<FixParams>(
    `UPDATE channels SET
       name = coalesce(@name, name), name_key = coalesce(@nameKey, name_key),
       name_folded = coalesce(@nameFolded, name_folded),
       name_fixed = name_fixed OR @name IS NOT NULL,
       country = coalesce(@country, country),
       country_fixed = country_fixed OR @country IS NOT NULL OR @reviewed,
       needs_review = CASE WHEN @country IS NOT NULL OR @reviewed THEN 0 ELSE needs_review END,
       reviewed_at = CASE WHEN @reviewed THEN @now ELSE reviewed_at END,
       updated_at = @now
     WHERE id = @id`,
  );
  // A fix that changes what the API shows of the channel is a change record.
  const logFix = db.prepare<FixParams>(
    `INSERT INTO changes (kind, change, channel_id, programme_id, start, at)
     SELECT 'channel', 'changed', id, NULL, NULL, @now FROM channels
     WHERE id = @id AND ((@name IS NOT NULL AND name IS NOT @name)
       OR (@country IS NOT NULL AND country IS NOT @country)
       OR ((@country IS NOT NULL OR @reviewed) AND needs_review))`,
  );
  const fixAndLog = db.transaction((params: FixParams) => {
    logFix.run(params);
    return fix.run(params);
  });
  return {
    async findChannel(idOrXmltvId) {
      const row = find.get({ key: idOrXmltvId });
      return row === undefined ? null : toChannelDetails(row);
    },
    async listChannels({ country = null, needsReview }) {
      const where: string[] = [];
      const params: Record<string, string | number> = {};
      if (country !== null) {
        where.push('country = @country');
        params['country'] = country;
      }
      if (needsReview !== undefined) {
        where.push('needs_review = @review');
        params['review'] = needsReview ? 1 : 0;
      }
      const sql = `SELECT ${CHANNEL_DETAIL_COLUMNS} FROM channels
        ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY country, name_key, id`;
      return db
        .prepare<Record<string, string | number>, ChannelDetailsRow>(sql)
        .all(params)
        .map(toChannelDetails);
    },
    async fixChannel(id, change, nowMs) {
      const name = change.name ?? null;
      const result = fixAndLog({
        id,
        name,
        nameKey: name === null ? null : nameSortKey(name),
        nameFolded: name === null ? null : foldForSearch(name),
        country: change.country ?? null,
        reviewed: change.reviewed === true ? 1 : 0,
        now: nowMs,
      });
      if (result.changes === 0) return null;
      const row = find.get({ key: id });
      return row === undefined ? null : toChannelDetails(row);
    },
    async listScheduleEnds(beforeMs, { country = null, includeEmpty = false }) {
      // A channel's schedule ends at its programmes' latest stop, or start where that is later
      // (a programme without a stop, or one that stops before it starts).
      const sql = `SELECT c.id, c.name, c.icon, c.country, c.needs_review, c.xmltv_id,
          c.name_fixed, c.country_fixed, c.reviewed_at, c.created_at, c.updated_at,
          count(p.id) AS programmes,
          max(max(coalesce(p.stop_ms, p.start_ms), coalesce(p.start_ms, p.stop_ms)))
            AS latest_end_ms
        FROM channels AS c LEFT JOIN programmes AS p ON p.channel_id = c.id
        ${country === null ? '' : 'WHERE c.country = @country'}
        GROUP BY c.id
        HAVING latest_end_ms < @before ${includeEmpty ? 'OR latest_end_ms IS NULL' : ''}
        ORDER BY latest_end_ms IS NOT NULL, latest_end_ms, c.country, c.name_key, c.id`;
      const params: Record<string, string | number> = { before: beforeMs };
      if (country !== null) params['country'] = country;
      return db
        .prepare<Record<string, string | number>, ChannelScheduleEndRow>(sql)
        .all(params)
        .map(toChannelScheduleEnd);
    },
  };
}
