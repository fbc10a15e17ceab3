import {
  CHANNEL_COLUMNS,
  PROGRAMME_COLUMNS,
  toChannel,
  toProgramme,
  toRichProgramme,
  toTimedProgramme,
  LONG_PROGRAMME_CONDITION,
  LONG_PROGRAMME_MS,
  TIMED_PROGRAMME_COLUMNS,
  type ChannelRow,
  type ProgrammeRow,
  type RichProgrammeRow,
  type TimedProgrammeRow,
} from '../rows.js';
import type { CatalogueReader } from '../catalogue-reader.js';
import { foundProgrammes } from '../programme-search-rows.js';
import type { CountryCount } from '../../domain/channel.js';
import type { TimedProgramme } from '../../domain/programme.js';
import type { SqliteDatabase } from './connection.js';

/**
 * Catalogue reads over one SQLite connection, with every statement prepared once; programme
 * search is `searchProgrammes` (programme-search.ts, run in this thread or a worker's).
 */
export function createSqliteCatalogueReader(
  db: SqliteDatabase,
  searchProgrammes: CatalogueReader['searchProgrammes'],
): CatalogueReader {
  const countries = db.prepare<[], CountryCount>(
    `SELECT country, count(*) AS channelCount FROM channels GROUP BY country ORDER BY country`,
  );
  const channelsOfCountry = db.prepare<[string], ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE country = ? ORDER BY name_key, id`,
  );
  // instr() rather than LIKE: the needle is plain text, so % and _ must not act as wildcards.
  const searchAll = db.prepare<[string, number], ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE instr(name_folded, ?) > 0
     ORDER BY name_key, id LIMIT ?`,
  );
  const searchCountry = db.prepare<[string, string, number], ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE country = ? AND instr(name_folded, ?) > 0
     ORDER BY name_key, id LIMIT ?`,
  );
  const channelExists = db.prepare<[string], { found: number }>(
    'SELECT 1 AS found FROM channels WHERE id = ?',
  );
  const channelCount = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM channels');
  const programmes = db.prepare<[string], ProgrammeRow>(
    `SELECT ${PROGRAMME_COLUMNS} FROM programmes WHERE channel_id = ?
     ORDER BY start_ms IS NULL, start_ms, id`,
  );
  // The (channel, start, id) index holds the id: the channel's entries are scanned in it.
  const programme = db.prepare<[string, string], RichProgrammeRow>(
    `SELECT ${PROGRAMME_COLUMNS}, details FROM programmes WHERE channel_id = ? AND id = ?`,
  );
  const foundAt = db.prepare<[string, number, string], TimedProgrammeRow>(
    `SELECT ${TIMED_PROGRAMME_COLUMNS} FROM programmes WHERE channel_id = ? AND start_ms = ? AND id = ?`,
  );
  const channelsById = db.prepare<[string], ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM channels WHERE id IN (SELECT value FROM json_each(?))`,
  );
  // A window's programmes: those starting in it or up to LONG_PROGRAMME_MS before it (on the
  // (channel, start) index), and the long ones that started earlier (on their partial index).
  const recentInWindow = db.prepare<[string, number, number, number], TimedProgrammeRow>(
    `SELECT ${TIMED_PROGRAMME_COLUMNS} FROM programmes
     WHERE channel_id = ? AND start_ms >= ? AND start_ms < ? AND stop_ms > ?
     ORDER BY start_ms, id`,
  );
  const longInWindow = db.prepare<[string, number, number], TimedProgrammeRow>(
    // Named: on a large catalogue the planner otherwise takes the (channel, start) index and
    // reads the channel's whole history (500 channels: 0.2–0.7 s instead of milliseconds).
    `SELECT ${TIMED_PROGRAMME_COLUMNS} FROM programmes INDEXED BY programmes_long
     WHERE channel_id = ? AND ${LONG_PROGRAMME_CONDITION} AND stop_ms > ? AND start_ms < ?
     ORDER BY start_ms, id`,
  );
  const firstAfter = db.prepare<[string, number], TimedProgrammeRow>(
    `SELECT ${TIMED_PROGRAMME_COLUMNS} FROM programmes
     WHERE channel_id = ? AND start_ms > ? AND stop_ms IS NOT NULL
     ORDER BY start_ms, id LIMIT 1`,
  );

  return {
    searchProgrammes,
    async listCountries() {
      return countries.all();
    },
    async listChannels(country) {
      return channelsOfCountry.all(country).map(toChannel);
    },
    async searchChannels(needle, country, limit) {
      const rows =
        country === null ? searchAll.all(needle, limit) : searchCountry.all(country, needle, limit);
      return rows.map(toChannel);
    },
    async channelExists(id) {
      return channelExists.get(id) !== undefined;
    },
    async countChannels() {
      return channelCount.get()?.n ?? 0;
    },
    async listProgrammes(channelId) {
      return programmes.all(channelId).map(toProgramme);
    },
    async findProgramme(channelId, programmeId) {
      const row = programme.get(channelId, programmeId);
      return row === undefined ? null : toRichProgramme(row, channelId);
    },
    async programmesFound(hits) {
      const rows: TimedProgrammeRow[] = [];
      for (const { key, channel } of hits) {
        const row = foundAt.get(channel.id, key.startMs, key.id);
        if (row !== undefined) rows.push(row);
      }
      return foundProgrammes(hits, rows);
    },
    async findChannels(ids) {
      return channelsById.all(JSON.stringify(ids)).map(toChannel);
    },
    async programmesBetween(channelIds, fromMs, toMs) {
      const found = new Map<string, TimedProgramme[]>();
      const lookBack = fromMs - LONG_PROGRAMME_MS;
      for (const channelId of channelIds) {
        const rows = longInWindow.all(channelId, fromMs, lookBack);
        for (const row of recentInWindow.all(channelId, lookBack, toMs, fromMs)) rows.push(row);
        if (rows.length > 0) found.set(channelId, rows.map(toTimedProgramme));
      }
      return found;
    },
    async programmesAfter(channelIds, atMs) {
      const found = new Map<string, TimedProgramme>();
      for (const channelId of channelIds) {
        const row = firstAfter.get(channelId, atMs);
        if (row !== undefined) found.set(channelId, toTimedProgramme(row));
      }
      return found;
    },
  };
}
